"""Precision, recall and F1 of an extractor against hand-labelled conversations.

An extractor is a function messages -> candidates (the offline rules, or any dotted path), or
one that returns an `Extraction` with what it cost: `llm_extractor` is the service's LLM path
(`extraction.pipeline.candidates_extract` with MEMORY_EXTRACTOR=llm: the model, then the
grounding check), against whatever server the settings name.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from django.test.utils import override_settings

from bench.llm import ItemCost, cost_summary
from core.lexicon import lexicon
from extraction.candidates import Candidate
from integrations.llm import LLMError, LLMUsage

DEFAULT_LABELLED_SET = Path(__file__).resolve().parent / "data" / "extraction_labelled.jsonl"
MATCH_THRESHOLD = 0.6
SPLITS = ("dev", "heldout", "all")


@dataclass
class Extraction:
    """What an extractor returned for one conversation, with its LLM cost and any failure."""

    candidates: Sequence[Candidate]
    usage: LLMUsage = field(default_factory=LLMUsage)
    error: str = ""


Extractor = Callable[[list[dict[str, str]]], Sequence[Candidate] | Extraction]


def llm_extractor(messages: list[dict[str, str]]) -> Extraction:
    """The pipeline's LLM step 3, exactly: `extract_with_llm`, then `candidates_ground`.

    A failed exchange (timeouts, unusable replies after the retries) stores nothing, as the
    service stores nothing for it; its requests and tokens still count."""
    # Imported here: the pipeline pulls in the models, and the module is also read without them.
    from extraction.pipeline import Usage, candidates_extract

    usage = Usage()
    with override_settings(MEMORY_EXTRACTOR="llm"):
        try:
            candidates, _ = candidates_extract(messages, usage)
        except LLMError as exc:
            usage.add_error(exc)
            return Extraction([], usage, f"{type(exc).__name__}: {exc}")
    return Extraction(candidates, usage)


# Words that carry no fact: every caption starts with "User", and articles or auxiliaries differ
# between equally good phrasings. Negations are kept, so "likes" never matches "doesn't like".
_STOP_WORDS = frozenset(
    {
        "user",
        "users",
        "s",
        "a",
        "an",
        "the",
        "is",
        "are",
        "am",
        "was",
        "were",
        "be",
        "been",
        "being",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "with",
        "as",
        "by",
        "from",
        "their",
        "they",
        "them",
        "his",
        "her",
        "its",
        "it",
        "that",
        "this",
        "who",
        "which",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "very",
        "really",
        "also",
        "just",
        # "User is 41" and "User is 41 years old" state the same age.
        "years",
        "year",
        "old",
        "aged",
    }
)
_TOKEN = re.compile(r"[^\W_]+")


@cache
def _canonical() -> dict[str, str]:
    """Each word of the extractor's same-words lexicon (kids/children, mum/mother,
    favourite/favorite) to the first of its group: the wording a model picks is not a miss."""
    return {word: group.split()[0] for group in lexicon("same_words") for word in group.split()}


def caption_tokens(caption: str) -> frozenset[str]:
    """The content words of a caption, lower-cased, with negations as the token "not"."""
    text = caption.lower().replace("\u2019", "'")
    text = re.sub(r"n't\b", " not", text).replace("cannot", "can not")
    canonical = _canonical()
    return frozenset(
        canonical.get(token, token) for token in _TOKEN.findall(text) if token not in _STOP_WORDS
    )


def token_f1(predicted: str, expected: str) -> float:
    """F1 of the two captions' content-word sets: 1.0 for the same words, 0.0 for none shared."""
    left, right = caption_tokens(predicted), caption_tokens(expected)
    shared = len(left & right)
    if not shared:
        return 0.0
    precision, recall = shared / len(left), shared / len(right)
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class ConversationResult:
    """How one labelled conversation fared: what matched, what was wrong, what was missed."""

    id: str
    matched: list[tuple[str, str]]
    spurious: list[str]
    missed: list[str]
    category_agreements: int
    split: str = ""
    kind: str = ""
    cost: ItemCost = field(default_factory=ItemCost)
    error: str = ""

    def as_item(self) -> dict[str, Any]:
        """The per-conversation figures of the JSON output."""
        item: dict[str, Any] = {"id": self.id}
        if self.split:
            item["split"] = self.split
        if self.kind:
            item["kind"] = self.kind
        item.update(
            expected=len(self.matched) + len(self.missed),
            predicted=len(self.matched) + len(self.spurious),
            true_positives=len(self.matched),
            **self.cost.as_dict(),
        )
        if self.error:
            item["error"] = self.error
        return item


@dataclass(frozen=True)
class EvaluationReport:
    """Micro-averaged scores over a labelled set, with the per-conversation detail behind them."""

    conversations: int
    expected: int
    predicted: int
    true_positives: int
    false_positives: int
    false_negatives: int
    precision: float
    recall: float
    f1: float
    category_accuracy: float
    results: list[ConversationResult] = field(default_factory=list)
    # Conversations labelled with no fact (questions, hypotheticals, injections...) and how
    # many of them the extractor stored something from, by kind when rows have one.
    no_fact: dict[str, Any] = field(default_factory=dict)
    # LLM calls, tokens and seconds: totals and means per conversation.
    usage: dict[str, Any] = field(default_factory=dict)
    # Conversations whose extraction failed (the LLM was unavailable or unusable).
    failed: int = 0

    def as_dict(self, *, details: bool = False, items: bool = False) -> dict[str, Any]:
        """The report as JSON-ready data, optionally with every conversation's figures
        (`items`) and errors (`details`)."""
        data = asdict(self)
        data.pop("results")
        if items:
            data["items"] = [result.as_item() for result in self.results]
        if details:
            data["errors"] = [
                {"id": result.id, "spurious": result.spurious, "missed": result.missed}
                for result in self.results
                if result.spurious or result.missed
            ]
        return data


