"""A stored fact told again with a detail in the same breath is one memory (issue 31,
`extraction.details`): "tai chi in the park is my thing, i go before work most days" after
"i do tai chi in the park". A detail said apart, about another person, or of a registry
attribute of its own stays its own memory. On topics no bench set has."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from extraction.decisions import Action, decide
from extraction.jobs import extraction_perform
from memories.models import Memory
from tests.extraction.decide_helpers import candidate, known, unit

STORED = "User does tai chi in the park"
TOLD_AGAIN = "User does tai chi in the park before work"


def _said(caption: str, clause: str):
    return replace(candidate(caption), said=clause, said_in=0)


def _decided(detail_caption: str, first_clause: str, detail_clause: str):
    told = _said(TOLD_AGAIN, first_clause)
    detail = _said(detail_caption, detail_clause)
    return decide(
        candidates=[told, detail],
        vectors=np.array([unit(0.95, 0.31), unit(0.1, 0.99)]),
        known=[known("m1", STORED, unit(1, 0))],
        advice=lambda *a: None,
    )


def test_a_detail_said_in_the_same_sentence_joins_the_fact_it_tells_more_about():
    told, detail = _decided(
        "User goes most days", "tai chi in the park before work is my thing,", " i go most days"
    )

    assert told.action == Action.MERGE and told.target == "m1"
    assert detail.action == Action.MERGE and detail.target == "m1"
    assert detail.candidate.caption == TOLD_AGAIN
    assert detail.candidate.full_text == f"{TOLD_AGAIN} User goes most days"


def test_a_detail_in_another_sentence_is_its_own_memory():
    _, detail = _decided(
        "User goes most days", "tai chi in the park before work is my thing.", " i go most days"
    )

    assert detail.action == Action.INSERT


def test_another_persons_fact_or_a_job_beside_it_is_its_own_memory():
    _, sisters = _decided(
        "User's sister goes most days",
        "tai chi in the park before work is my thing,",
        " my sister goes most days",
    )
    _, job = _decided(
        "User works at the council",
        "tai chi in the park before work is my thing,",
        " i work at the council",
    )

    assert sisters.action == Action.INSERT
    assert job.action == Action.INSERT


def test_the_detail_is_kept_in_the_memory_it_joins_through_the_write(tenant, settings):
    # One memory, its full text holding both clauses, each message's words as its evidence.
    settings.MEMORY_EXTRACTOR = "rules"
    for said in (
        "i do tai chi in the park",
        "i do tai chi in the park before work, i go most days",
    ):
        extraction_perform(
            tenant=tenant, external_id="u1", messages=[{"role": "user", "content": said}]
        )

    [memory] = Memory.objects.filter(end_user__tenant=tenant)
    assert "tai chi in the park before work" in memory.full_text
    assert "goes most days" in memory.full_text
    assert memory.evidence.count() == 3
