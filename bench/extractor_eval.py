"""Precision, recall and F1 of an extractor against hand-labelled conversations, and what
goes wrong on the way to the store (issue 30): facts lost, misattributed, garbled.

An extractor is a function messages -> candidates (the offline rules, or any dotted path), or
one that returns an `Extraction` with what it cost: `llm_extractor` is the service's LLM path
(`extraction.pipeline.candidates_extract` with MEMORY_EXTRACTOR=llm: the model, then the
grounding check), against whatever server the settings name.

With a writer (`bench.extractor_write`) each conversation's candidates then go through the real
write path for a fresh user: a fact some candidate stated that no active memory states after
the write is *lost* (merged away, refused, or held for review); misattribution and garbles are
judged on what was stored. Without one they are judged on the candidates.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from django.test.utils import override_settings

from bench.caption_faults import GARBLE_KINDS, about_user, garbles, misattributed, other_fact
from bench.captions import MATCH_THRESHOLD, caption_tokens, match_captions, token_f1
from bench.llm import ItemCost, cost_summary
from extraction.candidates import Candidate
from integrations.llm import LLMError, LLMUsage

DEFAULT_LABELLED_SET = Path(__file__).resolve().parent / "data" / "extraction_labelled.jsonl"
SPLITS = ("dev", "heldout", "all")
# Re-exported: the command and the tests read them from here.
__all__ = ["MATCH_THRESHOLD", "caption_tokens", "match_captions", "token_f1"]

# Why a fact extracted is not recallable after the write: a memory held for review states it,
# the write refused its candidate before deciding (screening, no value), or a decision took it
# as the same fact as another (merged into it, or skipped as said again).
LOST_REASONS = ("merged", "refused", "held")

if TYPE_CHECKING:
    from bench.extractor_write import Writer, Written


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
    # Captions about the user stating another person's fact, and garbled captions with their
    # kinds: of the stored memories when the write ran, else of the candidates.
    misattributed: list[str] = field(default_factory=list)
    garbled: list[tuple[str, list[str]]] = field(default_factory=list)
    # With the write: the active memories, the labels they state, and the facts lost
    # (label, the candidate that stated it, why: one of LOST_REASONS).
    written: bool = False
    stored: list[str] = field(default_factory=list)
    stored_matched: int = 0
    lost: list[tuple[str, str, str]] = field(default_factory=list)
    write_seconds: float = 0.0

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
            misattributed=len(self.misattributed),
            garbled=len(self.garbled),
            **self.cost.as_dict(),
        )
        if self.written:
            item.update(stored=len(self.stored), stored_matched=self.stored_matched,
                        lost=len(self.lost))  # fmt: skip
        if self.error:
            item["error"] = self.error
        return item

    def errors(self) -> dict[str, Any]:
        """What went wrong in this conversation, caption by caption (`-v 2`, `--json -v 2`)."""
        found: dict[str, Any] = {"id": self.id}
        if self.spurious:
            found["spurious"] = self.spurious
        if self.missed:
            found["missed"] = self.missed
        if self.lost:
            found["lost"] = [
                {"label": label, "candidate": candidate, "reason": reason}
                for label, candidate, reason in self.lost
            ]
        if self.misattributed:
            found["misattributed"] = self.misattributed
        if self.garbled:
            found["garbled"] = [{"caption": c, "kinds": kinds} for c, kinds in self.garbled]
        return found


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
    # What misattribution and garbles were judged on: "stored" (the write ran) or "candidates".
    judged: str = "candidates"
    misattributed: int = 0
    # Captions with at least one garble, of how many judged, and the count of each kind.
    garbled: int = 0
    captions_judged: int = 0
    garbles: dict[str, int] = field(default_factory=dict)
    # With the write: facts lost (some candidate stated them, no active memory does after the
    # write), by reason (LOST_REASONS), and the active memories' own recall and precision.
    # None without the write.
    lost: int | None = None
    lost_by: dict[str, int] | None = None
    stored: dict[str, Any] | None = None

    def as_dict(self, *, details: bool = False, items: bool = False) -> dict[str, Any]:
        """The report as JSON-ready data, optionally with every conversation's figures
        (`items`) and errors (`details`)."""
        data = asdict(self)
        data.pop("results")
        if items:
            data["items"] = [result.as_item() for result in self.results]
        if details:
            data["errors"] = [found for result in self.results if len(found := result.errors()) > 1]
        return data


class LabelledRow:
    """One labelled conversation's labels, with who each fact is about."""

    def __init__(self, row: dict[str, Any]) -> None:
        self.labels = [label["caption"] for label in row["expected"]]
        self.others = [other_fact(label) for label in row["expected"]]
        self.messages = [
            message["content"] for message in row["conversation"] if message["role"] == "user"
        ]

    def allowed(self, captions: Sequence[str]) -> Callable[[int, int], bool]:
        """A caption about the user alone never counts as stating another person's fact."""

        def allowed(guess: int, label: int) -> bool:
            other = self.others[label]
            caption = captions[guess]
            return other is None or not (
                about_user(caption) and not caption_tokens(caption) & other.person
            )

        return allowed

    def match(self, captions: Sequence[str]) -> list[tuple[int, int]]:
        return match_captions(captions, self.labels, allowed=self.allowed(captions))

    def faults(
        self, captions: Sequence[str], pairs: list[tuple[int, int]]
    ) -> tuple[list[str], list[tuple[str, list[str]]]]:
        """The misattributed captions (of those that matched no fact about the user) and the
        garbled ones with their kinds."""
        about_the_user = {g for g, label in pairs if self.others[label] is None}
        others = [other for other in self.others if other is not None]
        wrong = [
            caption
            for index, caption in enumerate(captions)
            if index not in about_the_user and misattributed(caption, others)
        ]
        garbled = [(c, kinds) for c in captions if (kinds := garbles(c, self.messages))]
        return wrong, garbled


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


