"""Issue 32, session 40: a standing constraint of the user's (a limit, a reaction, a fear, a
condition) answers an open request for help that nothing else answers, with the real local
embedder; a request about nothing the user said still gets nothing. The class is read from the
form of the fact (closed-class words), never from a list of topics. Topics of no bench set."""

from __future__ import annotations

import numpy as np
import pytest

from memories.models import Memory
from recall.domains import COLUMNS, about_self
from recall.services import memory_recall_for_end_user
from recall.standing import standing_rows

pytestmark = pytest.mark.django_db

TRAM_DRIVER = (
    "User's name is Marisol",
    "User drives trams in Nottingham",
    "User lives in Beeston",
    "User had spinal fusion surgery last year",
    "User is frightened of large dogs",
    "User collects vintage postcards",
    "User is allergic to walnuts",
)
LIBRARIAN = (
    "User's name is Ilse",
    "User is a librarian at a university",
    "User lives in Norwich",
    "User is very sensitive to loud noise",
    "User never drives on motorways",
    "User is allergic to horses",
    "User has chronic fatigue syndrome",
    "User knits socks for charity",
)


@pytest.fixture
def marisol(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"  # the floors and the request kinds are MiniLM's
    remember(end_user, *TRAM_DRIVER, category=Memory.Category.PERSONAL)
    return end_user


@pytest.fixture
def ilse(settings, end_user, remember):
    settings.MEMORY_EMBEDDER = "local"
    remember(end_user, *LIBRARIAN, category=Memory.Category.PERSONAL)
    return end_user


def _captions(end_user, prompt: str) -> list[str]:
    recall = memory_recall_for_end_user(end_user=end_user, prompt=prompt, limit=10)
    return [memory.caption for memory in recall.memories]


def test_a_new_exercise_class_is_shaped_by_the_users_back_surgery(marisol):
    top3 = _captions(marisol, "I fancy trying a new exercise class, what would you suggest?")[:3]

    assert "User had spinal fusion surgery last year" in top3


def test_explain_shows_what_the_standing_constraint_gained(marisol):
    recall = memory_recall_for_end_user(
        end_user=marisol,
        prompt="I fancy trying a new exercise class, what would you suggest?",
        limit=10,
        explain=True,
    )
    lifted = {memory.caption for memory in recall.memories if memory.signals["standing"] > 0}

    assert lifted and lifted <= {
        "User had spinal fusion surgery last year",
        "User is frightened of large dogs",
        "User is allergic to walnuts",
    }


def test_a_festival_invitation_is_shaped_by_the_users_sensitivity_to_noise(ilse):
    top3 = _captions(ilse, "I've been invited to a music festival, should I go?")[:3]

    assert "User is very sensitive to loud noise" in top3


@pytest.mark.parametrize(
    "prompt",
    [
        "how do I fix a dripping tap",
        "how do I get limescale off my taps",
        "how do I stop my laptop overheating",
        "how do I clean a cast iron pan",
        "what's the best way to fold a fitted sheet",
    ],
)
def test_a_chore_the_users_constraints_do_not_touch_gets_nothing(marisol, prompt):
    assert _captions(marisol, prompt) == []


@pytest.mark.parametrize(
    ("caption", "standing"),
    [
        ("User is allergic to horses", True),
        ("User never drives on motorways", True),
        ("User is very sensitive to loud noise", True),
        ("User is autistic", True),  # a condition said as a state (condition_states)
        ("User can't stand jazz", False),  # a taste, not a limit
        ("User knits socks for charity", False),
        ("User lives in Norwich", False),
    ],
)
def test_a_standing_constraint_is_read_from_the_form_of_the_fact(caption, standing):
    found = standing_rows([caption], np.zeros((1, COLUMNS), np.float32), np.zeros(1, bool))

    assert bool(found[0]) is standing


def test_a_constraint_of_one_of_the_users_people_is_not_the_users_own():
    caption = "User's daughter is allergic to eggs"

    found = standing_rows([caption], np.zeros((1, COLUMNS), np.float32), np.ones(1, bool))

    assert not found[0]


@pytest.mark.parametrize(
    "prompt",
    ["any ideas for a long weekend in Vienna?", "cheapest way to get to Porto in March"],
)
def test_a_place_named_in_a_prompt_is_no_person_so_it_is_still_about_the_user(prompt):
    assert about_self(prompt)


def test_a_given_name_in_a_prompt_is_still_someone_else():
    assert not about_self("what should I get Hannah for her leaving do")
