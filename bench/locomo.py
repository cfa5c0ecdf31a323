"""The LoCoMo benchmark file as corpora of memories and questions with evidence (no database).

Evidence dialogue ids belong to the benchmark, never to the schema: a corpus is a list of
texts, each with the set of dialogue ids it comes from, and the bench keeps the map from the
stored memory ids to those sets.
"""

from __future__ import annotations

import datetime
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

QUESTION_CATEGORIES = (1, 2, 3, 4)  # 5 is adversarial (unanswerable): not a retrieval question
CORPORA = ("observations", "turns")

_EVIDENCE = re.compile(r"^D:?(\d+):(\d+)$")
_SEPARATORS = re.compile(r"[;,\s]+")
_SESSION = re.compile(r"^session_(\d+)$")
_SESSION_DATE = re.compile(r"^session_(\d+)_date_time$")


@dataclass
class EvidenceStats:
    """How many evidence entries of the file were malformed, and what became of them."""

    entries: int = 0
    split: int = 0  # one entry holding several ids ("D8:6; D9:17"), split into them
    repaired: int = 0  # a stray colon ("D:11:26" -> "D11:26")
    dropped: int = 0  # nothing usable ("D")

    def as_dict(self) -> dict[str, int]:
        """The counts as a plain dict."""
        return {k: getattr(self, k) for k in ("entries", "split", "repaired", "dropped")}


def parse_evidence(raw: str | list[str], stats: EvidenceStats) -> frozenset[str]:
    """Return the well-formed dialogue ids of one evidence field, counting malformed ones."""
    ids: set[str] = set()
    for entry in [raw] if isinstance(raw, str) else raw:
        stats.entries += 1
        pieces = [p for p in _SEPARATORS.split(str(entry).strip()) if p]
        if len(pieces) > 1:
            stats.split += 1
        for piece in pieces:
            match = _EVIDENCE.match(piece)
            if match is None:
                stats.dropped += 1
                continue
            if piece.startswith("D:"):
                stats.repaired += 1
            ids.add(f"D{int(match.group(1))}:{int(match.group(2))}")
        if not pieces:
            stats.dropped += 1
    return frozenset(ids)


@dataclass(frozen=True)
class CorpusItem:
    """One memory to store: its text, the session it belongs to and its evidence ids."""

    text: str
    session: int
    evidence: frozenset[str]
    # When its session took place (the file's `session_<n>_date_time`): the time it was said.
    said: datetime.datetime | None = None


@dataclass(frozen=True)
class Question:
    """One QA item: the prompt, its category and the dialogue ids that answer it."""

    text: str
    category: int
    evidence: frozenset[str]


@dataclass
class Conversation:
    """One LoCoMo conversation as a corpus and its questions."""

    index: int
    sample_id: str
    items: list[CorpusItem]
    questions: list[Question]
    duplicates_merged: int = 0
    questions_without_evidence: int = 0
    evidence: EvidenceStats = field(default_factory=EvidenceStats)


def parse_range(spec: str) -> list[int]:
    """Parse "5-9" or "0,2,4-6" into a sorted list of indexes."""
    indexes: set[int] = set()
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            start, end = (int(x) for x in part.split("-", 1))
            indexes.update(range(start, end + 1))
        else:
            indexes.add(int(part))
    return sorted(indexes)


def _turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn.get('text', '').strip()}"
    if turn.get("blip_caption"):
        # The shared photo is part of what was said ("take a look at this").
        text += f" [shares {turn['blip_caption']}]"
    return text


def _merge_duplicates(items: list[CorpusItem]) -> tuple[list[CorpusItem], int]:
    """One memory per distinct text (as the write path's content hash would have it)."""
    merged: dict[str, CorpusItem] = {}
    for item in items:
        key = " ".join(item.text.lower().split())
        if key in merged:
            first = merged[key]
            merged[key] = CorpusItem(
                first.text, first.session, first.evidence | item.evidence, first.said
            )
        else:
            merged[key] = item
    return list(merged.values()), len(items) - len(merged)