def _extract(extract: Extractor, row: dict[str, Any]) -> tuple[Extraction, float]:
    started = time.perf_counter()
    extraction = extract(row["conversation"])
    seconds = time.perf_counter() - started
    if not isinstance(extraction, Extraction):
        extraction = Extraction(extraction)
    return extraction, seconds


def conversation_evaluate(
    extract: Extractor, row: dict[str, Any], write: Writer | None = None
) -> ConversationResult:
    """Score one labelled conversation; with `write`, through the write path too."""
    extraction, seconds = _extract(extract, row)
    cost = ItemCost(seconds=seconds)
    cost.add_usage(extraction.usage)
    labelled = LabelledRow(row)
    candidates = list(extraction.candidates)
    guesses = [candidate.caption for candidate in candidates]
    labels = labelled.labels
    pairs = labelled.match(guesses)
    matched_guesses = {guess for guess, _ in pairs}
    matched_labels = {label for _, label in pairs}
    agreements = sum(
        1
        for guess, label in pairs
        if candidates[guess].category == row["expected"][label].get("category")
    )
    error = extraction.error
    judged, judged_pairs = guesses, pairs
    written = write is not None and not error
    stored: list[str] = []
    lost: list[tuple[str, str, str]] = []
    stored_matched = 0
    write_seconds = 0.0
    if write is not None and not error:
        started = time.perf_counter()
        result = write(row["conversation"], candidates)
        # Apart from the extraction's seconds, which stay comparable with --no-write.
        write_seconds = time.perf_counter() - started
        cost.add_usage(result.usage)
        error = result.error
        stored = result.active
        judged, judged_pairs = stored, labelled.match(stored)
        recalled = {label for _, label in judged_pairs}
        held = {label for _, label in labelled.match(result.held)}
        stored_matched = len(recalled)
        lost = [
            (labels[label], guesses[guess], _lost_reason(label in held, guesses[guess], result))
            for guess, label in pairs
            if label not in recalled
        ]
    wrong, garbled = labelled.faults(judged, judged_pairs)
    return ConversationResult(
        id=str(row["id"]),
        matched=[(guesses[guess], labels[label]) for guess, label in pairs],
        spurious=[g for index, g in enumerate(guesses) if index not in matched_guesses],
        missed=[m for index, m in enumerate(labels) if index not in matched_labels],
        category_agreements=agreements,
        split=str(row.get("split") or ""),
        kind=str(row.get("kind") or ""),
        cost=cost,
        error=error,
        misattributed=wrong,
        garbled=garbled,
        written=written,
        stored=stored,
        stored_matched=stored_matched,
        lost=lost,
        write_seconds=write_seconds,
    )


def _lost_reason(held: bool, candidate: str, written: Written) -> str:
    if held:
        return "held"
    return "refused" if candidate in written.refused else "merged"


def evaluate_rows(
    extract: Extractor, rows: Iterable[dict[str, Any]], *, write: Writer | None = None
) -> EvaluationReport:
    """Score an extractor against already loaded labelled conversations; with `write` (see
    `bench.extractor_write.writer_for`), each conversation's candidates are written too."""
    results = [conversation_evaluate(extract, row, write) for row in rows]
    true_positives = sum(len(result.matched) for result in results)
    false_positives = sum(len(result.spurious) for result in results)
    false_negatives = sum(len(result.missed) for result in results)
    precision = _divide(true_positives, true_positives + false_positives)
    recall = _divide(true_positives, true_positives + false_negatives)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    kinds = Counter(kind for result in results for _, found in result.garbled for kind in found)
    written = [result for result in results if result.written]
    expected = true_positives + false_negatives
    judged = "stored" if write is not None else "candidates"
    return EvaluationReport(
        conversations=len(results),
        expected=expected,
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
        judged=judged,
        misattributed=sum(len(result.misattributed) for result in results),
        garbled=sum(len(result.garbled) for result in results),
        captions_judged=sum(
            len(result.stored) if judged == "stored" else len(result.matched) + len(result.spurious)
            for result in results
        ),
        garbles={kind: kinds[kind] for kind in GARBLE_KINDS},
        lost=sum(len(result.lost) for result in results) if write is not None else None,
        lost_by=(
            {
                reason: sum(1 for r in results for *_, why in r.lost if why == reason)
                for reason in LOST_REASONS
            }
            if write is not None
            else None
        ),
        stored=_stored(written, expected) if write is not None else None,
    )


def _stored(results: list[ConversationResult], expected: int) -> dict[str, Any]:
    """The active memories after the write, scored as the candidates are."""
    memories = sum(len(result.stored) for result in results)
    matched = sum(result.stored_matched for result in results)
    seconds = [result.write_seconds for result in results]
    return {
        "conversations": len(results),
        "write_seconds_mean": round(sum(seconds) / len(seconds), 4) if seconds else 0.0,
        "memories": memories,
        "true_positives": matched,
        "recall": round(_divide(matched, expected), 4),
        "precision": round(_divide(matched, memories), 4),
    }


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
