"""Synthetic users and memories for the load benches, seeded fast.

Seeding a million rows goes server-side: a few thousand distinct facts are embedded once into
a temporary pool table, and one INSERT ... SELECT per chunk of users copies pool rows (vectors
included) into memories, so no vector crosses the wire twice.
"""

from __future__ import annotations

import itertools
import random
import uuid
from collections.abc import Callable, Iterator

from django.db import connection, transaction

from integrations.embeddings import current_model_id, embed_texts
from memories.models import EndUser, Memory
from memories.text import content_hash, embedding_text
from tenants.models import Tenant


def _words(text: str) -> list[str]:
    return text.split()


ACTIVITIES = _words(
    """
    hiking climbing kayaking sailing cycling running swimming surfing skiing chess baking
    pottery painting knitting gardening birdwatching photography woodworking yoga judo fencing
    rowing archery calligraphy origami juggling snorkelling camping fishing tennis badminton
    squash golf bouldering skating dancing singing drumming cooking
    """
)
PLACES = _words(
    """
    Lisbon Porto Madrid Seville Paris Lyon Berlin Hamburg Munich Vienna Prague Krakow Warsaw
    Oslo Bergen Stockholm Helsinki Copenhagen Dublin Cork Edinburgh Glasgow Leeds Bristol
    Amsterdam Utrecht Ghent Zurich Geneva Milan Turin Naples Athens Istanbul Tokyo Kyoto Osaka
    Seoul Taipei Hanoi Lima Quito Bogota Montreal Toronto Denver Austin Boston
    """
)
THINGS = _words(
    """
    Python Rust Go Kotlin Swift Haskell Elixir Java TypeScript Ruby Postgres Redis Django
    Flask React Vue Svelte Kubernetes Terraform Neovim Emacs Linux FreeBSD Docker
    """
)
PETS = _words("cat dog parrot rabbit hamster tortoise ferret goldfish gecko")
NAMES = _words(
    """
    Miso Pixel Biscuit Luna Olive Pepper Mango Juniper Nova Ziggy Tofu Clover Rocket Maple
    Pickle
    """
)
JOBS = _words(
    """
    nurse teacher architect plumber pharmacist pilot chef librarian translator lawyer designer
    electrician carpenter accountant veterinarian
    """
)
FOODS = _words(
    "ramen tacos paella sushi curry pho risotto falafel dumplings lasagne shakshuka pierogi"
)

_TEMPLATES: list[tuple[str, tuple[list[str], ...]]] = [
    ("User loves {} and goes most weekends near {}", (ACTIVITIES, PLACES)),
    ("User works as a {} in {}", (JOBS, PLACES)),
    ("User is learning {} for a project about {}", (THINGS, ACTIVITIES)),
    ("User has a {} named {} that likes {}", (PETS, NAMES, ACTIVITIES)),
    ("User's favourite dinner is {} from a place in {}", (FOODS, PLACES)),
    ("User visited {} last year and wants to try {} there", (PLACES, ACTIVITIES)),
    ("User prefers {} over {} at work", (THINGS, THINGS)),
]

_PROMPTS = [
    "Any tips for {} when I travel to {}?",
    "Plan a weekend of {} around {} for me",
    "What should I know about {} before my trip to {}?",
    "Suggest a gift related to {} for a friend in {}",
]


def fact_pool(*, size: int, seed: int = 7) -> list[str]:
    """Distinct synthetic facts about users, reproducibly sampled from templates."""
    rng = random.Random(seed)
    facts: dict[str, None] = {}
    while len(facts) < size:
        template, vocabularies = rng.choice(_TEMPLATES)
        words = [rng.choice(vocabulary) for vocabulary in vocabularies]
        if len(set(words)) == len(words):
            facts[template.format(*words)] = None
    return list(facts)


def prompt_stream(*, seed: int = 11) -> Iterator[str]:
    """Endless distinct prompts (so no request hits the embedding cache)."""
    combos = list(itertools.product(_PROMPTS, ACTIVITIES, PLACES))
    random.Random(seed).shuffle(combos)
    for round_number in itertools.count():
        for template, activity, place in combos:
            prompt = template.format(activity, place)
            yield prompt if round_number == 0 else f"{prompt} (take {round_number + 1})"


