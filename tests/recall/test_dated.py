"""A prompt naming a calendar day or month ("what did I do in the garden on 3 June, 2025?")
prefers what the user said then; a date alone opens no answer, and a month without its year
names no day."""

from __future__ import annotations

import datetime

import numpy as np
import pytest

from recall.dated import Named, days_named
from recall.services import memory_recall

pytestmark = pytest.mark.django_db

MARCH = datetime.datetime(2025, 3, 10, 9, 0, tzinfo=datetime.UTC)
JUNE = datetime.datetime(2025, 6, 3, 18, 0, tzinfo=datetime.UTC)


def _day(text: str) -> int:
    return datetime.date.fromisoformat(text).toordinal()


@pytest.mark.parametrize(
    ("prompt", "span"),
    [
        ("what did I say on 3 June, 2025?", ("2025-06-03", "2025-06-03")),
        ("what did I cook on June 3rd 2025", ("2025-06-03", "2025-06-03")),
        ("the talk on the 3rd of June 2025", ("2025-06-03", "2025-06-03")),
        ("what did we plan in February 2024?", ("2024-02-01", "2024-02-29")),
    ],
)
def test_a_day_or_a_month_with_its_year_is_read_as_its_span_of_days(prompt, span):
    assert days_named(prompt) == Named(_day(span[0]), _day(span[1]))


def test_a_month_said_as_a_time_without_its_year_is_that_month_of_any_year():
    june = days_named("where did we go camping in June?")
    said = [datetime.date(2023, 6, 30), datetime.date(2024, 7, 2), datetime.date(2024, 7, 9)]

    held = june.holds(np.array([day.toordinal() for day in said] + [0]), after=3)

    assert held.tolist() == [True, True, False, False]


@pytest.mark.parametrize(
    "prompt", ["my cat called May", "I may move on the 3rd", "run 3500 steps", "June is lovely"]
)
def test_a_month_not_said_as_a_time_or_a_bare_number_names_no_day(prompt):
    assert days_named(prompt) is None


def test_a_prompt_naming_a_day_ranks_what_was_said_that_day_first(tenant, end_user, remember):
    (weeded,) = remember(end_user, "User weeded the garden", stated_at=MARCH)
    (fence,) = remember(
        end_user, "User repainted the old garden fence with his neighbour", stated_at=JUNE
    )
    undated = memory_recall(
        tenant=tenant, external_id=end_user.external_id, prompt="what did I do in the garden"
    )
    assert undated.memories[0].id == weeded.id

    dated = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="what did I do in the garden on 3 June, 2025?",
    )

    assert [m.id for m in dated.memories][:2] == [fence.id, weeded.id]


def test_a_memory_said_on_the_day_named_but_about_something_else_is_not_recalled(
    tenant, end_user, remember
):
    remember(end_user, "User weeded the garden", stated_at=JUNE)

    recall = memory_recall(
        tenant=tenant,
        external_id=end_user.external_id,
        prompt="which film did I watch on 3 June, 2025?",
    )

    assert recall.memories == []
