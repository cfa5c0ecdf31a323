"""What a memory's text is: its length limits, its normalised form, its hash, what gets indexed.

Defined once here; the models' columns, the extractors, the pipeline, the admin and recall all
use these, so a fact is cut, compared and searched the same way everywhere.
"""

from __future__ import annotations

import hashlib
import re

CAPTION_MAX_LENGTH = 100
FULL_TEXT_MAX_LENGTH = 500
USE_WHEN_MAX_LENGTH = 200

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!?;,]+$")


def normalise_text(text: str) -> str:
    """Lower-case, collapse whitespace and drop trailing punctuation."""
    return _TRAILING.sub("", _SPACE.sub(" ", text).strip().lower())


def content_hash(text: str) -> str:
    """SHA-256 of the normalised text: equal for facts that differ only in case or spacing."""
    return hashlib.sha256(normalise_text(text).encode("utf-8")).hexdigest()


def use_when_clean(hint: str) -> str:
    """A use-when hint on one line, cut to its limit; "" for a placeholder ("...", "string")
    that names no situation, which small models echo from a prompt's format."""
    hint = re.sub(r"\s+", " ", hint).strip()[:USE_WHEN_MAX_LENGTH]
    if not re.search(r"[^\W\d_]{3,}", hint) or hint.lower() in {"string", "use_when"}:
        return ""
    return hint


def embedding_text(caption: str, full_text: str, use_when: str = "") -> str:
    """The text a memory is embedded from: its full text, led by the caption if that adds words,
    and followed by the situations where it matters, if any."""
    text = (
        full_text
        if normalise_text(caption) in normalise_text(full_text)
        else (f"{caption}. {full_text}")
    )
    return f"{text} Matters for: {use_when}" if use_when else text


# A verb after the subject: what makes "User lives in Berlin" a fact and "User's dog's name" a
# topic. Irregular past tenses are listed; regular ones end in -ed, present ones in -s.
_PREDICATE = re.compile(
    r"\b(?:(?:is|are|was|were|do|does|did|has|have|had|ca|wo|could|would|should)n't|cannot|"
    r"never|no longer|is|are|was|were|am|be|been|has|have|had|does|did|do|can|could|will|"
    r"would|should|"
    r"must|may|might|quit|got|gave|took|went|came|began|became|broke|split|left|ran|made|met|"
    r"sold|bought|grew|fell|won|lost|found|kept|wrote|drove|chose|swore|saw|said|told|felt|"
    r"spent|set|put|let|cut|hit|taught|thought|brought|caught|fought|sought|upgraded|"
    r"[a-z]{3,}(?:s|ed))\b(?!')"
)


def states_a_fact(text: str) -> bool:
    """Whether a caption says something: a verb after its subject ("User lives in ..."),
    not a bare topic ("User's dog's name", "User Berlin")."""
    body = re.sub(r"^(?:the\s+)?user(?:'s)?\s+", "", text.strip(), flags=re.IGNORECASE)
    body = body.lower().replace("\u2019", "'")
    body = re.sub(r"\b\w+'s\b", " ", body)  # possessives are nouns, not verbs
    return bool(body) and bool(_PREDICATE.search(body))
