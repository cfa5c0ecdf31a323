"""Step 5 of the write path as a pure function: what to do with each candidate memory.

`decide` compares candidates with the user's known memories and returns one Decision per
candidate: skip it (the same text is known), merge it into a memory (it restates one or adds
detail to it), hold it for review (it contradicts active memories), supersede them (the same,
under the `supersede` policy, when the candidate announces the change), or insert it. It reads
nothing and writes nothing: the LLM's advice is passed in, and `pipeline.decisions_apply`
carries out the decisions in the caller's transaction.

Each candidate is read against its *neighbours*: the known memories that could be about the
same thing, the nearest by cosine above a low floor (any category) plus every memory the linker
ties to it (`neighbours_find`, `extraction.updates.link`).

Candidates are decided in order, each against the known memories *and* the earlier candidates
of the same conversation, exactly as if each had been stored before the next was looked at.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from extraction.actions import Action, Conflict, Decision
from extraction.candidates import Candidate
from extraction.cued_changes import cued_change, modifier_changed, number_changed, slot_changed
from extraction.dated_updates import dated_refs, dated_update
from extraction.details import details_folded
from extraction.merge_evidence import (
    NEAR_DUPLICATE_SIMILARITY,
    advised_same_fact,
    candidate_facets,
    candidate_reading,
    different_people,
    keeps_both,
    said_again,
    same_fact,
)
from extraction.restatements import restated_in_words
from extraction.updates import Reading, Update, link, reading, update
from memories.comparison import Verdict, compare, shares_attribute
from memories.facets import Facet, facets_read
from memories.models import Memory, ReviewItem
from memories.text import content_hash, normalise_text

# Memories at least this close to a candidate are its neighbours (tuned on the dev split of
# bench/data/conflicts_dev.jsonl: MiniLM puts real contradictions at 0.3-0.7).
NEIGHBOUR_FLOOR = 0.35
# At most this many neighbours by cosine; memories sharing an attribute come on top.
NEIGHBOUR_LIMIT = 8


@dataclass
class KnownMemory:
    """What a decision needs of a memory: a stored one (`ref` is its id) or an earlier candidate.

    An earlier candidate's `ref` is `new:<position>`: its row does not exist yet.
    """

    ref: str
    caption: str
    full_text: str
    category: str
    status: str
    content_hash: str
    vector: np.ndarray | None
    # What the memory states (`memories.facets`): stored on the row, read from the text for a
    # row stored before facets were (and for an earlier candidate).
    stored_facets: tuple[Facet, ...] | None = None
    # The day it was last said (issue 33); None for an earlier candidate of this conversation.
    stated_on: datetime.date | None = None

    @classmethod
    def of(cls, memory: Memory, vector: np.ndarray | None) -> KnownMemory:
        """A stored memory, with its vector when that came from the current model."""
        return cls(
            ref=memory.id,
            caption=memory.caption,
            full_text=memory.full_text,
            category=memory.category,
            status=memory.status,
            content_hash=memory.content_hash,
            vector=vector,
            stored_facets=None
            if memory.facets is None
            else tuple(Facet.of(data) for data in memory.facets),
            stated_on=(memory.last_stated_at or memory.stated_at or memory.created_at).date(),
        )

    @property
    def facets(self) -> tuple[Facet, ...]:
        if self.stored_facets is not None:
            return self.stored_facets
        return facets_read(self.caption, self.full_text)

    @property
    def reading(self) -> Reading:
        """The memory as the linker reads it (`extraction.updates`), from its stored facets."""
        return reading(self.caption, facets=self.facets)


@dataclass(frozen=True)
class Neighbour:
    """A known memory a candidate could be about, and how close they are."""

    memory: KnownMemory
    similarity: float


@dataclass(frozen=True)
class Judgement:
    """What one candidate is to its neighbours, and why: the rules' reading, or the LLM's
    advice before `checked_judgement` checks it."""

    verdict: Verdict
    refs: tuple[str, ...] = ()
    reason: str = ""
    signal: str = ReviewItem.Signal.RULES
    explicit_update: bool = False
    held: bool = False  # every change it found is for review only (`updates.Update.held`)


# The LLM's advice for the candidate at a position, given its neighbours; None means "no usable
# answer" (the rules decide).
Advice = Callable[[int, Candidate, list[Neighbour]], Judgement | None]


def new_ref(position: int) -> str:
    """The reference of the memory inserted for the candidate at `position`."""
    return f"new:{position}"


def _said_now(ref: str) -> bool:
    """Whether `ref` names a memory of this conversation's own candidates (`new_ref`)."""
    return ref.startswith("new:")


