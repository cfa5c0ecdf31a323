"""A change the user announces is held (or superseded under `supersede`), on topics no rule was
written for: the new user's trial of issue 31, and the linker and cues it rests on."""

from __future__ import annotations

import uuid

import pytest

from extraction.candidates import Candidate
from extraction.cues import cues_of
from extraction.grounding import candidates_ground
from extraction.jobs import extraction_perform
from extraction.updates import lemma, link, reading, update
from memories.models import Memory, ReviewItem
from tests.scripted_llm import ScriptedLLM, fact

pytestmark = pytest.mark.django_db


def _say(tenant, user_id: uuid.UUID, text: str):
    return extraction_perform(
        tenant=tenant,
        external_id=user_id,
        messages=[{"role": "user", "content": text}, {"role": "assistant", "content": "Noted."}],
    )


def _active(user_id: uuid.UUID) -> list[str]:
    return list(
        Memory.objects.filter(end_user__external_id=user_id, status=Memory.Status.ACTIVE)
        .order_by("created_at")
        .values_list("caption", flat=True)
    )


def test_a_new_job_after_quitting_the_old_one_is_held_not_stored_beside_it(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "im a junior data analyst at an nhs trust")
    _say(tenant, user_id, "i quit the nhs job, im now a data scientist at monzo")

    active = _active(user_id)
    assert any("data analyst" in caption for caption in active)
    assert not any("data scientist" in caption for caption in active)
    item = ReviewItem.objects.get(new_memory__caption__contains="data scientist")
    assert item.existing_memories.get().caption == "User is a junior data analyst at an nhs trust"


def test_breaking_up_holds_the_boyfriend_fact(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "my boyfriend tom is a chef, he works crazy hours")
    _say(tenant, user_id, "tom and i broke up last month")

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    held = {memory.caption for memory in item.existing_memories.all()}
    assert "User's boyfriend Tom is a chef" in held
    assert item.new_memory.status == Memory.Status.PENDING_REVIEW


def test_under_supersede_moving_again_supersedes_the_old_city(tenant, offline, settings):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    user_id = uuid.uuid4()
    _say(tenant, user_id, "i live in bristol")
    _say(tenant, user_id, "moved again, im in manchester now")

    bristol = Memory.objects.get(caption="User lives in Bristol")
    assert bristol.status == Memory.Status.SUPERSEDED
    assert any("Manchester" in caption for caption in _active(user_id))
    assert ReviewItem.objects.get().auto_resolved


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # A polarity flip on a linked kind: a lamb kebab is meat, a beagle is a dog is a pet.
        ("I have no pets", "we adopted a beagle last week, any puppy training tips?"),
        ("I don't drink alcohol at all", "I usually have a glass of red wine with dinner"),
        # An end cue on a shared content word, lemmatised.
        ("I play the violin in a string quartet", "I stopped playing violin last year"),
        ("I drive a Fiat", "sold the car, I take the tram now"),
    ],
)
def test_an_announced_or_flipped_fact_on_a_linked_concept_is_held(tenant, offline, first, second):
    user_id = uuid.uuid4()
    _say(tenant, user_id, first)
    _say(tenant, user_id, second)

    assert ReviewItem.objects.filter(end_user__external_id=user_id).exists()


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I don't drink beer", "I do like a glass of red wine now and then"),
        ("I play tennis on tuesdays", "I also play squash now"),
        ("I grew up in Lyon", "I live in Paris now"),
        ("my sister lives in Oslo", "I live in Berlin now"),
        ("I'm vegetarian", "I do eat eggs and dairy though"),
    ],
)
def test_facts_that_hold_together_are_both_kept(tenant, offline, first, second):
    user_id = uuid.uuid4()
    _say(tenant, user_id, first)
    _say(tenant, user_id, second)

    assert not ReviewItem.objects.filter(end_user__external_id=user_id).exists()


def test_lemmas_meet_across_inflections_and_derivations():
    assert lemma("nursing") == lemma("nurse")
    assert lemma("smoking") == lemma("smokes") == lemma("smoke")
    assert lemma("allergies") == lemma("allergy")
    assert lemma("children") == lemma("kids")


def test_cues_are_read_and_their_exceptions_announce_nothing():
    assert cues_of("gave up caffeine completely") == {"ends"}
    assert cues_of("I'm in Leeds now") == {"starts"}
    assert cues_of("two months nail-biting free!") == {"ends"}
    assert cues_of("a glass of wine every now and then") == set()
    assert cues_of("married for six years now") == set()


def test_a_fact_about_the_user_links_to_their_person_only_by_that_person():
    boyfriend = reading("User's boyfriend Tom is a chef")
    assert link(reading("User broke up", "tom and i broke up"), boyfriend, 0.0)
    assert not link(reading("User lives in London"), reading("User's dad lives in Lagos"), 0.5)