def match_captions(
    predicted: Sequence[str], expected: Sequence[str], threshold: float = MATCH_THRESHOLD
) -> list[tuple[int, int]]:
    """Pair predictions with labels, best overlap first, each label and prediction used once."""
    scored = sorted(
        (
            (token_f1(guess, label), guess_index, label_index)
            for guess_index, guess in enumerate(predicted)
            for label_index, label in enumerate(expected)
        ),
        reverse=True,
    )
    used_guesses: set[int] = set()
    used_labels: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for score, guess_index, label_index in scored:
        if score < threshold:
            break
        if guess_index in used_guesses or label_index in used_labels:
            continue
        used_guesses.add(guess_index)
        used_labels.add(label_index)
        pairs.append((guess_index, label_index))
    return sorted(pairs)


def rows_select(
    rows: Iterable[dict[str, Any]],
    *,
    split: str = "all",
    kinds: Iterable[str] = (),
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """The rows of one split ("dev", "heldout"; "all" takes rows without one too) and of the
    given kinds (none: every kind), the first `limit` of them."""
    kinds = frozenset(kinds)
    selected = [
        row
        for row in rows
        if (split == "all" or row.get("split") == split) and (not kinds or row.get("kind") in kinds)
    ]
    return selected if limit is None else selected[:limit]


def load_labelled(path: Path | str = DEFAULT_LABELLED_SET) -> list[dict[str, Any]]:
    """The labelled conversations of a JSON-lines file, one object per non-blank line."""
    rows = []
    with Path(path).open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not {"id", "conversation", "expected"} <= row.keys():
                raise ValueError(f"{path}:{number}: needs id, conversation and expected")
            rows.append(row)
    return rows


def _divide(numerator: int, denominator: int) -> float:
    """A ratio that is perfect when there was nothing to get right."""
    return numerator / denominator if denominator else 1.0


def evaluate_rows(extract: Extractor, rows: Iterable[dict[str, Any]]) -> EvaluationReport:
    """Score an extractor against already loaded labelled conversations."""
    results: list[ConversationResult] = []
    for row in rows:
        started = time.perf_counter()
        extraction = extract(row["conversation"])
        seconds = time.perf_counter() - started
        if not isinstance(extraction, Extraction):
            extraction = Extraction(extraction)
        cost = ItemCost(seconds=seconds)
        cost.add_usage(extraction.usage)
        candidates = list(extraction.candidates)
        guesses = [candidate.caption for candidate in candidates]
        labels = [label["caption"] for label in row["expected"]]
        pairs = match_captions(guesses, labels)
        matched_guesses = {guess for guess, _ in pairs}
        matched_labels = {label for _, label in pairs}
        agreements = sum(
            1
            for guess, label in pairs
            if candidates[guess].category == row["expected"][label].get("category")
        )
        results.append(
            ConversationResult(
                id=str(row["id"]),
                matched=[(guesses[guess], labels[label]) for guess, label in pairs],
                spurious=[g for index, g in enumerate(guesses) if index not in matched_guesses],
                missed=[m for index, m in enumerate(labels) if index not in matched_labels],
                category_agreements=agreements,
                split=str(row.get("split") or ""),
                kind=str(row.get("kind") or ""),
                cost=cost,
                error=extraction.error,
            )
        )
    true_positives = sum(len(result.matched) for result in results)
    false_positives = sum(len(result.spurious) for result in results)
    false_negatives = sum(len(result.missed) for result in results)
    precision = _divide(true_positives, true_positives + false_positives)
    recall = _divide(true_positives, true_positives + false_negatives)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return EvaluationReport(
        conversations=len(results),
        expected=true_positives + false_negatives,
        predicted=true_positives + false_positives,
        true_positives=true_positives,
        false_positives=false_positives,
        false_negatives=false_negatives,
        precision=round(precision, 4),
        recall=round(recall, 4),
        f1=round(f1, 4),
        category_accuracy=round(
            _divide(sum(result.category_agreements for result in results), true_positives), 4
        ),
        results=results,
        no_fact=_no_fact(results),
        usage=cost_summary(result.cost for result in results),
        failed=sum(1 for result in results if result.error),
    )


def _no_fact(results: list[ConversationResult]) -> dict[str, Any]:
    """Of the conversations labelled with no fact, how many the extractor stored from."""
    empty = [r for r in results if not r.matched and not r.missed]
    stored = [r for r in empty if r.spurious]
    figures: dict[str, Any] = {
        "conversations": len(empty),
        "stored": len(stored),
        "memories": sum(len(r.spurious) for r in stored),
    }
    kinds = Counter(r.kind for r in empty if r.kind)
    if kinds:
        stored_kinds = Counter(r.kind for r in stored if r.kind)
        figures["by_kind"] = {
            kind: {"conversations": kinds[kind], "stored": stored_kinds[kind]}
            for kind in sorted(kinds)
        }
    return figures


def evaluate_extractor(
    extract: Extractor, path: Path | str = DEFAULT_LABELLED_SET
) -> EvaluationReport:
    """Micro precision, recall and F1 of an extractor over a labelled JSON-lines file."""
    return evaluate_rows(extract, load_labelled(path))
