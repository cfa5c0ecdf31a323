"""A sentence that opens with what happened before the user's clause: "Since moving to
Denver, I've taken up skiing", "After having my second baby I went part-time", "Ever since I
moved to Oslo I've been cycling", "Since my surgery in May I can't run".

The reader reads a clause from its subject, so the fronted part was lost, and with no comma
after it the whole sentence was. The fronted part states a fact of its own, which is put as a
sentence of its own before the rest (`fronted_events`):
- "since|after <verb>-ing ...": the user did it ("I moved to Denver", "I had my second baby");
- "since|after I ...": the user's own clause as it is;
- "since|after my <thing> <time>": when it was ("my surgery was in May"). Without a time it
  says nothing the reader can state, and only the rest is read.
A time alone ("since June", "since last week") dates the clause it opens, and any
other opening ("since you asked", "after all") leaves the sentence as it was.
"""

from __future__ import annotations

from core.lexicon import lexicon
from core.words import sentences_rewritten, words_of
from extraction.time_phrases import time_tail
from extraction.verbs import past_of_gerund

# The words that open such a sentence, and the most words its fronted part may have.
_OPENINGS = (("ever", "since"), ("since",), ("after",))
_FRONTED_WORDS = 10


def fronted_events(content: str) -> str:
    """The content with each sentence's fronted event put as a sentence of its own."""
    if "since" not in content.lower() and "after" not in content.lower():
        return content
    return sentences_rewritten(content, _sentence)


def _sentence(sentence: str) -> str:
    tokens = sentence.split()
    said = [words_of(token)[0] if words_of(token) else "" for token in tokens]
    opening = next((o for o in _OPENINGS if said[: len(o)] == list(o)), None)
    if opening is None or len(tokens) <= len(opening) + 1:
        return sentence
    start = len(opening)
    end = _fronted_end(tokens, said, start)
    if end is None or time_tail(said[:end]) == 0:
        # "Since June I've been lead volunteer": a time, which dates the clause it opens
        # (`time_phrases.time_fronted` puts it after it); no event of its own.
        return sentence
    fronted, rest = tokens[start:end], tokens[end:]
    fronted[-1] = fronted[-1].rstrip(",;:")
    event = _event(fronted, said[start:end])
    lead = sentence[: len(sentence) - len(sentence.lstrip())]
    stated = " ".join(rest)
    return f"{lead}{event}. {stated} " if event else f"{lead}{stated} "


def _fronted_end(tokens: list[str], said: list[str], start: int) -> int | None:
    """Where the fronted part ends: after its comma, or where the user's clause opens."""
    for at in range(start, min(len(tokens), start + _FRONTED_WORDS)):
        if at > start and said[at] in lexicon("user_subjects"):
            return at
        if at > start and said[at] in lexicon("first_person") and time_tail(said[:at]) == 0:
            return at  # "since last week my work laptop is ...": the clause opens at "my"
        if tokens[at].endswith(",") and at + 1 < len(tokens):
            return at + 1
    return None


def _event(fronted: list[str], said: list[str]) -> str:
    """What the fronted part states as the user's own sentence, or ""."""
    if said[0] in lexicon("user_subjects"):
        return " ".join(fronted)  # "ever since I moved to Oslo"
    past = past_of_gerund(said[0])
    if past is not None:
        return " ".join(["I", past, *fronted[1:]])  # "since moving to Denver"
    if said[0] in {"my", "our"}:
        tail = time_tail(said)
        if 1 < tail < len(said):  # "since my surgery in May"
            return " ".join([*fronted[:tail], "was", *fronted[tail:]])
    return ""
