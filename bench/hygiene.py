"""The store audit measured (issue 34): a bench tenant seeded with clean facts, known junk and
known near-duplicates, audited by `memories.hygiene.memory_audit`, scored per kind.

Clean facts are the labelled captions of the dev rows of `chat_facts.jsonl` and
`dense_facts_dev2.jsonl`, one end user per labelled conversation; the junk and the duplicate
pairs (`data/hygiene_dev.toml`) are spread over those users, each duplicate pair stored older
first. Memories are stored as a bench stores them (`bench.recall.bench_memories_create`: the
configured embedder's vectors, no write pipeline, so nothing is merged or refused on the way).
"""

from __future__ import annotations

import json
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bench.recall import bench_memories_create, bench_tenant_reset
from memories.hygiene import CAPTION_KINDS, DUPLICATE, STALE_TIME, memory_audit
from memories.models import EndUser
from memories.text import content_hash

DATA = Path(__file__).resolve().parent / "data"
JUNK = DATA / "hygiene_dev.toml"
CLEAN_SOURCES = ("chat_facts.jsonl", "dense_facts_dev2.jsonl")
BENCH_TENANT = "bench-hygiene"
CLEAN = "clean"


@dataclass
class Seeded:
    """What was stored: each memory's seeded kind, and the duplicate pairs (newer, older)."""

    tenant_id: int = 0
    kinds: dict[str, str] = field(default_factory=dict)
    pairs: set[tuple[str, str]] = field(default_factory=set)
    captions: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Score:
    """One kind's figures: seeded, flagged, found (flagged and seeded)."""

    kind: str
    seeded: int
    flagged: int
    found: int

    @property
    def recall(self) -> float:
        return self.found / self.seeded if self.seeded else 0.0

    @property
    def precision(self) -> float:
        return self.found / self.flagged if self.flagged else 1.0


@dataclass
class Report:
    scores: list[Score]
    clean: int
    clean_flagged: list[tuple[str, str]]  # (caption, kind) of each clean memory flagged
    junk: int  # junk memories seeded (every caption kind)
    junk_found: int  # of those, flagged as junk of any kind
    misses: list[tuple[str, str]]  # (kind, caption) of each seeded one not found
    wrong: list[tuple[str, str]]  # (kind, caption) of each flag on another kind's memory

    @property
    def clean_rate(self) -> float:
        return len({c for c, _ in self.clean_flagged}) / self.clean if self.clean else 0.0


