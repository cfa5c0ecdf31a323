"""A property over the labelled chat sets: no extraction leaves fewer facts recallable than its
candidates stated.

Every row of `bench/data/extraction_labelled.jsonl` and `bench/data/chat_facts.jsonl` goes
through the offline write path for a fresh user. Each candidate the decide step was given must
then be held by a visible memory's own text, judged here independently of the decide step: the
same text, a cosine at or above the merge floor, or a reading of the memory's text that states
the candidate's person, attribute, polarity and value (at least as much of the value). A
candidate folded into a memory that says something else is a fact lost.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import numpy as np
import pytest

import extraction.pipeline
from extraction.candidates import Candidate
from extraction.decisions import NEAR_DUPLICATE_SIMILARITY
from extraction.jobs import extraction_perform
from memories.facets import Facet, facets_read, subject_of
from memories.models import Memory
from memories.selectors import VISIBLE_STATUSES
from memories.text import normalise_text

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
SETS = ("extraction_labelled.jsonl", "chat_facts.jsonl")


def _rows() -> list[dict]:
    rows = []
    for name in SETS:
        with (DATA / name).open(encoding="utf-8") as lines:
            rows.extend(json.loads(line) for line in lines if line.strip())
    return rows


def _said(candidate: Candidate) -> tuple[Facet, ...] | None:
    """What the candidate states, or None when its reading names nothing of whom it is about
    (then only its text or a near-identical vector can hold it)."""
    facets = facets_read(candidate.caption, candidate.full_text)
    about = subject_of(candidate.caption)
    return facets if any(facet.subject == about for facet in facets) else None


def _holds(memory: Memory, candidate: Candidate, vector: np.ndarray) -> bool:
    if normalise_text(memory.full_text) == normalise_text(candidate.full_text):
        return True
    if memory.embedding is not None and float(np.dot(vector, memory.embedding)) >= (
        NEAR_DUPLICATE_SIMILARITY
    ):
        return True
    said = _said(candidate)
    if said is None:
        return False
    text = facets_read(memory.caption, memory.full_text)  # its text, not what merges added
    return all(
        any(
            (f.subject, f.attribute, f.positive) == (m.subject, m.attribute, m.positive)
            and set(f.value.split()) <= set(m.value.split())
            for m in text
        )
        for f in said
    )


def test_no_extraction_leaves_fewer_facts_recallable_than_its_candidates_stated(
    tenant, settings, monkeypatch
):
    settings.MEMORY_EXTRACTOR = "rules"
    decided: list[tuple[list[Candidate], np.ndarray]] = []
    decide = extraction.pipeline.decide

    def spy(**kwargs):  # records what the real decide step is given, and runs it
        decided.append((list(kwargs["candidates"]), kwargs["vectors"]))
        return decide(**kwargs)

    monkeypatch.setattr(extraction.pipeline, "decide", spy)
    rows = _rows()
    lost: list[str] = []
    stated = 0
    for row in rows:
        decided.clear()
        user = uuid.uuid4()
        extraction_perform(tenant=tenant, external_id=user, messages=row["conversation"])
        visible = list(
            Memory.objects.filter(end_user__external_id=user, status__in=VISIBLE_STATUSES)
        )
        for candidates, vectors in decided:
            stated += len(candidates)
            for candidate, vector in zip(candidates, vectors, strict=True):
                if not any(_holds(memory, candidate, vector) for memory in visible):
                    lost.append(
                        f"{row['id']}: {candidate.caption!r} not held by "
                        f"{[memory.caption for memory in visible]}"
                    )

    assert len(rows) >= 300 and stated >= 200  # the sets were read, and the reader stated facts
    assert lost == [], f"{len(lost)} facts lost:\n" + "\n".join(lost)
