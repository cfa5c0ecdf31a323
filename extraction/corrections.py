"""Self-corrections across messages: a message that says the user was wrong before ("ok i
misspoke the other day, im actually right-handed", "small correction to what I told you
before, ...") corrects what it goes on to state, whichever of its clauses holds the cue.

The cue is a closed class (`core/lexicons/change_cues.txt`, `corrects:` lines); the clause that
only holds it ("User misspoke the other day") states no fact of its own and is not stored.
What a correction changes is decided with the other cues (`extraction.updates`): the linked
fact nearest in wording.
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon
from extraction.cues import cues_of
from extraction.updates import content_lemmas, lemma


def correcting(text: str) -> bool:
    """Whether a clause says that what the user said before was wrong."""
    return "corrects" in cues_of(text)


@cache
def _references() -> frozenset[str]:
    return frozenset(lemma(word) for entry in lexicon("correction_refs") for word in entry.split())


def only_correcting(caption: str, said: str) -> bool:
    """Whether a caption, read from the clause `said`, says only that the user was wrong
    before ("User misspoke the other day"), and nothing of what is so instead."""
    return correcting(said) and not set(content_lemmas(caption)) - _references()
