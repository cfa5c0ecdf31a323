"""Issue 33, session 41: a prompt that names a time by what came after it ("which kettle did I
have before the Smeg?") is answered first by the past fact that ended when the named one began,
never by the named fact that shares its words."""

from __future__ import annotations

import datetime

import pytest

from memories.models import Memory
from recall.services import memory_recall
from recall.timeline import _anchor_words

pytestmark = pytest.mark.django_db

MAR = datetime.datetime(2023, 3, 6, 9, 0, tzinfo=datetime.UTC)
SWAP = datetime.date(2024, 2, 1)
OCT = datetime.datetime(2024, 10, 14, 9, 0, tzinfo=datetime.UTC)
BROKE = datetime.date(2025, 6, 1)


def test_the_fact_that_ended_when_the_named_one_began_comes_first(end_user, remember, tenant):
    (dualit,) = remember(
        end_user,
        "User's kettle is a Dualit that takes ages to boil",
        stated_at=MAR,
        status=Memory.Status.SUPERSEDED,
        valid_to=SWAP,
    )
    remember(
        end_user,
        "User switched to a cream Smeg kettle",
        stated_at=OCT,
        status=Memory.Status.SUPERSEDED,
        valid_from=SWAP,
        valid_to=BROKE,
    )
    remember(end_user, "User's Smeg kettle broke", stated_at=OCT, valid_from=BROKE)
    remember(end_user, "User has a Bosch kettle now", stated_at=OCT, valid_from=BROKE)

    found = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="which kettle did I have before the Smeg?",
    )

    assert [m.id for m in found.memories[:1]] == [dualit.id]
    assert found.memories[0].past


@pytest.mark.parametrize(
    ("prompt", "anchor"),
    [
        ("which kettle did I have before the Smeg?", ["smeg"]),
        ("who cut my hair prior to Marco?", ["marco"]),
        ("what did I do before that?", []),
        ("what kettle did I use to have?", []),
    ],
)
def test_the_words_after_before_name_the_later_fact(prompt, anchor):
    assert _anchor_words(prompt) == anchor
