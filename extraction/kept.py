"""Whether a caption the offline reader wrote is kept: a durable fact, with its verb and its
value, short enough to store. Never a mention of someone and no more ("User's 2 kids"), nor
an auxiliary left without the verb it stands for ("User hasn't for years")."""

from __future__ import annotations

from core.lexicon import lexicon, words_of
from extraction.grounding import has_phrase
from extraction.people import mention_at
from memories.text import CAPTION_MAX_LENGTH, states_a_fact
from memories.values import lacks_value


def caption_kept(caption: str, *, verb: bool = True) -> bool:
    """Whether a caption states a durable fact with its value, short enough to store (`verb`:
    whether its verb is still to be found)."""
    return not (
        len(caption) > CAPTION_MAX_LENGTH
        or (verb and not states_a_fact(caption))
        or lacks_value(caption)
        or has_phrase(caption, "not_durable")
        or has_phrase(caption, "passing_states")
        or len(words_of(caption)) < 2
        or has_phrase(caption, "vague")
        or _elliptic(caption)
    )


# The verbs that stand for another left out ("hasn't for years", "my partner does"): after the
# subject with no value of their own, the caption says nothing.
_STAND_INS = frozenset({"has", "have", "had", "hasn't", "haven't", "hadn't", "does", "do", "did",
                        "doesn't", "don't", "didn't", "can", "can't", "will", "won't", "would",
                        "wouldn't"})  # fmt: skip


def _elliptic(caption: str) -> bool:
    """Whether a caption is a mention of someone and no more ("User's 2 kids"), or an
    auxiliary left without its verb or value ("User hasn't for years", "User's partner does")."""
    words = words_of(caption)
    at = 1
    if words[:1] == ["user's"]:
        mention = mention_at(f"my {' '.join(words[1:])}", 0)
        if mention is not None and mention.end == len(words):
            return True
        at = mention.end if mention is not None else 1
    rest = words[at:]
    return bool(rest) and rest[0] in _STAND_INS and (len(rest) == 1 or rest[1] in _NO_VERBS)


# What cannot be the verb an auxiliary takes: a preposition or a break ("like" is a verb too).
_NO_VERBS = (lexicon("value_breaks") | lexicon("clause_breaks")) - {"like"}
