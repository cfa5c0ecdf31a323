"""Concurrent extractions for one user against the real database: one connection per thread."""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection

from core.exceptions import ApplicationError
from extraction.jobs import extraction_perform
from memories.models import Memory
from tests.factories import TenantFactory
from tests.scripted_llm import ScriptedLLM, fact


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_extractions_keep_the_cap_and_never_duplicate(llm_settings, settings):
    settings.MEMORY_USER_CAP = 12
    tenant = TenantFactory()
    user_id = uuid.uuid4()
    llm = ScriptedLLM(llm_settings)
    places = ["harbour", "meadow", "quarry", "canyon", "glacier", "orchard", "lighthouse"]
    for n in range(10):
        # Overlapping facts across conversations: each shared fact must be stored once.
        llm.learn(
            f"conversation {n}",
            fact(f"User visited the {places[n % 7]} in spring {2000 + n % 7}", "personal"),
            fact(f"User keeps a notebook numbered {n} about {places[(n + 3) % 7]}", "other"),
        )
    # 20 requests over 10 conversations: every conversation is sent twice at once.
    said = [
        f"conversation {n}: I visited the {places[n % 7]} in spring {2000 + n % 7}, and I keep a"
        f" notebook numbered {n} about the {places[(n + 3) % 7]}"
        for n in range(10)
    ]
    texts = [said[n % 10] for n in range(20)]
    barrier = threading.Barrier(len(texts))
    outcomes: list[tuple[str, int | str]] = []
    lock = threading.Lock()

    def send(text: str) -> None:
        barrier.wait()
        try:
            outcome = extraction_perform(
                tenant=tenant,
                external_id=user_id,
                messages=[{"role": "user", "content": text}],
            )
            result: tuple[str, int | str] = (outcome.state, outcome.total_user_memories)
        except ApplicationError as exc:
            result = ("error", exc.code)
        finally:
            connection.close()
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=send, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert len(outcomes) == 20, "every request is answered"
    states = Counter(state for state, _ in outcomes)
    assert states["error"] == 0, outcomes
    assert states["extracted"] == 10 and states["replayed"] == 10
    assert all(total <= 12 for _, total in outcomes)
    active = Memory.objects.filter(status=Memory.Status.ACTIVE)
    assert active.count() <= 12
    hashes = Counter(active.values_list("content_hash", flat=True))
    assert max(hashes.values()) == 1
    assert len(llm.extraction_calls) == 10  # one LLM call per distinct conversation
