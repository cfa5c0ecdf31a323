"""Scoring one user's index against a prompt: vector, lexical, and their fusion with a floor.

Pure numpy over an in-memory index, so a ranking costs tens of microseconds. Every parameter
was tuned on LoCoMo conversations 0-4 and the off-topic set only (docs/benchmarks.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.lexicon import lexicon
from integrations.embeddings import (
    HASHING_MODEL_ID,
    LOCAL_MODEL_ID,
    LOCAL_QUANTIZED_MODEL_ID,
    OPENAI_MODEL_ID,
)
from recall.dated import Named
from recall.domains import need, shaped_need
from recall.index import UserIndex
from recall.lexical import derived_terms, generic_terms
from recall.standing import plans_need

MODES = ("vector", "lexical", "hybrid", "llm", "hybrid+llm")


@dataclass(frozen=True)
class RankingParams:
    """The knobs of the ranker (the defaults are the dev-split tuning)."""

    # Fusion: weight of the cosine against BM25 divided by the prompt's best BM25.
    vector_weight: float = 0.7
    # Hubness correction: a memory close to many others is close to many prompts too, so its
    # mean similarity to its nearest fellow memories is taken off, this much (ranking only).
    hub_weight: float = 0.7
    # Context: memories written together (same source session) explain each other, so a
    # memory gains from its best-scoring neighbour and from the best memory of its session.
    neighbour_weight: float = 0.2
    session_weight: float = 0.5
    # Relevance floor. The prompt is about the user at all only if some memory is close
    # (cosine >= strong_cosine) or fairly close and shares a content word; otherwise the
    # answer is empty. Then a memory is returned only if its score is at least
    # `relative_floor` of the best one.
    strong_cosine: float = 0.25
    weak_cosine: float = 0.20
    relative_floor: float = 0.2
    # Life domains (recall.domains), for requests for personal help only: a memory whose
    # domain the prompt needs gains `need_weight` times that need, and clears the floor with a
    # need of at least `need_floor` and a cosine of at least `need_cosine`.
    need_weight: float = 0.5
    need_floor: float = 0.5
    need_cosine: float = 0.0
    # ... and only if it is at least this many standard deviations above the user's mean
    # cosine to the prompt: a domain reaches every memory in it, and one that is further from
    # the prompt than the user's average memory is no evidence that the prompt is about them
    # ("my cat keeps sneezing" needs pets and home, but "User lives in Leeds" says nothing of
    # a cat). Relative to the user's own memories, so no scale to calibrate per model; off
    # (-inf) for the hashing embedder, whose cosines measure shared words, not meaning: a
    # memory sharing none sits at noise around 0 whatever it is about.
    need_z: float = 0.0
    # Two independent signals must agree: a domain the prompt's vector needs too (`Query.agreed`)
    # and a memory of it at least as close as the user's average memory; or a domain named
    # only by a word of the prompt and a memory standing out this far above the user's mean
    # cosine ("tips for my first marathon" uses a word of health, and "User has RSI in his
    # wrist" is no closer to it than the user's other memories), unless the prompt asks for a
    # judgement for the user (`Query.judgement`). Off with `need_z`.
    word_need_z: float = 1.0
    # A kind of fact that shapes answers (recall.shaping) matched this well on both sides, the
    # prompt's request and the memory's fact, is evidence of its own: the memory clears the
    # floor from this far below the user's mean cosine to the prompt.
    shaped_floor: float = 0.8
    shaped_z: float = -1.0
    # A standing constraint of the user's (recall.standing: "User can't swim") answers a
    # request whose answer the user's facts shape, read so by its meaning at least this much
    # (`Query.asks`, recall.domains.ASKS_BY_MEANING's scale), when nothing else answers it and
    # the fact is at least this far above the user's mean cosine to the prompt; it then gains
    # this much times `Query.asks`. No topic decides it: the form of the fact and of the
    # request do.
    standing_asks: float = 0.6
    standing_z: float = 0.5
    standing_weight: float = 0.3
    # A request to plan going somewhere or doing something with others (its meaning needs a
    # domain of plans, `recall.standing.plans_need`, this much: a trip, a day out, an event)
    # is one a limit, a fear or a condition shapes whatever the plan: when nothing else
    # answers, the standing constraints no further than this below the user's mean cosine to
    # the prompt answer it, though it reads as none of the shaping kinds' requests.
    plan_need: float = 0.5
    plan_z: float = -0.5
    # A general question about an event naming none (recall.domains.episodic) is about the
    # user only if a memory is this close (cosine).
    episodic_cosine: float = 0.5
    # A prompt about the user themself ("where do i live?") is answered by the user's own
    # facts: a fact about one of their people keeps this share of its score (ranking only).
    others_weight: float = 0.25
    # ... and a prompt naming some of them ("my mate's party") ranks the facts about the
    # others at this share: it may still need them ("the anniversary of mum's death" needs
    # the father's), less often than a prompt about the user alone.
    unnamed_weight: float = 0.5
    # A prompt naming a calendar day or month ("what did I say on 3 June, 2023?",
    # recall.dated) prefers what the user said then: a memory stated in that span, or up to
    # `dated_after` days after it (told a few days later), gains this much (ranking only: a
    # date opens no answer).
    dated_weight: float = 0.2
    dated_after: int = 3
    # A prompt's word no memory uses meets the words it derives from or that derive from it
    # ("adopt" and "adoption", recall.lexical.derived_terms), at this share of a shared word's
    # BM25 (ranking only: a derived word opens no answer).
    derived_weight: float = 1.0


DEFAULT_PARAMS = RankingParams()

# The cosine floors depend on a model's similarity scale, so each model has its own. MiniLM's
# were tuned on the off-topic set (its quantized run gives vectors within 0.99 cosine of the
# shipped one); the hashing embedder's follow from its construction (one shared word of ten
# gives about 0.1); OpenAI's are an uncalibrated first guess (unrelated texts sit near 0.1
# there): check them with `bench_recall --offtopic` before relying on them.
_FLOORS = {
    LOCAL_MODEL_ID: (0.25, 0.20),
    LOCAL_QUANTIZED_MODEL_ID: (0.25, 0.20),
    HASHING_MODEL_ID: (0.10, 0.05),
    OPENAI_MODEL_ID: (0.30, 0.22),
}


def params_for(model_id: str) -> RankingParams:
    """The ranking parameters calibrated for vectors of `model_id`."""
    if model_id not in _FLOORS:
        return DEFAULT_PARAMS
    strong, weak = _FLOORS[model_id]
    hashing = model_id == HASHING_MODEL_ID
    return replace(
        DEFAULT_PARAMS,
        strong_cosine=strong,
        weak_cosine=weak,
        need_z=-np.inf if hashing else DEFAULT_PARAMS.need_z,
        word_need_z=-np.inf if hashing else DEFAULT_PARAMS.word_need_z,
    )


@dataclass(frozen=True)
class Ranked:
    """Rows of the index, best first, with their scores, and the signals behind them on demand."""

    rows: np.ndarray
    scores: np.ndarray
    # With `explain`: one dict of signals per row, or why nothing was returned.
    signals: tuple[dict[str, float], ...] = ()
    why_empty: dict | None = None


_NO_ROWS = np.zeros(0, dtype=np.int64)
_NO_SCORES = np.zeros(0, dtype=np.float32)
# Every row (a mask of `rank` left unset).
_all = slice(None)


def _empty(why: dict | None = None) -> Ranked:
    return Ranked(rows=_NO_ROWS, scores=_NO_SCORES, why_empty=why)


def _context_boost(index: UserIndex, scores: np.ndarray, params: RankingParams) -> np.ndarray:
    """Add the best neighbour's and the best same-session memory's score to each memory."""
    positive = np.maximum(scores, 0)
    boosted = scores.copy()
    if params.neighbour_weight:
        padded = np.append(positive, 0.0)  # row -1 (no neighbour) reads the 0 at the end
        neighbour = np.maximum(padded[index.previous], padded[index.following])
        boosted += params.neighbour_weight * neighbour
    if params.session_weight:
        best = np.zeros(index.group_count, dtype=positive.dtype)
        np.maximum.at(best, index.groups, positive)
        boosted += params.session_weight * best[index.groups]
    return boosted


@dataclass(frozen=True)
class Query:
    """What the ranker knows of a prompt: its vector, its terms, and its need for the user."""

    vector: np.ndarray | None
    terms: list[str]
    # A request for personal help ("plan my weekend"), or a question anyone could ask
    # ("how long do cats live?"); a prompt can be neither ("holiday city visited").
    personal: bool = False
    general: bool = False
    # (D,) how much the prompt belongs to each life domain (recall.domains).
    domains: np.ndarray | None = None
    # (D,) the part of `domains` the prompt's vector supports (recall.domains.agreed); None
    # without a vector.
    agreed: np.ndarray | None = None
    # About the user themself, naming none of their people (recall.domains.about_self).
    about_self: bool = False
    # A question asking for a judgement for the user ("is it safe for me to use the sauna at
    # the gym?", recall.domains.asks_judgement): a domain its words name is evidence enough.
    judgement: bool = False
    # The user's people the prompt names (recall.lexical.people_named): "can I eat the
    # cheesecake at my mate's party" is about the user and a mate, not their dog.
    named: frozenset[str] = frozenset()
    # A general question about an event naming none (recall.domains.episodic).
    episodic: bool = False
    # How much the prompt reads as a request whose answer the user's facts shape, by its
    # meaning (the best of recall.shaping's kinds, 0..1): "what should I bring to the
    # housewarming?", not "how do I fix a squeaky hinge".
    asks: float = 0.0
    # The days the prompt names, as proleptic ordinals, both ends included (recall.dated).
    days: Named | None = None


def rank(
    *,
    index: UserIndex,
    query: Query,
    mode: str,
    limit: int,
    params: RankingParams | None = None,
    explain: bool = False,
    allowed: np.ndarray | None = None,
) -> Ranked:
    """Rank the index for one prompt; a query without a vector ranks lexically. `allowed`
    (a row mask) keeps the rest out of the answer and of the floor (`recall.timeline`: the
    facts that hold today, or held on a day); None ranks every row."""
    params = params or params_for(index.model_id)
    if index.size == 0 or limit <= 0 or (allowed is not None and not allowed.any()):
        return _empty({"reason": "no memories"} if explain else None)
    lexical = index.bm25(query.terms)
    vector = query.vector
    if vector is None or index.vectors.shape[1] != vector.shape[0]:
        mode = "lexical"
        cosine = None
    else:
        cosine = index.vectors @ vector
    needed = None
    shaped = None
    by_meaning = None
    elsewhere = _elsewhere(index, query)
    base = None
    standing = None
    lift = None  # what each standing constraint gained (explain's "standing")
    if mode == "hybrid" and query.personal and query.domains is not None:
        needed = need(query.domains, index.domains)
        shaped = shaped_need(query.domains, index.domains)
        if query.agreed is not None:
            by_meaning = need(query.agreed, index.domains)
        if query.about_self and elsewhere is not None:
            # A prompt about the user themself needs their own facts of its domains, not
            # their people's ("tips for my first marathon": not the mother's allergy).
            needed = np.where(elsewhere, 0.0, needed)
            shaped = np.where(elsewhere, 0.0, shaped)
            if by_meaning is not None:
                by_meaning = np.where(elsewhere, 0.0, by_meaning)

    if mode == "lexical":
        scores = lexical
        candidates = np.flatnonzero((lexical > 0) if allowed is None else (lexical > 0) & allowed)
    elif mode == "vector":
        assert cosine is not None  # without a vector the mode is lexical
        if not (cosine >= params.strong_cosine)[_all if allowed is None else allowed].any():
            return _empty(_why(params.strong_cosine, cosine, None, params) if explain else None)
        scores = cosine
        candidates = np.arange(index.size) if allowed is None else np.flatnonzero(allowed)
    else:
        assert cosine is not None  # without a vector the mode is lexical
        if query.general and not query.episodic:
            # A question about the world ("how do bees make honey?") is answered from
            # knowledge even when the user keeps bees: however close a memory is, it is not
            # what was asked. A question about the user's world names them or their people
            # (recall.selectors), or asks for a judgement that depends on them (recall.domains).
            return _empty(_why_general(cosine) if explain else None)
        if query.general:
            # An event named by no name ("what was discussed in the workshop?", "when's choir
            # practice?") may be one of the user's life: only a memory this close tells it is.
            strong = cosine >= params.episodic_cosine
        else:
            # A shared word is evidence only when it is not one every caption uses ("name" of
            # "what should I name my sourdough starter" and of "User's name is Ines").
            terms = [t for t in query.terms if t not in generic_terms()]
            specific = lexical if len(terms) == len(query.terms) else index.bm25(terms)
            strong = (cosine >= params.strong_cosine) | (
                (cosine >= params.weak_cosine) & (specific > 0)
            )
            if index.names is not None:
                # The user's name is placed by its sound ("Segun" and "an app to learn
                # Spanish"): it opens an answer only when the prompt is close to it.
                strong &= ~index.names | (cosine >= params.episodic_cosine) | (specific > 0)
        if needed is not None:
            # A personal request reaches what its domains need, even without a shared word.
            z = (cosine - cosine.mean()) / max(float(cosine.std()), 1e-6)
            agreeing = (z >= params.word_need_z) | query.judgement
            if by_meaning is not None:
                agreeing = agreeing | (by_meaning >= params.need_floor)
            if query.named and elsewhere is not None:
                # A prompt naming some of the user's people is about them: a fact about
                # another does not make it about the user's world through a domain ("my
                # puppy" and the mother's shellfish allergy), though it may rank if it is.
                agreeing = agreeing & ~elsewhere
            strong |= (
                (needed >= params.need_floor)
                & (cosine >= params.need_cosine)
                & (z >= params.need_z)
                & agreeing
            )
            if shaped is not None:
                shaped_reach = (shaped >= params.shaped_floor) & (z >= params.shaped_z)
                if query.named and elsewhere is not None:
                    shaped_reach &= ~elsewhere
                strong |= shaped_reach
            if not strong.any():
                # Only when nothing else opens the answer: with other evidence the constraints
                # rank as they are (lifted over it, they pushed needed memories out of the top
                # 3 on needs_dev and needs_dev2; for plans too, on needs_dev).
                standing = _standing(index, query, z, params)
                if standing is not None:
                    strong |= standing
        # A fact the user had ("User did Spanish at school") says a prompt is about them as
        # well as one they have; only the facts `allowed` answer it.
        if not strong.any():
            floor = params.episodic_cosine if query.general else params.strong_cosine
            return _empty(_why(floor, cosine, needed, params) if explain else None)
        if params.derived_weight and (
            derived := derived_terms(query.terms, index.vocabulary, index.terms)
        ):
            lexical = lexical + params.derived_weight * index.bm25(derived)
        top = float(lexical.max())
        w = params.vector_weight
        # A hub estimate needs many fellow memories: in a small corpus the nearest twenty are
        # most of it, so the correction grows with the corpus and is full from 101 memories.
        hub = params.hub_weight * min(1.0, (index.size - 1) / 100)
        corrected = cosine - hub * index.hubness
        lexical_part = lexical / top if top > 0 else lexical
        base = w * corrected + (1 - w) * lexical_part
        if query.days is not None and index.stated is not None and params.dated_weight:
            said = query.days.holds(index.stated, after=params.dated_after)
            base = base + params.dated_weight * said
        if needed is not None:
            base = base + params.need_weight * needed
            if standing is not None:
                lift = params.standing_weight * query.asks * standing
                base = base + lift
        scores = _context_boost(index, base, params)
        if elsewhere is not None:
            # The user's people a prompt about the user does not name rank after their own
            # facts; the animals they keep, and the people a prompt naming others leaves out,
            # less far (each may still be what it needs).
            weight = params.others_weight if query.about_self else params.unnamed_weight
            kept = index.others & ~elsewhere if query.about_self else np.zeros_like(elsewhere)
            if query.named:
                kept &= ~_rows(index, query.named)
            positive = np.maximum(scores, 0)
            scores = (
                scores
                - (1 - weight) * positive * elsewhere
                - (1 - params.unnamed_weight) * positive * kept
            )
        candidates = np.arange(index.size) if allowed is None else np.flatnonzero(allowed)
    if candidates.size == 0:
        return _empty({"reason": "no shared word", "mode": mode} if explain else None)
    order = candidates[np.argsort(-scores[candidates], kind="stable")[:limit]]
    ordered = scores[order]
    if params.relative_floor and ordered.size and ordered[0] > 0:
        keep = ordered >= params.relative_floor * ordered[0]
        order, ordered = order[keep], ordered[keep]
    signals: tuple[dict[str, float], ...] = ()
    if explain:
        signals = tuple(
            _signals(row, scores, base, lexical, cosine, index, params, needed, lift)
            for row in order
        )
    return Ranked(rows=order, scores=bounded(ordered), signals=signals)


def _standing(
    index: UserIndex, query: Query, z: np.ndarray, params: RankingParams
) -> np.ndarray | None:
    """(n,) the user's standing constraints a request reaches by their form (recall.standing),
    or None when the prompt is not such a request or the index knows none."""
    if index.standing is None or not index.standing.any():
        return None
    reach = np.zeros(index.size, dtype=bool)
    if query.asks >= params.standing_asks:
        reach |= z >= params.standing_z
    if plans_need(query.agreed) >= params.plan_need:
        reach |= z >= params.plan_z
    return index.standing & reach if reach.any() else None


def _elsewhere(index: UserIndex, query: Query) -> np.ndarray | None:
    """The rows about people the prompt is not about: the user's people (not the animals they
    keep) for a prompt about the user themself, those it does not name for one naming some;
    None when the prompt may be about any of them."""
    if not (query.about_self or query.named) or not index.others.any():
        return None
    # The animals the user keeps share their home and plans: a prompt about the user is
    # about them too ("rewiring the lamps" and the rabbits that chew cables).
    return index.others & ~_rows(
        index, query.named | (lexicon("animals") if query.about_self else frozenset())
    )


def _rows(index: UserIndex, words: frozenset[str]) -> np.ndarray:
    """(n,) whether each row is about one of the people or animals `words` name."""
    found = np.zeros(index.size, dtype=bool)
    for word in words:
        rows = index.whom.get(word)
        if rows is not None:
            found[rows] = True
    return found


def bounded(raw: np.ndarray) -> np.ndarray:
    """The score a client sees: the ranker's raw score (a sum of parts, above 1 when several
    agree) mapped to [0, 1) by 1 - exp(-raw). Monotone, so the order is the ranker's; only
    memories past the relevance floor are ever scored (docs/recall.md)."""
    return (1.0 - np.exp(-np.maximum(raw, 0.0))).astype(np.float32)


def _signals(
    row: int,
    scores: np.ndarray,
    base: np.ndarray | None,
    lexical: np.ndarray,
    cosine: np.ndarray | None,
    index: UserIndex,
    params: RankingParams,
    needed: np.ndarray | None,
    lift: np.ndarray | None = None,
) -> dict[str, float]:
    """What went into one memory's score (the trace of `explain=true`)."""
    found = {
        "score": round(float(bounded(scores[row : row + 1])[0]), 4),
        "raw_score": round(float(scores[row]), 4),
        "lexical": round(float(lexical[row]), 4),
    }
    if cosine is not None:
        found["cosine"] = round(float(cosine[row]), 4)
    if base is not None:  # hybrid
        hub = params.hub_weight * min(1.0, (index.size - 1) / 100)
        found["hubness_correction"] = round(-hub * float(index.hubness[row]), 4)
        found["domain"] = round(float(needed[row]), 4) if needed is not None else 0.0
        # What a standing constraint gained for a request nothing else answered.
        found["standing"] = round(float(lift[row]), 4) if lift is not None else 0.0
        # What the memory borrowed from its neighbours of the same source session.
        found["context_boost"] = round(float(scores[row] - base[row]), 4)
    return found


def _why_general(cosine: np.ndarray) -> dict:
    """Why a question about the world got no memory, and how close the closest one was."""
    return {
        "reason": "a question about the world, not about this user",
        "best_cosine": round(float(cosine.max()), 4) if cosine.size else None,
    }


def _why(
    floor: float, cosine: np.ndarray | None, needed: np.ndarray | None, params: RankingParams
) -> dict:
    """Why a prompt got no memory: nothing cleared the floor, and how close the best came."""
    why: dict = {
        "reason": "nothing about this user is close enough to the prompt",
        "floor": floor,
    }
    if cosine is not None and cosine.size:
        why["best_cosine"] = round(float(cosine.max()), 4)
    if needed is not None and needed.size:
        why["best_domain_need"] = round(float(needed.max()), 4)
        why["domain_floor"] = params.need_floor
        reached = needed >= params.need_floor
        if cosine is not None and reached.any() and np.isfinite(params.need_z):
            # The domain reached memories, but none closer to the prompt than the user's
            # average one: how far above that average the closest of them came.
            z = (cosine - cosine.mean()) / max(float(cosine.std()), 1e-6)
            why["best_domain_z"] = round(float(z[reached].max()), 4)
            why["domain_z_floor"] = params.need_z
    return why