def _session_dates(conversation: dict) -> dict[int, datetime.datetime]:
    """Each session's date ("1:56 pm on 8 May, 2023"), as UTC; a session whose date does not
    parse has none."""
    dates = {}
    for key, value in conversation.items():
        match = _SESSION_DATE.match(key)
        if match is None or not isinstance(value, str):
            continue
        try:
            moment = datetime.datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y")
        except ValueError:
            continue
        dates[int(match.group(1))] = moment.replace(tzinfo=datetime.UTC)
    return dates


def conversation_load(raw: dict, *, index: int, corpus: str) -> Conversation:
    """Turn one conversation of the file into a corpus of `observations` or `turns`."""
    if corpus not in CORPORA:
        raise ValueError(f"corpus must be one of {CORPORA}, not {corpus!r}")
    stats = EvidenceStats()
    items: list[CorpusItem] = []
    said = _session_dates(raw.get("conversation", {}))
    if corpus == "observations":
        for key, by_speaker in raw["observation"].items():
            session = int(re.search(r"\d+", key).group())
            for facts in by_speaker.values():
                for text, evidence in facts:
                    evidence = parse_evidence(evidence, stats)
                    items.append(CorpusItem(text.strip(), session, evidence, said.get(session)))
    else:
        for key, turns in raw["conversation"].items():
            match = _SESSION.match(key)
            if match is None:
                continue
            for turn in turns:
                session = int(match.group(1))
                evidence = frozenset([turn["dia_id"]])
                items.append(CorpusItem(_turn_text(turn), session, evidence, said.get(session)))
    items.sort(key=lambda i: i.session)  # stable: creation order within a session is kept
    items, duplicates = _merge_duplicates(items)
    questions = []
    without_evidence = 0
    for qa in raw["qa"]:
        if qa.get("category") not in QUESTION_CATEGORIES:
            continue
        evidence = parse_evidence(qa.get("evidence") or [], stats)
        if not evidence:
            without_evidence += 1
            continue
        questions.append(Question(str(qa["question"]), int(qa["category"]), evidence))
    return Conversation(
        index=index,
        sample_id=str(raw.get("sample_id", index)),
        items=items,
        questions=questions,
        duplicates_merged=duplicates,
        questions_without_evidence=without_evidence,
        evidence=stats,
    )


def locomo_load(path: Path, *, conversations: list[int], corpus: str) -> list[Conversation]:
    """Load the chosen conversations of a LoCoMo file."""
    data = json.loads(Path(path).read_text())
    missing = [i for i in conversations if not 0 <= i < len(data)]
    if missing:
        raise ValueError(f"the file has {len(data)} conversations; no {missing}")
    return [conversation_load(data[i], index=i, corpus=corpus) for i in conversations]


@dataclass
class Metrics:
    """Retrieval quality over a set of questions (as fractions until `as_percent`)."""

    hits_any: Counter = field(default_factory=Counter)
    hits_all10: int = 0
    reciprocal_ranks: float = 0.0
    questions: int = 0

    def add(self, ranked_evidence: list[frozenset[str]], wanted: frozenset[str]) -> None:
        """Score one question from the evidence sets of its ranked results."""
        self.questions += 1
        first_hit = next((rank for rank, ev in enumerate(ranked_evidence, 1) if ev & wanted), None)
        for k in (5, 10, 20):
            if first_hit is not None and first_hit <= k:
                self.hits_any[k] += 1
        if first_hit is not None and first_hit <= 10:
            self.reciprocal_ranks += 1 / first_hit
        covered = frozenset().union(*ranked_evidence[:10]) if ranked_evidence else frozenset()
        if wanted <= covered:
            self.hits_all10 += 1

    def as_percent(self) -> dict[str, float]:
        """recall_any@5/10/20, recall_all@10 and MRR@10, in percent."""
        n = max(self.questions, 1)
        return {
            "recall_any@5": round(100 * self.hits_any[5] / n, 1),
            "recall_any@10": round(100 * self.hits_any[10] / n, 1),
            "recall_any@20": round(100 * self.hits_any[20] / n, 1),
            "recall_all@10": round(100 * self.hits_all10 / n, 1),
            "mrr@10": round(100 * self.reciprocal_ranks / n, 1),
        }
