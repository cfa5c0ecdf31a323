"""Facts that shape answers: a kind of fact matched to the requests it should change.

"Recommend some earrings for a wedding" needs "User is allergic to nickel"; the two share no
word and sit far apart as vectors. `shaping.toml` pairs kinds of facts (prototype memories:
an allergy to a material, a sense lost, a pet in the home) with prototype requests whose
answer such a fact changes (jewellery, smoke alarms, air fresheners). A memory is of a kind as
much as its vector is close to the kind's nearest prototype fact (at index build); a prompt
needs the kind as much as its vector is close to the kind's nearest prototype request. Both
are cosines, so a new wording of either side carries. The kinds join the life domains of
`recall.domains` as further columns: `need` takes the best product, as for a domain.

The prototypes are embedded once per process, and kept on disk (`PROTOTYPE_DIR`) so that a
new worker reads them rather than embedding a few hundred texts on its first request.
"""

from __future__ import annotations

import hashlib
import threading
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
from django.conf import settings

from integrations.embeddings import HASHING_MODEL_ID, current_model_id, embed_texts

SHAPING_FILE = Path(__file__).resolve().parent / "shaping.toml"


@dataclass(frozen=True)
class Kind:
    """A kind of fact and the requests whose answer it shapes."""

    name: str
    facts: tuple[str, ...]
    requests: tuple[str, ...]


def _kinds() -> tuple[Kind, ...]:
    table = tomllib.loads(SHAPING_FILE.read_text(encoding="utf-8"))
    kinds = tuple(
        Kind(name, tuple(entry["facts"]), tuple(entry["requests"])) for name, entry in table.items()
    )
    empty = [kind.name for kind in kinds if not (kind.facts and kind.requests)]
    if empty:
        raise ValueError(f"shaping.toml: kinds without facts or requests {empty}")
    return kinds


KINDS = _kinds()
NAMES = tuple(kind.name for kind in KINDS)
FINGERPRINT = hashlib.sha256(repr(KINDS).encode()).hexdigest()[:12]
# How much closer a memory is to a kind's nearest prototype fact than to the median kind's,
# from which it starts to be of the kind, and where it is fully. Above the median, not a
# plain cosine: MiniLM puts any two "User ..." sentences 0.4-0.5 apart, so "User's name is
# Priya" was a little of every kind; "User is allergic to nickel" is 0.6 from "User is
# allergic to latex" and about 0.4 from the median kind's fact.
FACT_MARGIN = (0.10, 0.30)
# Cosine of a prompt to a kind's nearest prototype request: two requests of one kind in new
# words sit near 0.5 to 0.7 (MiniLM scale).
REQUEST_COSINE = (0.35, 0.60)
# Where the embedded prototypes are kept, under the data directory, per model and fingerprint.
PROTOTYPE_DIR = "prototypes"

_lock = threading.Lock()


def _stacked(side: str) -> tuple[list[str], np.ndarray]:
    """Every kind's texts of one side in one list, and where each kind's start."""
    groups = [getattr(kind, side) for kind in KINDS]
    starts = np.cumsum([0, *(len(group) for group in groups[:-1])])
    return [text for group in groups for text in group], starts


def _embedded(model_id: str, side: str, texts: list[str]) -> np.ndarray:
    """The side's prototypes embedded, read from disk when an earlier process kept them."""
    path = Path(settings.DATA_DIR) / PROTOTYPE_DIR / f"{model_id}-{side}-{FINGERPRINT}.npy"
    try:
        vectors = np.load(path)
        if vectors.shape[0] == len(texts):
            return vectors
    except (OSError, ValueError):
        pass  # not kept yet, or unreadable: embed again
    vectors = embed_texts(texts)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{threading.get_ident()}.tmp.npy")
        np.save(partial, vectors)
        partial.replace(path)  # atomic: workers may race
    except OSError:
        pass  # a read-only data directory costs an embedding per process, nothing more
    return vectors


@cache
def _prototypes(model_id: str, side: str) -> tuple[np.ndarray, np.ndarray]:
    texts, starts = _stacked(side)
    return _embedded(model_id, side, texts), starts


def _nearest(
    vectors: np.ndarray, model_id: str, side: str, scale: tuple[float, float]
) -> np.ndarray | None:
    """(n, K): each row's cosine to each kind's nearest prototype of `side` (for facts, above
    the row's median kind), scaled to [0, 1]; None when the vectors are not of the
    prototypes' model."""
    if model_id != current_model_id() or model_id == HASHING_MODEL_ID:
        # The prototypes are embedded by the configured model only; the hashing embedder's
        # cosines count shared words, not kinds of facts.
        return None
    with _lock:
        prototypes, starts = _prototypes(model_id, side)
    if vectors.shape[1] != prototypes.shape[1]:
        return None
    nearest = np.maximum.reduceat(vectors @ prototypes.T, starts, axis=1)
    if side == "facts":
        nearest = nearest - np.median(nearest, axis=1, keepdims=True)
    low, high = scale
    return np.clip((nearest - low) / (high - low), 0.0, 1.0).astype(np.float32)


def fact_kinds(vectors: np.ndarray, model_id: str) -> np.ndarray:
    """How much each memory is of each kind, (n, K) in [0, 1]; zeros for another model's
    vectors (the hashing embedder's cosines count shared words, not kinds)."""
    if not vectors.shape[0]:
        return np.zeros((0, len(KINDS)), dtype=np.float32)
    found = _nearest(vectors, model_id, "facts", FACT_MARGIN)
    return np.zeros((vectors.shape[0], len(KINDS)), np.float32) if found is None else found


def request_kinds(vector: np.ndarray, model_id: str) -> np.ndarray | None:
    """How much a prompt needs each kind of fact, (K,) in [0, 1]; None for another model."""
    found = _nearest(vector[None, :], model_id, "requests", REQUEST_COSINE)
    return None if found is None else found[0]
