"""The offline path on pairs written as people and LLMs word them (tests/extraction/data/).

Written apart from the bench's labelled sets, so the rules are checked on wording they were not
tuned against as well.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from extraction.judge import Relation, compare, facets_read
from extraction.reader import offline_candidates

DATA = Path(__file__).resolve().parent / "data"
EXPECTED = {"C": Relation.CONTRADICTS, "S": Relation.SAME, "N": None}


def pairs(name: str) -> list[tuple[str, str, str]]:
    rows = []
    for line in (DATA / name).read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, first, second = line.split(" || ")
            rows.append((kind, first, second))
    return rows


def relation(new: list, old: list) -> Relation | None:
    """The strongest relation between any new and any stored memory (a contradiction wins)."""
    found = None
    for candidate in new:
        for memory in old:
            result = compare(
                facets_read(candidate.caption, candidate.full_text),
                facets_read(memory.caption, memory.full_text),
            )
            if result and (found is None or result.relation == Relation.CONTRADICTS):
                found = result.relation
    return found


@pytest.mark.parametrize(("kind", "first", "second"), pairs("everyday_pairs.txt"))
def test_what_people_type_is_extracted_and_judged(kind, first, second):
    old = offline_candidates([{"role": "user", "content": first}])
    new = offline_candidates([{"role": "user", "content": second}])

    found = relation(new, old)
    if kind == "N":
        assert found != Relation.CONTRADICTS
    else:
        assert old, f"nothing extracted from {first!r}"
        assert found == EXPECTED[kind], f"{[c.caption for c in new]} vs {[c.caption for c in old]}"


@pytest.mark.parametrize(("kind", "stored", "new"), pairs("llm_worded_pairs.txt"))
def test_what_llms_word_is_judged(kind, stored, new):
    found = compare(facets_read(new, new), facets_read(stored, stored))
    relation_found = found.relation if found else None

    if kind == "N":
        assert relation_found != Relation.CONTRADICTS
    else:
        assert relation_found == EXPECTED[kind]
