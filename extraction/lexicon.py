"""Vocabulary kept as data: one entry per line in `extraction/lexicons/<name>.txt`.

Closed classes (the people a fact can be about, ...) live in these files, not in regex literals
spread over modules, so that a word is added in one place and every reader sees it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

LEXICONS = Path(__file__).resolve().parent / "lexicons"


@cache
def lexicon(name: str) -> frozenset[str]:
    """The entries of one lexicon file, lower-cased; blank lines and `#` comments skipped."""
    entries = set()
    for line in (LEXICONS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip().lower()
        if entry:
            entries.add(entry)
    return frozenset(entries)
