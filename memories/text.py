"""What a memory's text is: its length limits, its normalised form, its hash, what gets indexed.

Defined once here; the models' columns, the extractors, the pipeline, the admin and recall all
use these, so a fact is cut, compared and searched the same way everywhere.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

CAPTION_MAX_LENGTH = 100
FULL_TEXT_MAX_LENGTH = 500
USE_WHEN_MAX_LENGTH = 200
# A memory's evidence: the clause the user said it in (or an agent's note), redacted.
QUOTE_MAX_LENGTH = 500

_SPACE = re.compile(r"\s+")
_TRAILING = re.compile(r"[\s.!?;,]+$")

# A terminal's escape sequences, whole ("\x1b[31m", "\x1b]0;title\x07"): removing only the
# ESC byte would leave "[31m" in the text. CSI (ESC [ or its one-byte form U+009B), OSC (ESC ]
# or U+009D, up to BEL or ST), and the two-byte escapes.
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c]{0,512}(?:\x07|\x1b\\|\x9c)"
    r"|\x1b[@-Z\\-_]"
)
ZWNJ, ZWJ = "\u200c", "\u200d"
# A skin tone or the emoji presentation selector may come between an emoji and its joiner.
_EMOJI_MODIFIERS = frozenset("\ufe0f") | {chr(c) for c in range(0x1F3FB, 0x1F400)}
_BLACK_FLAG = "\U0001f3f4"  # a subdivision flag is U+1F3F4 and then tag characters
_TAGS = range(0xE0020, 0xE0080)


def normalise_text(text: str) -> str:
    """Lower-case, collapse whitespace and drop trailing punctuation."""
    return _TRAILING.sub("", _SPACE.sub(" ", text).strip().lower())


def text_clean(text: str, *, lines: bool = True) -> str:
    """The text as it may be stored: no control characters or terminal escape sequences, no
    invisible format characters (bidirectional overrides and marks, zero-width spaces, word
    joiners, byte-order marks, tag characters), so "Ber\\u200blin" is "Berlin" and what is
    stored reads as it shows. Kept: every script, combining marks, emoji with their joiner
    sequences (a family, a flag), the joiners that scripts such as Persian and Devanagari
    spell with, and line breaks when `lines` (else they are spaces)."""
    text = _ESCAPES.sub("", text).replace("\r\n", "\n")
    kept: list[str] = []
    for at, char in enumerate(text):
        kind = unicodedata.category(char)
        if char in "\r\n\u2028\u2029":
            kept.append("\n" if lines else " ")
        elif char == "\t":
            kept.append(" ")
        elif kind in ("Cc", "Cs") or (kind == "Cf" and not _joins(text, at)):
            continue
        else:
            kept.append(char)
    return "".join(kept)


def _joins(text: str, at: int) -> bool:
    """Whether the format character at `at` is part of what it stands between: a joiner
    inside an emoji sequence or a word of a script that needs it, or a flag's tag."""
    char = text[at]
    if ord(char) in _TAGS:
        start = at
        while start > 0 and ord(text[start - 1]) in _TAGS:
            start -= 1
        return start > 0 and text[start - 1] == _BLACK_FLAG
    if char not in (ZWNJ, ZWJ) or at == 0 or at == len(text) - 1:
        return False
    before, after = text[at - 1], text[at + 1]
    if char == ZWJ and _emoji(before) and _emoji(after):
        return True
    # Letters of scripts before Hebrew (Latin, Greek, Cyrillic...) never need a joiner.
    return all(unicodedata.category(c)[0] in "LM" and ord(c) >= 0x0590 for c in (before, after))


def _emoji(char: str) -> bool:
    return unicodedata.category(char) == "So" or char in _EMOJI_MODIFIERS


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
    r"spent|set|put|let|cut|hit|taught|thought|brought|caught|fought|sought|upgraded|paid|"
    r"laid|held|stole|tore|wore|sang|swam|slept|heard|stood|"
    # Past tenses of a stem shorter than three letters ("died", "fled").
    r"died|dyed|lied|tied|fled|fed|led|bred|shed|sped|used|"
    r"[a-z]{3,}(?:s|ed))\b(?!')"
)


def states_a_fact(text: str) -> bool:
    """Whether a caption says something: a verb after its subject ("User lives in ..."),
    not a bare topic ("User's dog's name", "User Berlin")."""
    body = re.sub(r"^(?:the\s+)?user(?:'s)?\s+", "", text.strip(), flags=re.IGNORECASE)
    body = body.lower().replace("\u2019", "'")
    body = re.sub(r"\b\w+'s\b", " ", body)  # possessives are nouns, not verbs
    return bool(body) and bool(_PREDICATE.search(body))


# A caption about the user or one of their people opens with the user ("User ...", "User's
# sister ...", "The user ..."): what the grounding check keeps (`extraction.grounding`) and
# the store's audit expects of every stored caption (`memories.hygiene`).
_NAMES_THE_USER = re.compile(r"^(?:the\s+)?user(?:'s|\u2019s)?\b", re.IGNORECASE)


def names_the_user(caption: str) -> bool:
    """Whether a caption opens with the user, as every fact about them or their people does
    ("User is vegan", "User's sister is a nurse"); "The capital of France is Paris" does not."""
    return bool(_NAMES_THE_USER.match(caption.strip()))
