"""A restatement that says more: the detail said with it joins the memory it restates (issue 31).

A user who tells a stored fact again seldom says only that: "peanut allergy here, i carry an
epipen everywhere"; "as a Kew member I go most weekends". The clause reader finds two facts,
the first merges into the stored one (`extraction.merge_evidence`), and the second, said in the
same breath about it, would be a memory of its own that means little apart ("User goes most
weekends"). Kept with the fact it tells more about, it is one memory, as an LLM extractor
words it ("The user has a peanut allergy and carries an EpiPen everywhere").

A pure step after `extraction.decisions.decide`: an inserted candidate of the same message,
next to a candidate that merged into a memory stored before and said in the same sentence,
becomes a merge into that memory whose full text keeps both (the memory's wording, then the
detail). Only a plain detail of the user's: no person of theirs, no registry attribute of its
own (a job, a home: facts recall looks up by themselves), no change cue, correction, addition
or wish, nothing held or contradicted. Nothing is dropped: the detail's words stay in the text
the memory is recalled by, and its quote joins the memory's evidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

import numpy as np

from extraction.actions import Action, Decision
from extraction.merge_evidence import candidate_reading
from extraction.updates import Reading
from memories.text import content_hash


class Stored(Protocol):
    """What the fold reads and updates of a known memory (`extraction.decisions.KnownMemory`)."""

    ref: str
    caption: str
    full_text: str
    vector: np.ndarray | None


# The end of a sentence: a clause ending so is said apart from the next one.
_SENTENCE_ENDS = (".", "!", "?")


def details_folded(decisions: list[Decision], known: Sequence[Stored]) -> list[Decision]:
    """The decisions with each plain detail said beside a restatement merged into the memory
    it restates (see the module docstring). `known` holds the memories as the decisions left
    them (a merge's kept wording)."""
    by_ref = {memory.ref: memory for memory in known}
    folded = list(decisions)
    for position, decision in enumerate(decisions):
        if not _restates_stored(decision):
            continue
        target = by_ref.get(decision.target or "")
        if target is None:
            continue
        for beside in (position - 1, position + 1):
            if not 0 <= beside < len(folded) or folded[beside].action != Action.INSERT:
                continue
            first, second = sorted((position, beside))
            detail = folded[beside]
            if not _one_sentence(decisions[first], decisions[second]) or not _plain(detail):
                continue
            full_text = f"{target.full_text.rstrip()} {detail.candidate.full_text.strip()}"
            folded[beside] = replace(
                detail,
                candidate=replace(detail.candidate, caption=target.caption, full_text=full_text),
                action=Action.MERGE,
                target=target.ref,
                content_hash=content_hash(full_text),
                # Recalled by what it is about: the memory's own vector, not the detail's.
                vector=target.vector if target.vector is not None else detail.vector,
                reason="said more about it in the same sentence",
            )
            target.full_text = full_text
    return folded


def _restates_stored(decision: Decision) -> bool:
    """A merge into a memory stored before this conversation."""
    return decision.action == Action.MERGE and not (decision.target or "new:").startswith("new:")


def _one_sentence(first: Decision, second: Decision) -> bool:
    """Whether two candidates were said in one sentence of one message: the same clause, or
    the first clause running on into the next (not ended by a full stop)."""
    one, two = first.candidate, second.candidate
    if one.said_in is None or one.said_in != two.said_in or not one.said or not two.said:
        return False
    return one.said == two.said or not one.said.rstrip().endswith(_SENTENCE_ENDS)


def _plain(decision: Decision) -> bool:
    """A plain detail of the user's (see the module docstring)."""
    if decision.conflicts:
        return False
    said: Reading = candidate_reading(decision.candidate)
    if said.subject != "user" or said.people or said.attributes:
        return False
    return not (
        said.ends
        or said.starts
        or said.corrects
        or said.replaces
        or said.additive
        or said.wish
        or decision.candidate.corrects
    )