def clean_stores() -> list[list[str]]:
    """The clean facts, one list per labelled dev conversation."""
    stores = []
    for name in CLEAN_SOURCES:
        for line in (DATA / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row.get("split", "dev") != "dev" or not row["expected"]:
                continue
            stores.append([label["caption"] for label in row["expected"]])
    return stores


def junk_load(path: Path = JUNK) -> dict[str, list]:
    with path.open("rb") as handle:
        return tomllib.load(handle)


def store_seed(*, junk: dict[str, list] | None = None, relabel: bool = True) -> Seeded:
    """Empty the bench tenant and store the clean facts with the junk and pairs among them;
    `relabel`: the clean labels listed in `clean_that_go_stale` seeded as stale times."""
    junk = junk if junk is not None else junk_load()
    tenant = bench_tenant_reset(name=BENCH_TENANT)
    stale = set(junk.get("clean_that_go_stale", [])) if relabel else set()
    stores = [
        [(caption, STALE_TIME if caption in stale else CLEAN) for caption in store]
        for store in clean_stores()
    ]
    extras: list[tuple[str, str]] = [
        (caption, kind) for kind in CAPTION_KINDS for caption in junk.get(kind, [])
    ]
    for at, (caption, kind) in enumerate(extras):
        stores[at % len(stores)].append((caption, kind))
    pair_of: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for at, (older, newer) in enumerate(junk.get("duplicates", [])):
        pair_of[(at * 7 + 3) % len(stores)].append((older, newer))
    seeded = Seeded(tenant_id=tenant.pk)
    for at, store in enumerate(stores):
        user = EndUser.objects.create(tenant=tenant, external_id=f"hygiene-{at}")
        rows = list(store)
        for older, newer in pair_of.get(at, []):
            rows += [(older, CLEAN), (newer, DUPLICATE)]
        rows = _unique(rows)
        ids = bench_memories_create(end_user=user, texts=[caption for caption, _ in rows])
        for memory_id, (caption, kind) in zip(ids, rows, strict=True):
            seeded.kinds[memory_id] = kind
            seeded.captions[memory_id] = caption
        by_caption = {caption: memory_id for memory_id, (caption, _) in zip(ids, rows, strict=True)}
        for older, newer in pair_of.get(at, []):
            if older in by_caption and newer in by_caption:
                seeded.pairs.add((by_caption[newer], by_caption[older]))
    return seeded


def _unique(rows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """One memory per text (the store keeps one active memory per text and user)."""
    seen: set[str] = set()
    kept = []
    for caption, kind in rows:
        key = content_hash(caption)
        if key not in seen:
            seen.add(key)
            kept.append((caption, kind))
    return kept


def audit_score(seeded: Seeded) -> Report:
    """Audit the bench tenant and score each kind against what was seeded."""
    findings = [f for audit in memory_audit(tenant_ids=[seeded.tenant_id]) for f in audit.findings]
    flagged: dict[str, set[str]] = defaultdict(set)
    pairs: set[tuple[str, str]] = set()
    for finding in findings:
        if finding.memory_id not in seeded.kinds:
            continue
        flagged[finding.kind].add(finding.memory_id)
        if finding.kind == DUPLICATE:
            pairs.add((finding.memory_id, finding.other_id))
    scores, misses, wrong = [], [], []
    for kind in (DUPLICATE, *CAPTION_KINDS):
        truth = {m for m, k in seeded.kinds.items() if k == kind}
        if kind == DUPLICATE:
            found = {p for p in pairs if p in seeded.pairs or p[::-1] in seeded.pairs}
            scores.append(Score(kind, len(seeded.pairs), len(pairs), len(found)))
            misses += [(kind, seeded.captions[n]) for n, o in seeded.pairs if (n, o) not in found]
            wrong += [
                (kind, f"{seeded.captions[n]} ~ {seeded.captions[o]}") for n, o in pairs - found
            ]
            continue
        scores.append(Score(kind, len(truth), len(flagged[kind]), len(flagged[kind] & truth)))
        misses += [(kind, seeded.captions[m]) for m in truth - flagged[kind]]
        wrong += [(kind, seeded.captions[m]) for m in flagged[kind] - truth]
    clean = [m for m, k in seeded.kinds.items() if k == CLEAN]
    clean_flagged = [
        (seeded.captions[m], kind) for kind, ids in flagged.items() for m in ids if m in clean
    ]
    junk = {m for m, k in seeded.kinds.items() if k in CAPTION_KINDS}
    flagged_junk = set().union(*(flagged[kind] for kind in CAPTION_KINDS))
    return Report(
        scores,
        len(clean),
        sorted(clean_flagged),
        len(junk),
        len(junk & flagged_junk),
        sorted(misses),
        sorted(wrong),
    )


# The conflict benches' labelled pairs the audit is run over as a second, independent measure
# of its near-duplicates (dev splits only: the held-out ones are not read here).
PAIR_SOURCES = (
    "conflicts_dev.jsonl",
    "conflicts_dev2.jsonl",
    "conflicts_chat.jsonl",
    "conflicts_heldout2.jsonl",
)
PAIR_KINDS = ("restatement", "compatible", "contradiction")


def pairs_score() -> dict[str, tuple[int, int]]:
    """For each kind of labelled pair (`PAIR_KINDS`), how many pairs there are and how many
    the audit flags as a near-duplicate, each pair stored first then second for a user of its
    own in the bench tenant (emptied first, left for the caller to delete)."""
    tenant = bench_tenant_reset(name=BENCH_TENANT)
    kinds: dict[str, str] = {}
    for name in PAIR_SOURCES:
        for at, line in enumerate((DATA / name).read_text(encoding="utf-8").splitlines()):
            row = json.loads(line)
            if row.get("split", "dev") != "dev" or row["kind"] not in PAIR_KINDS:
                continue
            first, second = row["first"], row["second"]
            if content_hash(first["full_text"]) == content_hash(second["full_text"]):
                continue
            user = EndUser.objects.create(tenant=tenant, external_id=f"pair-{name}-{at}")
            ids = bench_memories_create(
                end_user=user,
                texts=[first["full_text"], second["full_text"]],
                captions=[first["caption"], second["caption"]],
            )
            kinds[ids[1]] = row["kind"]
    flagged = {
        f.memory_id
        for audit in memory_audit(tenant_ids=[tenant.pk])
        for f in audit.findings
        if f.kind == DUPLICATE
    }
    return {
        kind: (
            sum(k == kind for k in kinds.values()),
            sum(k == kind and m in flagged for m, k in kinds.items()),
        )
        for kind in PAIR_KINDS
    }
