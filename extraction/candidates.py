"""What every extractor returns: candidate memories, and the text normalisation they share."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

CATEGORIES = ("preference", "personal", "technical", "project", "other")

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!?;,]+$")


@dataclass(frozen=True)
class Candidate:
    """A fact an extractor proposes to remember about the end user."""

    caption: str
    full_text: str
    category: str = "other"
    confidence: float = 0.8


def normalise_text(text: str) -> str:
    """Lower-case, collapse whitespace and drop trailing punctuation."""
    return _TRAILING.sub("", _SPACE.sub(" ", text).strip().lower())


def content_hash(text: str) -> str:
    """SHA-256 of the normalised text: equal for facts that differ only in case or spacing."""
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()


def embedding_text(caption: str, full_text: str) -> str:
    """The text a memory is embedded from: its full text, led by the caption if that adds words."""
    if normalise_text(caption) in normalise_text(full_text):
        return full_text
    return f"{caption}. {full_text}"
