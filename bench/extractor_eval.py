"""Precision, recall and F1 of an extractor against hand-labelled conversations."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from extraction.candidates import Candidate

DEFAULT_LABELLED_SET = Path(__file__).resolve().parent / "data" / "extraction_labelled.jsonl"
MATCH_THRESHOLD = 0.6

Extractor = Callable[[list[dict[str, str]]], Sequence[Candidate]]

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
    }
)
_TOKEN = re.compile(r"[a-z0-9]+")


def caption_tokens(caption: str) -> frozenset[str]:
    """The content words of a caption, lower-cased, with negations as the token "not"."""
    text = caption.lower().replace("\u2019", "'")
    text = re.sub(r"n't\b", " not", text).replace("cannot", "can not")
    return frozenset(token for token in _TOKEN.findall(text) if token not in _STOP_WORDS)


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

    def as_dict(self, *, details: bool = False) -> dict[str, Any]:
        """The report as JSON-ready data, optionally with every conversation's errors."""
        data = asdict(self)
        data.pop("results")
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
        candidates = list(extract(row["conversation"]))
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
    )


def evaluate_extractor(
    extract: Extractor, path: Path | str = DEFAULT_LABELLED_SET
) -> EvaluationReport:
    """Micro precision, recall and F1 of an extractor over a labelled JSON-lines file."""
    return evaluate_rows(extract, load_labelled(path))