def decide(
    *,
    candidates: Sequence[Candidate],
    vectors: np.ndarray,
    known: list[KnownMemory],
    advice: Advice,
    supersede: bool = False,
) -> list[Decision]:
    """One decision per candidate, in order (see the module docstring).

    `supersede`: an announced change ("moved to", "switched to", "quit") supersedes the memories
    it contradicts instead of being held for review.
    """
    known = list(known)
    decisions: list[Decision] = []
    for position, (candidate, vector) in enumerate(zip(candidates, vectors, strict=True)):
        decision = _decide_one(position, candidate, vector, known, advice, supersede)
        decisions.append(decision)
        _learn(known, decision, position)
    # A detail said in the same sentence as a restatement joins the memory it restates.
    return details_folded(decisions, known)


def _similarity(vector: np.ndarray, memory: KnownMemory) -> float:
    if memory.vector is None or memory.vector.shape != vector.shape:
        return 0.0
    return float(np.dot(vector, memory.vector))


def neighbours_find(
    candidate: Candidate, vector: np.ndarray, known: list[KnownMemory]
) -> list[Neighbour]:
    """The known memories the candidate could be about, nearest first (see module docstring)."""
    scored = [Neighbour(memory, _similarity(vector, memory)) for memory in known]
    scored.sort(key=lambda n: n.similarity, reverse=True)
    close = [n for n in scored if n.similarity >= NEIGHBOUR_FLOOR][:NEIGHBOUR_LIMIT]
    chosen = {n.memory.ref for n in close}
    facets = candidate_facets(candidate)
    new = candidate_reading(candidate)
    for neighbour in scored:
        if neighbour.memory.ref in chosen:
            continue
        # Sharing an attribute, or linked by a word, a kind or a person (`updates.link`; the
        # close ones by cosine are those above, up to the limit).
        if (facets and shares_attribute(facets, neighbour.memory.facets)) or link(
            new, neighbour.memory.reading, 0.0
        ):
            close.append(neighbour)
            chosen.add(neighbour.memory.ref)
    return close


def _change(new: Reading, old: Reading, similarity: float) -> Update | None:
    """The change the new fact makes to the old one: read on a link (`updates.update`),
    announced by a change cue to a close fact (`cued_changes.cued_change`), another value of
    a slot the user says holds one (`cued_changes.slot_changed`), another kind of the same
    thing or another number, announced (`modifier_changed`, `number_changed`)."""
    return (
        update(new, old, similarity)
        or cued_change(new, old, similarity, link(new, old, similarity))
        or slot_changed(new, old)
        or modifier_changed(new, old)
        or number_changed(new, old, similarity)
    )


def _change_dated(candidate: Candidate, new: Reading, neighbour: Neighbour) -> Update | None:
    """The change read (`_change`), or a dated one where none is read or it is for review only:
    a date the user gave says when the old fact ended (`dated_updates.dated_update`)."""
    old = neighbour.memory.reading
    change = _change(new, old, neighbour.similarity)
    if change is None or change.held:
        return dated_update(candidate, new, old, neighbour.memory.stated_on) or change
    return change


def changes_found(candidate: Candidate, neighbours: list[Neighbour]) -> Judgement | None:
    """The active memories the candidate says no longer hold (`updates.update`), as a
    contradiction; None when it changes none."""
    new = candidate_reading(candidate)
    found = [
        (neighbour, change)
        for neighbour in neighbours
        if neighbour.memory.status == Memory.Status.ACTIVE
        and (change := _change_dated(candidate, new, neighbour))
    ]
    # A correction changes the one linked fact nearest in wording ("I misspoke, I'm actually
    # right-handed" corrects "left-handed", not every fact about the user it links to).
    corrections = [(n, c) for n, c in found if c.correction]
    if corrections:
        nearest = max(corrections, key=lambda pair: pair[0].similarity)
        found = [(n, c) for n, c in found if not c.correction or (n, c) == nearest]
    if not found:
        return None
    return Judgement(
        Verdict.CONTRADICTS,
        refs=tuple(n.memory.ref for n, _ in found),
        reason="; ".join(dict.fromkeys(change.reason for _, change in found)),
        explicit_update=all(change.automatic for _, change in found),
        held=all(change.held for _, change in found),
    )