def test_a_negation_of_a_narrower_thing_does_not_end_a_broader_one():
    wine = reading("User has a glass of red wine with dinner")
    assert update(reading("User doesn't drink alcohol"), wine, 0.4) is not None
    assert update(reading("User doesn't drink beer"), wine, 0.4) is None


def test_a_wish_updates_nothing():
    columbus = reading("User lives in Columbus")

    assert update(reading("User would love to live in Japan someday"), columbus, 0.5) is None
    assert update(reading("User is in Japan now"), columbus, 0.5) is not None


def test_only_an_announced_change_may_supersede():
    bristol = reading("User lives in Bristol")
    announced = update(reading("User is in Manchester now"), bristol, 0.5)
    unannounced = update(reading("User has lived in Vancouver all their life"),
                         reading("User lives in Toronto"), 0.5)  # fmt: skip
    assert announced is not None and announced.automatic
    assert unannounced is not None and not unannounced.automatic


def test_an_llm_caption_that_lost_the_cue_keeps_the_clause_it_was_grounded_in():
    messages = [{"role": "user", "content": "moved again, im in manchester now"}]

    [grounded], _ = candidates_ground([Candidate("User is in Manchester", "User is in Manchester")],
                                      messages)  # fmt: skip

    assert "now" in grounded.said.split()


def test_on_the_llm_path_the_users_own_cue_supersedes_under_supersede(
    tenant, llm_settings, settings
):
    settings.MEMORY_CONFLICT_POLICY = "supersede"
    llm = ScriptedLLM(llm_settings)
    llm.learn("bristol", fact("User lives in Bristol"))
    llm.learn("manchester", fact("User is in Manchester"))
    llm.contradict("User lives in Bristol", "User is in Manchester")
    user_id = uuid.uuid4()

    _say(tenant, user_id, "i live in bristol")
    _say(tenant, user_id, "moved again, im in manchester now")

    assert Memory.objects.get(caption="User lives in Bristol").status == Memory.Status.SUPERSEDED
    item = ReviewItem.objects.get()
    assert item.auto_resolved and item.signal == ReviewItem.Signal.LLM


def test_another_relation_to_a_value_of_the_same_kind_changes_nothing():
    leeds = reading("User lives in Leeds")

    assert update(reading("User works in Manchester now"), leeds, 0.4) is None
    changed = update(reading("User is in Manchester now"), leeds, 0.4)
    assert changed is not None and "'manchester'" in changed.reason


def test_another_of_a_thing_is_its_own_memory_not_merged_into_the_first(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "I have a cat")
    _say(tenant, user_id, "we got another cat")

    assert len(_active(user_id)) == 2


def test_a_plain_negation_ends_only_the_whole_of_what_it_negates():
    films = reading("User loves films")

    assert update(reading("User doesn't like horror films"), films, 0.4) is None
    assert update(films, reading("User doesn't like horror films"), 0.4) is None
    novel = reading("User works on their first novel")
    assert update(reading("User gave up on writing the novel"), novel, 0.4) is not None


def test_news_of_their_person_ends_what_was_said_of_them_but_changes_nothing_else():
    chef = reading("User's boyfriend Tom is a chef")

    assert update(reading("User and Tom got engaged", "tom and i got engaged"), chef, 0.3) is None
    assert update(reading("User broke up", "tom and i broke up"), chef, 0.3) is not None


def test_the_other_facts_of_the_users_clause_link_nothing():
    # "I live in Berlin and I work at Acme": the clause of one fact holds the other's words.
    said = "I live in Berlin and I work at Acme"
    berlin = reading("User lives in Berlin")

    assert not link(reading("User works at Acme", said), berlin, 0.0)


@pytest.mark.parametrize(
    "message",
    [
        "my uncle is 81 and still sails every summer, hes a retired ferry captain from oban",
        "bought a flat!! my brother is helping with the painting, hes a retired decorator",
        "been a night porter at a hotel for 6 years and i hate the weekend rotas",
        "im a pharmacist and i run the vaccine clinic at our branch, been there since 2018",
    ],
)
def test_the_facts_of_one_conversation_never_hold_each_other_for_review(tenant, offline, message):
    user_id = uuid.uuid4()
    _say(tenant, user_id, message)
    held = Memory.objects.filter(
        end_user__external_id=user_id, status=Memory.Status.PENDING_REVIEW
    ).values_list("caption", flat=True)
    assert list(held) == [] and len(_active(user_id)) >= 2, _active(user_id)


def test_a_person_written_two_ways_is_one_person_for_an_update(tenant, offline):
    user_id = uuid.uuid4()
    _say(tenant, user_id, "my mum lives in leeds, on her own since dad died")
    _say(tenant, user_id, "my mother moved to york last spring to be near us")

    item = ReviewItem.objects.get(end_user__external_id=user_id)
    assert "leeds" in item.existing_memories.get().caption.lower()
