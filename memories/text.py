"""What a memory's text is: its length limits, its normalised form, its hash, what gets indexed.

Defined once here; the models' columns, the extractors, the pipeline, the admin and recall all
use these, so a fact is cut, compared and searched the same way everywhere.
"""

from __future__ import annotations

import hashlib
import re

CAPTION_MAX_LENGTH = 100
FULL_TEXT_MAX_LENGTH = 500

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!?;,]+$")


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