def end_users_create(*, tenant: Tenant, count: int) -> list[int]:
    """Create `count` end users of the tenant; return their primary keys."""
    users = EndUser.objects.bulk_create(
        [EndUser(tenant=tenant, external_id=uuid.uuid4()) for _ in range(count)], batch_size=2000
    )
    return [user.pk for user in users]


def memories_seed(
    *,
    end_user_ids: list[int],
    per_user: int,
    pool_size: int = 3000,
    chunk_users: int = 250,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Give every user `per_user` distinct active memories drawn from an embedded fact pool."""
    if per_user > pool_size:
        raise ValueError("per_user must not exceed the pool size")
    facts = fact_pool(size=pool_size)
    vectors = embed_texts([embedding_text(fact, fact) for fact in facts])
    table = Memory._meta.db_table
    salt = uuid.uuid4().hex
    inserted = 0
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TEMP TABLE IF NOT EXISTS bench_pool "
            "(n int PRIMARY KEY, caption text, full_text text, content_hash text, embedding vector)"
        )
        cursor.execute("TRUNCATE bench_pool")
        with cursor.copy("COPY bench_pool FROM STDIN") as copy:
            for n, (fact, vector) in enumerate(zip(facts, vectors, strict=True)):
                literal = "[" + ",".join(f"{x:.6g}" for x in vector) + "]"
                copy.write_row((n, fact[:100], fact, content_hash(fact), literal))
        for start in range(0, len(end_user_ids), chunk_users):
            chunk = end_user_ids[start : start + chunk_users]
            with transaction.atomic():
                # Row n of a user is pool fact (offset + 31 n) mod pool_size: distinct for every
                # n below pool_size / gcd(31, pool_size), and users differ by their offset.
                cursor.execute(
                    f"INSERT INTO {table} (id, end_user_id, caption, full_text, category, "
                    "confidence, status, content_hash, embedding, embedding_model, created_at, "
                    "updated_at, access_count, use_when, stated_outside_sessions, stated_at, "
                    "last_stated_at, tenant_id) "
                    "SELECT 'mem_' || substr(md5(u.id::text || ':' || g::text || %s), 1, 16), "
                    "u.id, p.caption, p.full_text, 'other', 0.9, 'active', p.content_hash, "
                    "p.embedding, %s, now() - (%s - g) * interval '1 minute', now(), 0, '', true, "
                    "now() - (%s - g) * interval '1 minute', "
                    "now() - (%s - g) * interval '1 minute', e.tenant_id "
                    "FROM unnest(%s::bigint[]) AS u(id) "
                    "JOIN memories_enduser e ON e.id = u.id "
                    "CROSS JOIN generate_series(0, %s - 1) AS g "
                    "JOIN bench_pool p ON p.n = (u.id * 7919 + g * 31) %% %s",
                    [
                        salt,
                        current_model_id(),
                        per_user,
                        per_user,
                        per_user,
                        chunk,
                        per_user,
                        pool_size,
                    ],
                )
                inserted += cursor.rowcount
            if progress is not None:
                progress(inserted)
        cursor.execute(f"ANALYZE {table}")
    return inserted


def memories_unseed(*, tenant: Tenant) -> None:
    """Delete a bench tenant; its bulk memories go first in plain SQL (the ORM would be slow)."""
    with connection.cursor() as cursor:
        # Seeded memories have no versions or reviews; extract-made ones go with the ORM.
        cursor.execute(
            f"DELETE FROM {Memory._meta.db_table} m USING {EndUser._meta.db_table} u "
            "WHERE m.end_user_id = u.id AND u.tenant_id = %s AND m.source_session_id IS NULL "
            "AND NOT EXISTS (SELECT 1 FROM memories_memoryversion v WHERE v.memory_id = m.id)",
            [tenant.pk],
        )
    tenant.delete()
