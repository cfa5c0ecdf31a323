"""Standing constraints: the user's facts that shape the answer to any open request for help.

"Any ideas for a weekend away?" needs "User is afraid of flying"; "what should I bring to the
housewarming?" needs "User has been sober for four years". No list of topics can say which
request each such fact shapes, and the sentence encoder puts them far apart. What they share is
their form: a limit, a reaction, a fear or a condition of the user's ("can't", "allergic",
"reacts", "afraid of", "syndrome": closed-class words, `core/lexicons/standing_cues.txt`), or
a fact of the health domain (`recall.domains`). Such a fact answers a request whose answer
the user's facts shape (`recall.domains.asks_by_meaning`) that nothing else answers, when it
is at least half a standard deviation closer to the prompt than the user's average memory
(`recall.ranking.RankingParams.standing_z`).
"""

from __future__ import annotations

import tomllib
from functools import cache

import numpy as np

from core.lexicon import lexicon
from core.words import words_of
from memories.facets import facets_read
from recall.domains import DOMAINS_FILE, NAMES

_HEALTH = NAMES.index("health")
# A memory this much of the health domain (its words or its vector) is a standing fact.
HEALTH_MEMBERSHIP = 0.6
# The registry's attribute of a taste ("User can't stand horror films").
TASTE = "likes"


def standing_rows(captions: list[str], memberships: np.ndarray, others: np.ndarray) -> np.ndarray:
    """(n,) whether each memory is a standing constraint of the user's own: a caption using a
    word of `standing_cues` or a condition said as a state (`condition_states`: "coeliac",
    "colour blind"), or a fact of the health domain. A taste (the registry's `likes`: "User
    can't stand horror films") is a preference, not a limit: it shapes the requests about
    its own topic, which reach it otherwise ("set up my editor for a new project" got the
    horror films). Facts about the user's people are not the user's constraints (a prompt
    about them reaches their facts otherwise)."""
    cues = lexicon("standing_cues") | lexicon("condition_states")
    by_words = np.array(
        [bool(set(words_of(caption)) & cues) and not _taste(caption) for caption in captions],
        dtype=bool,
    ).reshape(len(captions))
    health = (
        memberships[:, _HEALTH] >= HEALTH_MEMBERSHIP
        if memberships.size
        else np.zeros(len(captions), dtype=bool)
    )
    return (by_words | health) & ~others


def _taste(caption: str) -> bool:
    """Whether a caption states what the user likes or dislikes (the registry's `likes`)."""
    return any(facet.attribute == TASTE for facet in facets_read(caption))


@cache
def _plan_columns() -> np.ndarray:
    """The columns of the life domains `domains.toml` marks `plans = true` (a trip, an event,
    a night out): what a request to go somewhere or do something with others needs."""
    table = tomllib.loads(DOMAINS_FILE.read_text(encoding="utf-8"))
    return np.array([NAMES.index(name) for name, entry in table.items() if entry.get("plans")])


def plans_need(meaning: np.ndarray | None) -> float:
    """How much a prompt's meaning (`recall.domains.agreed`, what its vector supports) needs a
    domain of plans: "which rides should I go on at the theme park", "we're off to Portugal
    for a fortnight". Such a plan is shaped by what the user can and cannot do, whatever the
    place or the event, so it reaches the standing constraints (recall.ranking)."""
    columns = _plan_columns()
    if meaning is None or not columns.size:
        return 0.0
    return float(meaning[columns].max())
