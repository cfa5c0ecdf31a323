"""What a resolution would lose: the words of the memories it drops that the kept text lacks.

*Keep new* supersedes the existing memory and *Merge* replaces it with the box's text, so a
detail only the old memory held ("husband and daughter Inês") would vanish without a word.
The conflict page lists those words before the operator clicks. Words, not meaning: a cheap,
predictable check an operator can verify at a glance, run again in the page's script
(conflict.html) as the merge text is edited, so both follow the same rules:

- a word is a run of letters and digits, with an inner apostrophe ("user's");
- compared without case or accents, without a possessive "'s" or a plural "s";
- function words and "user" never count; negations ("not", "never") do, because dropping one
  reverses a fact.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")  # an apostrophe, straight or curly
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "being",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "each",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "now",
        "of",
        "on",
        "or",
        "our",
        "ours",
        "she",
        "so",
        "some",
        "still",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "too",
        "us",
        "user",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
    ]
)


def _plain(word: str) -> str:
    """The word without case, accents or a possessive: what the stopwords are written as."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return re.sub(r"['\u2019]s$", "", plain)


def _key(plain: str) -> str:
    """The form two words are compared by: a plural "s" off ("daughters" is "daughter")."""
    if len(plain) > 3 and plain.endswith("s") and not plain.endswith("ss"):
        return plain[:-1]
    return plain


def words_lost(kept: str, dropped: Iterable[str]) -> list[str]:
    """The words of the `dropped` texts that `kept` does not contain, each once, in the order
    they first appear and as first written; function words left out."""
    present = {_key(_plain(word)) for word in WORD.findall(unicodedata.normalize("NFC", kept))}
    lost: list[str] = []
    seen: set[str] = set()
    for text in dropped:
        for word in WORD.findall(unicodedata.normalize("NFC", text)):
            plain = _plain(word)
            key = _key(plain)
            if plain in STOPWORDS or key in present or key in seen:
                continue
            seen.add(key)
            lost.append(word)
    return lost


def memory_text(caption: str, full_text: str) -> str:
    """A memory's words: its caption and its text, each once (often they are the same)."""
    return caption if caption == full_text else f"{caption}\n{full_text}"