def rules_judgement(candidate: Candidate, neighbours: list[Neighbour]) -> Judgement:
    """The rules' reading of a candidate against its neighbours: the facet comparison
    (`memories.comparison`), then the update reading (`extraction.updates`), then a
    restatement."""
    facets = candidate_facets(candidate)
    reading = candidate_reading(candidate)  # "another cat" restates no cat
    contradicted: list[tuple[Neighbour, str, bool]] = []
    same: tuple[Neighbour, str] | None = None
    for neighbour in neighbours:
        found = compare(facets, neighbour.memory.facets)
        if found is None:
            continue
        if found.verdict == Verdict.CONTRADICTS:
            if neighbour.memory.status == Memory.Status.ACTIVE:
                contradicted.append((neighbour, found.reason, found.explicit_update))
        elif same is None and not reading.additive and keeps_both(candidate, neighbour.memory):
            same = (neighbour, found.reason)
    if contradicted:
        return Judgement(
            Verdict.CONTRADICTS,
            refs=tuple(n.memory.ref for n, _, _ in contradicted),
            reason="; ".join(dict.fromkeys(reason for _, reason, _ in contradicted)),
            explicit_update=any(update for _, _, update in contradicted),
        )
    changed = changes_found(candidate, neighbours)
    if changed is not None:
        return changed
    if same is not None:
        return Judgement(Verdict.SAME, refs=(same[0].memory.ref,), reason=same[1])
    for neighbour in neighbours:  # nearest first: the same fact in other words
        if said_again(candidate, neighbour, neighbour.memory.reading):
            return Judgement(Verdict.SAME, refs=(neighbour.memory.ref,),
                             reason="the same fact in other words")  # fmt: skip
    return Judgement(Verdict.NEW)


def checked_judgement(
    advice: Judgement | None,
    rules: Judgement,
    candidate: Candidate,
    by_ref: dict[str, Neighbour],
) -> Judgement:
    """The judgement to act on: the LLM's `advice` where independent evidence agrees, else the
    rules' reading (a pure function; see `_decide_one`)."""
    if advice is None or advice.signal == ReviewItem.Signal.RULES:
        return advice or rules
    known = [by_ref[ref] for ref in advice.refs if ref in by_ref]
    if advice.verdict == Verdict.SAME:
        # The model's word and the words' agreement (`advised_same_fact`), never where the
        # rules read a change: a contradiction merged away would lose the new value.
        if known and (
            same_fact(candidate, known[0])
            if rules.verdict == Verdict.CONTRADICTS
            else advised_same_fact(candidate, known[0])
        ):
            return Judgement(Verdict.SAME, refs=(known[0].memory.ref,), reason=advice.reason,
                             signal=advice.signal)  # fmt: skip
        # Not that fact after all: what the rules read (a contradiction, a restatement of
        # another memory they confirmed), or a new fact; never lost.
        return rules
    if advice.verdict == Verdict.NEW and not (advice.explicit_update and known):
        # The model missed what the rules read as a contradiction (or a restatement): the
        # structured reading is independent evidence, and holding a fact loses nothing.
        return rules if rules.verdict != Verdict.NEW else advice
    # A contradiction, or "new" that announces an update of named memories: taken only for a
    # pair the linker links (the same person, attribute, word, kind or wording; facts about
    # different people never conflict).
    reading = candidate_reading(candidate)
    refs = tuple(
        n.memory.ref
        for n in known
        if link(reading, n.memory.reading, n.similarity) and not _says_less(reading, n.memory)
    )
    if not refs:
        return rules
    return Judgement(
        Verdict.CONTRADICTS,
        refs=refs,
        reason=advice.reason or "contradicts an existing memory",
        signal=advice.signal,
        explicit_update=advice.explicit_update or rules.explicit_update,
    )


def _says_less(new: Reading, memory: KnownMemory) -> bool:
    """Whether the stored wording says everything the new one does, and the user's words
    announce no change ("User is on Netflix" of "User is on the Netflix plan with ads"): a
    fact that says less than the stored one is no update of it, whatever a model answers."""
    old = reading(memory.caption)
    return restated_in_words(new, old, kept=old)


