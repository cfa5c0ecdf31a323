"""Building blocks of the decide step's tests: unit vectors, known memories, candidates."""

from __future__ import annotations

import numpy as np

from extraction.candidates import Candidate
from extraction.decisions import KnownMemory
from memories.text import content_hash


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def known(ref: str, text: str, vector: np.ndarray, *, status: str = "active") -> KnownMemory:
    return KnownMemory(
        ref=ref,
        caption=text,
        full_text=text,
        category="personal",
        status=status,
        content_hash=content_hash(text),
        vector=vector,
    )


def candidate(text: str, category: str = "personal") -> Candidate:
    return Candidate(caption=text, full_text=text, category=category)
