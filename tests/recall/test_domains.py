"""Life domains: which prompts ask for personal help, and what they reach without a shared word."""

from __future__ import annotations

import numpy as np
import pytest

from recall.domains import COLUMN_NAMES, is_general, is_personal, membership, need, needs


@pytest.mark.parametrize(
    "prompt",
    [
        "Where should we go for dinner on Friday?",
        "Plan me a long weekend away.",
        "Can you make me a 4-week workout plan?",
        "any ideas for my sister's birthday?",
        "What's the weather going to be like this weekend?",
        # Apostrophes of contractions are not quotation marks hiding the "we" or the "my".
        "What's the traditional gift for the milestone we're hitting this year?",
        "I'm giving a talk at my kid's school, what should I say?",
        # Occasions that are always someone's own, even without an "I" or "my".
        "what's a good anniversary gift idea?",
        "ideas for date night",
    ],
)
def test_requests_for_personal_help_are_personal(prompt):
    assert is_personal(prompt) and not is_general(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "How long do cats usually live?",
        "What is the protein content of lentils?",
        'Translate "I would like a cup of tea, please" into German.',
        "Who was the first official world chess champion?",
        "Why are peanuts technically legumes rather than nuts?",
        "When is the anniversary of the moon landing?",
    ],
)
def test_questions_anyone_could_ask_are_general(prompt):
    assert is_general(prompt) and not is_personal(prompt)


def test_the_country_us_is_not_the_asker():
    assert not is_personal("Which US cities does John mention visiting?")
    assert is_personal("Can you help us find a flat?")


def test_a_terse_query_is_a_request_about_the_user_not_a_general_question():
    # What a tool-calling model sends through recall (issue #24): "dinner ideas".
    for query in ("holiday city visited", "dinner ideas", "editor config"):
        assert is_personal(query) and not is_general(query)
    assert not is_personal("what is the capital of peru")


@pytest.fixture
def local(settings):
    settings.MEMORY_EMBEDDER = "local"


def vectors(*texts: str) -> np.ndarray:
    from integrations.embeddings import embed_texts

    return embed_texts(list(texts))


def test_a_prompt_reaches_the_memory_its_domain_needs_without_a_shared_word(local):
    from integrations.embeddings import current_model_id

    model = current_model_id()
    facts = ["User is vegetarian", "User plays chess online", "User has a bad left knee"]
    domains = membership(facts, facts, vectors(*facts), model)
    dinner = "Where should we eat on Friday night?"
    workout = "Build me a gym routine for the next month"

    for prompt, expected in ((dinner, 0), (workout, 2)):
        wanted = needs(prompt, vectors(prompt)[0], model)
        found = dict(zip(COLUMN_NAMES, wanted, strict=True))
        assert int(np.argmax(need(wanted, domains))) == expected, (prompt, found)


@pytest.mark.parametrize(
    "prompt",
    [
        "where do I live?",
        "what city am I in these days",
        "what's my address again?",
        "Any good bakeries near me?",
        "what's the weather like at home today?",
    ],
)
@pytest.mark.parametrize(
    "fact",
    [
        "User recently moved to Porto",
        "User relocated to Berlin for work",
        "User's hometown is Cork",
    ],
)
def test_where_the_user_lives_is_reached_however_the_move_was_said(local, prompt, fact):
    from integrations.embeddings import current_model_id

    model = current_model_id()
    facts = [fact, "User works as a nurse", "User prefers green tea"]
    domains = membership(facts, facts, vectors(*facts), model)

    wanted = needs(prompt, vectors(prompt)[0], model)

    assert int(np.argmax(need(wanted, domains))) == 0
    assert need(wanted, domains)[0] > 0


@pytest.mark.parametrize(
    "prompt",
    ["my car is making a weird noise", "Where can I get my tyres changed?", "find me parking"],
)
def test_a_prompt_about_the_car_reaches_what_the_user_drives(local, prompt):
    from integrations.embeddings import current_model_id

    model = current_model_id()
    facts = ["User drives a 2015 Honda Civic", "User works as a nurse", "User is learning Japanese"]
    domains = membership(facts, facts, vectors(*facts), model)

    wanted = needs(prompt, vectors(prompt)[0], model)

    assert int(np.argmax(need(wanted, domains))) == 0 and need(wanted, domains)[0] > 0


@pytest.mark.parametrize(
    ("prompt", "fact"),
    [
        ("I need a new hobby", "User plays guitar in a band on weekends"),
        ("is it ok for me to drink coffee?", "User takes medication for high blood pressure"),
        ("can I take ibuprofen with my pills?", "User takes medication for high blood pressure"),
        ("help me write a cover letter", "User works remotely as a data analyst"),
    ],
)
def test_a_prompt_needs_the_domain_it_names_in_passing(local, prompt, fact):
    from integrations.embeddings import current_model_id

    model = current_model_id()
    facts = [fact, "User has a cat named Luna", "User's favorite cuisine is Thai food"]
    domains = membership(facts, facts, vectors(*facts), model)

    wanted = needs(prompt, vectors(prompt)[0], model)

    assert int(np.argmax(need(wanted, domains))) == 0 and need(wanted, domains)[0] >= 0.5


def test_every_domain_the_registry_names_is_a_recall_domain():
    from memories.attributes import registry
    from recall.domains import DOMAINS

    names = {domain.name for domain in DOMAINS}
    for entry in registry().values():
        assert set(entry.domains) <= names, (entry.name, set(entry.domains) - names)


def test_a_fact_the_registry_reads_belongs_to_its_domains_whatever_its_words():
    import numpy as np

    from recall.domains import DOMAINS, membership

    found = membership(["User is a paramedic"], ["User is a paramedic"], np.zeros((1, 3)), "x")

    work = [domain.name for domain in DOMAINS].index("work")
    assert found[0, work] == 1.0