def _decide_one(
    position: int,
    candidate: Candidate,
    vector: np.ndarray,
    known: list[KnownMemory],
    advice: Advice,
    supersede: bool,
) -> Decision:
    digest = content_hash(candidate.full_text)
    duplicate = next((memory for memory in known if memory.content_hash == digest), None)
    if duplicate is not None and normalise_text(duplicate.caption) != normalise_text(
        candidate.caption
    ):
        # One full text for two facts (a model's summary of both): the fact is its caption,
        # which is decided on its own, never skipped as said already.
        candidate = replace(candidate, full_text=f"{candidate.caption.rstrip('.')}.")
        digest = content_hash(candidate.full_text)
        duplicate = next((memory for memory in known if memory.content_hash == digest), None)
    if duplicate is not None:  # an exact duplicate
        return Decision(candidate, Action.SKIP, digest, vector, target=duplicate.ref)
    neighbours = neighbours_find(candidate, vector, known)
    # A judgement may name any known memory (the LLM saw the neighbours before the earlier
    # candidates of this conversation were added).
    by_ref = {m.ref: Neighbour(m, _similarity(vector, m)) for m in known}
    judgement = checked_judgement(
        advice(position, candidate, neighbours),
        rules_judgement(candidate, neighbours),
        candidate,
        by_ref,
    )
    judgement = _dated_change(judgement, candidate, by_ref)

    if judgement.verdict == Verdict.CONTRADICTS:
        # Only what was stored before this conversation can be contradicted: its own
        # statements were said at one time, and a change said within it ("i was a nurse, now
        # i'm a paralegal", "sorry, i meant 34") is read by the clause reader, not held.
        conflicts = tuple(
            Conflict(ref, by_ref[ref].similarity)
            for ref in judgement.refs
            if ref in by_ref
            and by_ref[ref].memory.status == Memory.Status.ACTIVE
            and not _said_now(ref)
        )
        if conflicts:
            action = Action.SUPERSEDE if supersede and judgement.explicit_update else Action.HOLD
            return Decision(
                candidate,
                action,
                digest,
                vector,
                similarity=max(c.similarity for c in conflicts),
                conflicts=conflicts,
                reason=judgement.reason or "contradicts an existing memory",
                signal=judgement.signal,
            )
    target = None
    if judgement.verdict == Verdict.SAME:
        target = next((by_ref[ref] for ref in judgement.refs if ref in by_ref), None)
    elif neighbours and neighbours[0].similarity >= NEAR_DUPLICATE_SIMILARITY:
        target = neighbours[0]  # a near-identical wording is a restatement if nothing differs
    # The LLM's "same" was checked against the words already (`checked_judgement`).
    advised = judgement.verdict == Verdict.SAME and judgement.signal != ReviewItem.Signal.RULES
    evidence = advised_same_fact if advised else same_fact
    if target is not None and evidence(candidate, target):
        if target.memory.status != Memory.Status.ACTIVE:
            # Restating a pending conflict adds nothing until it is reviewed.
            return Decision(
                candidate,
                Action.SKIP,
                digest,
                vector,
                target=target.memory.ref,
                similarity=target.similarity,
            )
        return Decision(
            candidate,
            Action.MERGE,
            digest,
            vector,
            target=target.memory.ref,
            similarity=target.similarity,
            reason=judgement.reason,
            signal=judgement.signal,
        )
    return Decision(candidate, Action.INSERT, digest, vector)


def _dated_change(judgement: Judgement, candidate: Candidate, by_ref: dict) -> Judgement:
    """A fact said to begin after the memories it meets were last said is a change the user
    dated ("two cats" said in April; "three cats now, took in a stray in December" in January),
    never a restatement nor a doubt: it replaces them (an announced update)."""
    begins, met = candidate.valid_from, [by_ref[r].memory for r in judgement.refs if r in by_ref]
    if begins is None or not met or any(m.stated_on is None or m.stated_on >= begins for m in met):
        return judgement
    if judgement.verdict == Verdict.SAME and not different_people(candidate, met[0]):
        return replace(judgement, verdict=Verdict.CONTRADICTS, refs=(met[0].ref,),
                       reason="began after it was last said", explicit_update=True)  # fmt: skip
    # Closed at once: the facts it is linked to, never one it is only close to by cosine.
    met_by = [(m.ref, m.reading, by_ref[m.ref].similarity) for m in met]
    linked = dated_refs(candidate_reading(candidate), met_by)
    if judgement.verdict != Verdict.CONTRADICTS or not linked or judgement.held:
        return judgement
    return replace(judgement, refs=linked, explicit_update=True)


def _learn(known: list[KnownMemory], decision: Decision, position: int) -> None:
    """Update `known` as if the decision had been applied (see `memory_merge`)."""
    candidate = decision.candidate
    if decision.action == Action.MERGE:
        target = next(memory for memory in known if memory.ref == decision.target)
        # A merge keeps the more detailed wording, and with it that wording's hash and vector.
        target.stored_facets = tuple(dict.fromkeys((*target.facets, *candidate_facets(candidate))))
        if len(candidate.full_text) > len(target.full_text):
            target.caption = candidate.caption
            target.full_text = candidate.full_text
            target.content_hash = decision.content_hash
            target.vector = decision.vector
        return
    if decision.action == Action.SKIP:
        return
    if decision.action == Action.SUPERSEDE:
        refs = {conflict.ref for conflict in decision.conflicts}
        for memory in known:
            if memory.ref in refs:
                memory.status = Memory.Status.SUPERSEDED
    known.append(
        KnownMemory(
            ref=new_ref(position),
            caption=candidate.caption,
            full_text=candidate.full_text,
            category=candidate.category,
            status=Memory.Status.PENDING_REVIEW
            if decision.action == Action.HOLD
            else Memory.Status.ACTIVE,
            content_hash=decision.content_hash,
            vector=decision.vector,
        )
    )
