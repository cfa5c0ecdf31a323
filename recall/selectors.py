"""Reads of recall: how one user's index ranks for a prompt.

Nothing here writes or calls the LLM: the recall itself (the LLM modes, access statistics and
the tenant's usage) is `recall.services.memory_recall`, built on these.
"""

from __future__ import annotations

import logging

import numpy as np
from django.conf import settings

from core.words import stem, words_of
from integrations.embeddings import EmbeddingError, embed_query
from recall.dated import days_named
from recall.domains import (
    about_self,
    agreed,
    asked_as_question,
    asked_by_meaning,
    asks_by_meaning,
    asks_judgement,
    episodic,
    full_name_firsts,
    given_names,
    names,
    needs_by,
    people_need,
    prompt_meaning,
    reading,
)
from recall.index import UserIndex
from recall.lexical import query_terms
from recall.people import people_named, relations_held
from recall.ranking import MODES, Query, Ranked, rank

logger = logging.getLogger(__name__)


def recall_mode_checked(mode: str | None) -> str:
    """`mode`, or the configured one when None; an unknown mode is refused."""
    mode = mode or settings.RECALL_MODE
    if mode not in MODES:
        raise ValueError(f"unknown recall mode {mode!r}; expected one of {', '.join(MODES)}")
    return mode


def memory_ranked(
    *,
    index: UserIndex,
    prompt: str,
    mode: str,
    limit: int,
    explain: bool = False,
    allowed: np.ndarray | None = None,
) -> tuple[Ranked, dict]:
    """The index's rows ranked for one prompt (`mode` is one of the ranker's: not an LLM one),
    only the `allowed` ones (a row mask; None: all) answered.

    With `explain`, also how the prompt was read and why an answer is empty (otherwise an
    empty dict)."""
    # A request ends with "?" or not as its writer pleases: "dinner ideas?" and "dinner ideas"
    # are one request, embedded and read alike (an assistant passes the "?" on). A prompt
    # asked as a question keeps its mark, as questions are written ("when did she move?").
    bare = prompt.strip().rstrip("?!.\u2026").rstrip()
    if bare and not asked_as_question(bare):
        prompt = bare
    query_vector = None
    if mode != "lexical":
        try:
            query_vector = embed_query(prompt)
        except EmbeddingError:
            # A down embedding provider degrades recall to lexical, it does not fail it.
            logger.warning("recall: query embedding failed, ranking lexically", exc_info=True)
    personal, general = reading(prompt)
    meaning = prompt_meaning(query_vector, index.model_id)
    # A request the words leave undecided ("a nice pudding for Sunday lunch") is one for help
    # when it means what a request the user's facts shape means.
    personal = personal or (not general and asks_by_meaning(meaning))
    wanted = needs_by(prompt, meaning) if personal else None
    # A question naming whom the memories are about ("When did Caroline move?") or one of the
    # user's people, capitalised or not ("what's a good time to phone claire"), or naming
    # someone their memories name ("Where did Oliver hide his bone?"), is about their world.
    full_names = full_name_firsts(prompt)
    general = general and not (
        any(_named_in(index, name) for name in set(names(prompt)) - full_names)
        or index.people_names
        & ({word.removesuffix("'s") for word in words_of(prompt)} - {n.lower() for n in full_names})
        or bool(relations_held(prompt) & index.whom.keys())
    )
    query = Query(
        vector=query_vector,
        terms=query_terms(prompt),
        personal=personal,
        general=general,
        domains=wanted,
        agreed=agreed(wanted, meaning),
        judgement=personal and asks_judgement(prompt),
        about_self=(own := about_self(prompt, index.people_names, people_need(meaning))),
        named=frozenset() if own else people_named(prompt, index.people_names),
        episodic=general and episodic(prompt),
        asks=asked_by_meaning(meaning),
        days=days_named(prompt),
    )
    ranked = rank(
        index=index, query=query, mode=mode, limit=limit, explain=explain, allowed=allowed
    )
    notes: dict = {}
    if explain:
        notes = {
            "personal_request": personal,
            "general_question": general,
            "about_self": query.about_self,
            **(ranked.why_empty or {}),
        }
    return ranked, notes


# The fewest letters of a name read as a short form of a longer one ("Mel", "Jo" is too few).
SHORT_NAME = 3


def _named_in(index: UserIndex, name: str) -> bool:
    """Whether a name the prompt uses is someone of the user's world: whom memories are about,
    or a person's given name their memories use ("Where did Oliver hide his bone?"). A place,
    a band or a book is not: "what's the population of Glasgow?" is a question about the
    world even from someone who lives there."""
    name = name.lower()
    if name in index.subjects:
        return True
    # "Mel" of "Melanie": a short form of whom memories are about.
    if len(name) >= SHORT_NAME and any(subject.startswith(name) for subject in index.subjects):
        return True
    return name in given_names() and stem(name) in index.terms


def ranked_as_picked(picked: list[int]) -> Ranked:
    """The rows the LLM chose, in its order, scored by position."""
    return Ranked(rows=np.array(picked, dtype=np.int64), scores=_positional(len(picked)))


def ranked_reordered(ranked: Ranked, picked: list[int] | None, *, limit: int) -> Ranked:
    """`ranked` reordered by the LLM's picks among its rows (None: kept as ranked), cut to
    `limit`; a pick's signals follow it."""
    rows, scores, signals = ranked.rows, ranked.scores, ranked.signals
    if picked is not None:
        rows, scores = rows[picked], _positional(len(picked))
        signals = tuple(signals[i] for i in picked) if signals else ()
    return Ranked(rows=rows[:limit], scores=scores[:limit], signals=signals[:limit])


def _positional(count: int) -> np.ndarray:
    """Scores for an order the LLM chose: 1.0 for its first pick, evenly down from there."""
    return np.linspace(1.0, 1.0 / max(count, 1), num=count, dtype=np.float32)
