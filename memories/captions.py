"""Whether a stored caption reads as garbled (issue 30): the checks the store's audit
(`memories.hygiene`) runs on every active memory and the extractor's bench
(`bench/caption_faults.py`) on what an extractor writes.

Each kind is judged from closed word lists (`memories/caption_faults.toml`, and the core
lexicons `first_person` and `verb_forms`), never from a pattern per sentence:

- `first_person`: a first-person word after "User" ("User says my sister ...", "User ... I").
  Only a lower-case word, or "I": "US" is a country.
- `pronoun`: a third-person pronoun run together with its verb ("shes", "theyre", "he's"):
  the reader did not resolve it to the person ("User is a shes vegan").
- `cut_hyphen`: a part of a hyphenated word of the user's messages standing alone in the
  caption ("a full-time carer" -> "User is a full"). The caption may write the parts apart
  ("full time"), and a part the messages also use on its own is not judged; a word with a
  digit ("34-year-old") is not judged either. Without the messages it is not judged.
- `unbalanced`: brackets or double quotes that do not pair up (emoticons set aside).
- `broken_verb`: a form that is no word ("ares", "ises"), a word that is no verb with a
  third-person "s" ("boths"), a word that never follows itself ("has has"), or a
  first-person form straight after "User" ("User have", "User dont").
- `debris`: the caption ends on chat debris ("tho", "lol", "too"), an emoticon or an emoji.
- `dangling`: the caption ends on a function word, its value cut off ("User lives in"),
  unless it is an auxiliary closing an ellipsis after "and"/"but" ("... and never will be").
"""

from __future__ import annotations

import itertools
import tomllib
import unicodedata
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from core.lexicon import lexicon, pairs
from core.words import words_of

VOCABULARY = Path(__file__).resolve().parent / "caption_faults.toml"
GARBLE_KINDS = (
    "first_person",
    "pronoun",
    "cut_hyphen",
    "unbalanced",
    "broken_verb",
    "debris",
    "dangling",
)
USER = "user"
# Sentence punctuation a caption may end with; an emoticon's is not stripped.
_FINAL_STOPS = ".!?,;"
_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"), ("\u201c", "\u201d"))


@cache
def _vocabulary() -> dict[str, frozenset[str]]:
    with VOCABULARY.open("rb") as handle:
        data = tomllib.load(handle)
    return {name: frozenset(word.lower() for word in words) for name, words in data.items()}


def _words(name: str) -> frozenset[str]:
    return _vocabulary()[name]


def _chunks(caption: str) -> list[str]:
    """The caption split at spaces, emoticons left out (their brackets are not brackets)."""
    return [chunk for chunk in caption.split() if chunk.lower() not in _words("emoticons")]


def _first_person(caption: str) -> bool:
    for chunk in caption.split()[1:]:
        word = chunk.strip("\"'()[]{}.,;:!?")
        lower = word.lower().replace("\u2019", "'")
        if lower in lexicon("first_person") and (word.islower() or word.split("'")[0] == "I"):
            return True
    return False


def _cut_hyphen(caption: str, messages: Sequence[str]) -> bool:
    """Whether a part of a hyphenated word of the messages stands alone in the caption where
    the whole word stood: beside a word that was next to it in the message ("a full-time
    carer" -> "a full", "full carer"), or last in the caption ("colour-blind" -> "User is
    colour")."""
    words = words_of(caption)
    spaced = f" {' '.join(words)} "
    adjacent = set(itertools.pairwise(words))
    for message in messages:
        message_words = words_of(message)
        alone = {word for word in message_words if "-" not in word}
        for at, word in enumerate(message_words):
            parts = [part for part in word.split("-") if part]
            if len(parts) < 2 or any(character.isdigit() for character in word):
                continue
            if word in words or f" {' '.join(parts)} " in spaced:
                continue
            before = message_words[at - 1] if at else None
            after = message_words[at + 1] if at + 1 < len(message_words) else None
            for part in parts:
                if part in alone or part not in words:
                    continue
                if words[-1] == part or (before, part) in adjacent or (part, after) in adjacent:
                    return True
    return False


def _unbalanced(caption: str) -> bool:
    text = " ".join(_chunks(caption))
    for opening, closing in _BRACKETS:
        depth = 0
        for character in text:
            depth += (character == opening) - (character == closing)
            if depth < 0:
                return True
        if depth:
            return True
    return text.count('"') % 2 == 1


def _broken_verb(caption: str) -> bool:
    words = words_of(caption)
    if any(word in _words("non_words") or _glued_s(word) for word in words):
        return True
    if any(a == b and a in _words("never_doubled") for a, b in itertools.pairwise(words)):
        return True
    forms = pairs("verb_forms")
    return len(words) > 1 and words[0] == USER and words[1] in forms and forms[words[1]] != words[1]


def _glued_s(word: str) -> bool:
    """A word that is no verb with a third-person "s" on it ("boths", "alsos")."""
    return any(
        word.endswith(ending) and word[: -len(ending)] in _words("not_verbs")
        for ending in ("s", "es")
    )


def _pronoun(caption: str) -> bool:
    return any(word in _words("pronouns") for word in words_of(caption))


def _last_chunk(caption: str) -> str:
    chunks = caption.split()
    if not chunks:
        return ""
    last = chunks[-1]
    stripped = last.rstrip(_FINAL_STOPS)
    return last if not stripped or last.lower() in _words("emoticons") else stripped


def _debris(caption: str) -> bool:
    last = _last_chunk(caption).lower()
    if not last:
        return False
    if last in _words("emoticons") or any(last.endswith(e) for e in _words("emoticons")):
        return True
    if unicodedata.category(last[-1]) in {"So", "Sk"} or last[-1] == "\ufe0f":
        return True
    words = words_of(last)
    return bool(words) and words[-1] in _words("debris")


def _dangling(caption: str) -> bool:
    words = words_of(caption)
    if len(words) < 2 or words[-1] not in _words("dangling"):
        return False
    # An ellipsis after a whole statement ("... and never will be") has its verb already.
    return not (
        words[-1] in _words("elliptic")
        and any(word in _words("clause_joins") for word in words[2:-1])
    )


def garbles(caption: str, messages: Sequence[str] = ()) -> list[str]:
    """The kinds of garble in one caption (`GARBLE_KINDS`), given the user's messages (a cut
    hyphen is judged only against them)."""
    found = {
        "first_person": _first_person(caption),
        "pronoun": _pronoun(caption),
        "cut_hyphen": _cut_hyphen(caption, messages),
        "unbalanced": _unbalanced(caption),
        "broken_verb": _broken_verb(caption),
        "debris": _debris(caption),
        "dangling": _dangling(caption),
    }
    return [kind for kind in GARBLE_KINDS if found[kind]]
