"""The store's hygiene, measured (issue 34): what an audit of the active memories finds, per
tenant, as counts and rates. A read: nothing here writes (the consolidation job that files what
it finds for review is `memories.services.audit.audit_proposals_file`).

What it counts, each kind judged by the rules the write path already keeps, never a second copy:

- `duplicate`: a memory that says again what an older active memory of its user says: a cosine
  at or above the merge floor (`memories.comparison.NEAR_DUPLICATE_SIMILARITY`, pgvector in
  PostgreSQL, the nearest older memory of the same user only), or the same facets read both
  ways (`memories.comparison.restates`). Facts about two people, or two values of one kind
  (`memories.comparison.distinct`), are never duplicates, however close their wording.
- `garbled`: a caption `memories.captions.garbles` reads as garbled (issue 30's checks).
- `stale_time`: a caption that still holds a time counted from when it was said ("two years
  ago", "last month", "this week", "has been vegan for 5 years"), false a while on: the
  extractor takes such phrases out (`extraction.timing`), from the same vocabulary
  (`core/lexicons/time_relative.txt`, `durations`, `months`, `seasons`, `temporary`).
- `assistant`: a memory about the assistant, not the user: an instruction to it
  (`memories.instructions.instruction_in`), a caption whose subject is the assistant
  (`core/lexicons/addressees.txt`: "The assistant suggested ..."), or a request to it
  (`core/lexicons/not_durable.txt`: "User asked the assistant for a recipe").
- `general`: general knowledge: a caption that never names the user ("The capital of France is
  Paris"), what the grounding check refuses as `not_about_user`.
- `no_evidence`: a memory with none of the user's words it came from (`memories_without_evidence`).

With the age of the oldest pending review, that is the report of `manage.py memory_audit` and
of the admin dashboard's hygiene panel.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache

from django.db import connection
from django.db.models import Count, Min, QuerySet
from django.utils import timezone

from core.lexicon import has_phrase, lexicon
from core.words import stem, words_of
from memories.attributes import registry
from memories.captions import garbles
from memories.comparison import NEAR_DUPLICATE_SIMILARITY, distinct, restates
from memories.facets import Facet, facets_read, subject_of
from memories.instructions import instruction_in
from memories.models import EndUser, Memory, ReviewItem
from memories.text import names_the_user
from tenants.models import Tenant

DUPLICATE = "duplicate"
GARBLED = "garbled"
STALE_TIME = "stale_time"
ASSISTANT = "assistant"
GENERAL = "general"
NO_EVIDENCE = "no_evidence"
# Every kind the audit counts, in report order, with what a report calls it.
KINDS = {
    DUPLICATE: "near-duplicates",
    GARBLED: "garbled captions",
    STALE_TIME: "relative times that go stale",
    ASSISTANT: "about the assistant",
    GENERAL: "general knowledge",
    NO_EVIDENCE: "no evidence",
}
# The kinds judged from a caption alone (`caption_findings`), in the order they are tried.
CAPTION_KINDS = (ASSISTANT, GENERAL, GARBLED, STALE_TIME)

# The words an assistant goes by when it is what a caption is about ("The assistant ...", "AI
# suggested ..."); "you" and "app" are left out: "User's app ..." is the user's.
_NOT_THE_ASSISTANT = frozenset({"you", "u", "ur", "your", "yourself", "app", "application"})
# Units that count a time only loosely: "for a while", "this life" go stale no faster than
# the fact.
_LOOSE_UNITS = frozenset({"while", "ages", "life", "ever"})
# How far after a relative word its unit may stand ("the past few weeks", "last two years").
_UNIT_REACH = 3


@dataclass(frozen=True)
class Finding:
    """One memory the audit flags: which kind, why (what the review queue shows), and for a
    near-duplicate the older memory it repeats and their cosine (0 when the facets found it)."""

    kind: str
    memory_id: str
    reason: str
    other_id: str = ""
    similarity: float = 0.0


@dataclass
class TenantAudit:
    """One tenant's hygiene: its active memories, what each kind counts, and the findings."""

    tenant_id: int
    tenant: str
    active: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    oldest_pending: datetime.datetime | None = None
    findings: list[Finding] = field(default_factory=list)

    def rate(self, kind: str) -> float:
        """The share of the active memories of that kind (0 when there are none)."""
        return self.counts[kind] / self.active if self.active else 0.0

    def oldest_pending_age(self, now: datetime.datetime) -> datetime.timedelta | None:
        return now - self.oldest_pending if self.oldest_pending else None


# --- the checks of one caption (pure) -----------------------------------------------------


def about_the_assistant(caption: str) -> str | None:
    """Why a caption is about the assistant rather than the user, or None."""
    reason = instruction_in(caption)
    if reason:
        return f"an instruction to the assistant ({reason.replace('_', ' ')})"
    words = words_of(caption)
    assistant = lexicon("addressees") - _NOT_THE_ASSISTANT
    subject = words[1:2] if words[:1] in (["the"], ["your"]) else words[:1]
    # "The assistant's name is Nova" is about the assistant as much as "The assistant is ...".
    said_of = "".join(subject).removesuffix("'s")
    if not names_the_user(caption) and said_of in assistant:
        return "a caption about the assistant, not the user"
    if names_the_user(caption) and set(words) & assistant and has_phrase(caption, "not_durable"):
        return "a request to the assistant, not a fact about the user"
    return None


def general_knowledge(caption: str) -> bool:
    """Whether a caption says nothing of the user or their people: it never names the user
    ("The capital of France is Paris", "Octopuses have three hearts")."""
    words = words_of(caption)
    return bool(words) and not any(word in ("user", "user's", "users") for word in words)


def stale_time_in(caption: str) -> str | None:
    """The time phrase of a caption counted from when it was said ("two years ago", "last
    month", "this week", "for 5 years" after "has been"), which a year on is false; None."""
    words = words_of(caption)
    units = (lexicon("durations") - _LOOSE_UNITS) | _dated_words()
    for at, word in enumerate(words):
        if word == "ago" and at:
            return " ".join(words[max(0, at - 2) : at + 1])
        if word in lexicon("time_relative") and word != "ago":
            if at and words[at - 1] in _POSSESSIVES:
                continue  # "User's last day at Acme": the final one, not a time from now
            reach = words[at + 1 : at + 1 + _UNIT_REACH]
            for end, following in enumerate(reach):
                if following in units:
                    # "usually last 25 years" is a verb; "the last 25 years" a time from now.
                    if end and at and words[at - 1] not in _BEFORE_A_COUNTED_TIME:
                        break
                    return " ".join(words[at : at + end + 2])
                if not _counts_a_time(following):
                    break
        if word == "for" and has_phrase(caption, "time_perfect"):
            reach = words[at + 1 : at + 1 + _UNIT_REACH]
            counted = any(_counts_a_time(w) and w not in {"the", "few"} for w in reach[:1])
            if counted and any(w in units for w in reach[1:]):
                return " ".join(words[at : at + 1 + len(reach)])
        # "has been married 20 years": how long until when it was said, without its "for".
        if word in units and _counted_in_perfect(words, at):
            return " ".join(words[at - 1 : at + 1])
    for phrase in sorted(lexicon("temporary") | lexicon("passing_times"), key=len, reverse=True):
        if f" {phrase} " in f" {' '.join(words)} ":
            return phrase
    return None


def _counted_in_perfect(words: list[str], at: int) -> bool:
    """A number right before the unit at `at`, after "been" ("has been married 20 years")."""
    before = words[at - 1] if at > 1 else ""
    counts = before.isdigit() or before in lexicon("numerals")
    return counts and "been" in words[:at]


# The words a counted relative time follows ("in the last two years", "over the past 3 weeks").
_BEFORE_A_COUNTED_TIME = frozenset({"the", "in", "for", "over", "during", "within", "these"})
_POSSESSIVES = frozenset({"user's", "their", "his", "her", "my", "our", "its", "the"})


@cache
def _dated_words() -> frozenset[str]:
    """Months, seasons and weekdays: "last March", "next summer", "this tuesday"."""
    seasons = {line.split(maxsplit=1)[1] for line in lexicon("seasons")}
    return lexicon("months") | lexicon("calendar_names") | frozenset(seasons)


def _counts_a_time(word: str) -> bool:
    """A word between a relative word and its unit ("last two years", "past few weeks")."""
    return (
        word.isdigit()
        or word in lexicon("numerals")
        or word in {"a", "an", "few", "couple", "of", "several", "the"}
    )


# A caption's findings are kept per process: a store's captions change rarely, so the
# dashboard's panel reads again only what is new (about 0.6 ms a caption otherwise).
@lru_cache(maxsize=65536)
def caption_findings(caption: str) -> tuple[tuple[str, str], ...]:
    """What is wrong with one caption, as (kind, reason) pairs (`CAPTION_KINDS`): a pure
    decision, the same for the report and the proposals."""
    found: list[tuple[str, str]] = []
    assistant = about_the_assistant(caption)
    if assistant:
        found.append((ASSISTANT, assistant))
    elif general_knowledge(caption):
        found.append((GENERAL, "general knowledge: the caption says nothing of the user"))
    if found:
        # Not a fact about the user at all: how it is worded or dated is beside the point.
        return tuple(found)
    kinds = garbles(caption)
    if kinds:
        found.append(
            (GARBLED, f"garbled caption ({', '.join(k.replace('_', ' ') for k in kinds)})")
        )
    stale = stale_time_in(caption)
    if stale:
        found.append((STALE_TIME, f'a time counted from when it was said ("{stale}") goes stale'))
    return tuple(found)


# --- near-duplicates -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Row:
    id: str
    end_user_id: int
    caption: str
    facets: tuple[Facet, ...]


def _facets(caption: str, full_text: str, stored: list[dict] | None) -> tuple[Facet, ...]:
    if stored is None:
        return facets_read(caption, full_text)
    return tuple(Facet.of(data) for data in stored)


def _same_fact(newer: _Row, older: _Row) -> bool:
    """Whether two memories of one user are one fact: the same person, and nothing of one kind
    stated two ways."""
    if subject_of(newer.caption) != subject_of(older.caption):
        return False
    return not distinct(newer.facets, older.facets)


def _facet_twins(rows: list[_Row]) -> list[tuple[_Row, _Row]]:
    """Pairs (newer, older) of one user's memories of which one says all the other says
    (`_holds`), so that folding one into the other, as the write path merges a restatement,
    loses nothing; compared only where they share a reading (whose fact, which attribute, what
    value)."""
    by_reading: dict[tuple[str, str, str], list[_Row]] = defaultdict(list)
    for row in rows:  # oldest first
        for facet in row.facets:
            by_reading[(facet.subject, facet.attribute, facet.value)].append(row)
    pairs: dict[str, tuple[_Row, _Row]] = {}
    for group in by_reading.values():
        for at, newer in enumerate(group):
            if newer.id in pairs:
                continue
            for older in group[:at]:
                if older.id == newer.id or distinct(newer.facets, older.facets):
                    continue
                if _holds(newer, older) or _holds(older, newer):
                    pairs[newer.id] = (newer, older)
                    break
    return list(pairs.values())


def _holds(kept: _Row, folded: _Row) -> bool:
    """Whether `kept` says all `folded` says: every facet of it, and every word of its caption
    the facets leave unread ("User got married in August" and "... in a barn in Devon" read
    alike, and are two details)."""
    if not restates(kept.facets, folded.facets, subject_of(folded.caption)):
        return False
    stems = _stems(folded.caption)
    return _unread(folded, stems) <= _stems(kept.caption) | _read_stems(kept)


def _stems(caption: str) -> frozenset[str]:
    return frozenset(stem(word) for word in words_of(caption))


def _unread(row: _Row, stems: frozenset[str]) -> frozenset[str]:
    """The caption's content words (their stems) no facet of it reads: not its value, nor a
    word its attribute is said with in the registry ("follows a vegan diet", "allergic")."""
    read = _read_stems(row)
    return frozenset(s for s in stems if s not in read and s not in _plain_stems())


def _read_stems(row: _Row) -> frozenset[str]:
    """The stems its facets read: their values, and their attributes' words."""
    read = {stem(w) for f in row.facets for w in words_of(f.value)}
    for facet in row.facets:
        read |= _attribute_stems(facet.attribute)
    return frozenset(read)


@cache
def _plain_stems() -> frozenset[str]:
    """Words that carry no fact: the subject, function words, naming words, and the frame a
    model wraps a fact in ("User mentioned ...", `reporting`)."""
    plain = (
        lexicon("function_words")
        | lexicon("generic_words")
        | lexicon("naming_words")
        | lexicon("reporting")
    )
    return frozenset(stem(word) for word in plain)


@cache
def _attribute_stems(name: str) -> frozenset[str]:
    """The stems of the words the registry says an attribute with (`memories/attributes.toml`)."""
    entry = registry().get(name)
    if entry is None:
        return frozenset(stem(w) for w in words_of(name.replace(":", " ")))
    phrases = [entry.name, entry.label, *entry.says, *entry.changes, *entry.nouns]
    phrases += [*entry.fixed, *entry.values, *entry.means]
    return frozenset(stem(w) for phrase in phrases for w in words_of(phrase.replace("_", " ")))


# The nearest older active memory of the same user, by cosine, for each active memory with a
# vector (one statement; each inner scan is one user's active rows, by the index
# memory_user_status_created). Vectors of another model are never compared.
_NEAREST_OLDER = """
SELECT m.id, near.id, 1 - near.distance
FROM {memory} m
JOIN {enduser} u ON u.id = m.end_user_id
CROSS JOIN LATERAL (
    SELECT o.id, m.embedding <=> o.embedding AS distance
    FROM {memory} o
    WHERE o.end_user_id = m.end_user_id AND o.status = 'active'
      AND o.embedding IS NOT NULL AND o.embedding_model = m.embedding_model
      AND (o.created_at, o.id) < (m.created_at, m.id)
    ORDER BY m.embedding <=> o.embedding
    LIMIT 1
) near
WHERE m.status = 'active' AND m.embedding IS NOT NULL AND u.tenant_id = ANY(%s)
  AND 1 - near.distance >= %s
"""


def _nearest_older(tenant_ids: list[int]) -> list[tuple[str, str, float]]:
    sql = _NEAREST_OLDER.format(memory=Memory._meta.db_table, enduser=EndUser._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(sql, [tenant_ids, NEAR_DUPLICATE_SIMILARITY])
        return [(new, old, float(similarity)) for new, old, similarity in cursor.fetchall()]


def _duplicates(rows: dict[str, _Row], tenant_ids: list[int]) -> list[Finding]:
    found: dict[str, Finding] = {}
    for new_id, old_id, similarity in _nearest_older(tenant_ids):
        newer, older = rows.get(new_id), rows.get(old_id)
        if newer is None or older is None or not _same_fact(newer, older):
            continue
        found[new_id] = Finding(
            kind=DUPLICATE,
            memory_id=new_id,
            other_id=old_id,
            similarity=round(similarity, 4),
            reason=f"near-duplicate of {old_id} (cosine {similarity:.2f})",
        )
    per_user: dict[int, list[_Row]] = defaultdict(list)
    for row in rows.values():
        per_user[row.end_user_id].append(row)
    for user_rows in per_user.values():
        for newer, older in _facet_twins(user_rows):
            if newer.id not in found:
                found[newer.id] = Finding(
                    kind=DUPLICATE,
                    memory_id=newer.id,
                    other_id=older.id,
                    reason=f"near-duplicate of {older.id} (one says all the other says)",
                )
    return list(found.values())


# --- evidence and the review queue -----------------------------------------------------------


# The relation from a memory to the user's words it came from (`MemoryEvidence`, issue 34).
def memories_without_evidence(memories: QuerySet[Memory]) -> QuerySet[Memory]:
    """Those of `memories` that keep none of the user's words they came from (a memory stored
    before memories kept their evidence, or whose only session was erased)."""
    return memories.filter(evidence__isnull=True).distinct()


# --- the report ------------------------------------------------------------------------------


def memory_audit(*, tenant_ids: Iterable[int] | None = None) -> list[TenantAudit]:
    """The hygiene of each tenant's active memories (of `tenant_ids`, or every tenant), by
    tenant name. A fixed number of queries whatever the number of tenants or memories: the
    tenants, the active memories, the nearest older memory of each, the memories without
    evidence, the oldest pending review."""
    tenants = Tenant.objects.order_by("name")
    if tenant_ids is not None:
        tenants = tenants.filter(id__in=list(tenant_ids))
    audits = {t.id: TenantAudit(tenant_id=t.id, tenant=t.name) for t in tenants}
    ids = list(audits)
    if not ids:
        return []
    active = Memory.objects.filter(status=Memory.Status.ACTIVE, end_user__tenant_id__in=ids)
    rows: dict[str, _Row] = {}
    tenant_of: dict[str, int] = {}
    fields = ("id", "end_user_id", "end_user__tenant_id", "caption", "full_text", "facets")
    for memory_id, user_id, tenant_id, caption, full_text, stored in active.order_by(
        "created_at", "id"
    ).values_list(*fields):
        rows[memory_id] = _Row(memory_id, user_id, caption, _facets(caption, full_text, stored))
        tenant_of[memory_id] = tenant_id
        audit = audits[tenant_id]
        audit.active += 1
        for kind, reason in caption_findings(caption):
            audit.findings.append(Finding(kind=kind, memory_id=memory_id, reason=reason))
    for finding in _duplicates(rows, ids):
        audits[tenant_of[finding.memory_id]].findings.append(finding)

    for tenant_id, count in (
        memories_without_evidence(active)
        .values("end_user__tenant_id")
        .annotate(n=Count("id"))
        .values_list("end_user__tenant_id", "n")
    ):
        audits[tenant_id].counts[NO_EVIDENCE] = count
    pending = ReviewItem.objects.filter(
        status=ReviewItem.Status.PENDING, end_user__tenant_id__in=ids
    )
    for tenant_id, oldest in (
        pending.values("end_user__tenant_id")
        .annotate(oldest=Min("created_at"))
        .values_list("end_user__tenant_id", "oldest")
    ):
        audits[tenant_id].oldest_pending = oldest
    for audit in audits.values():
        for finding in audit.findings:
            audit.counts[finding.kind] += 1
    return list(audits.values())


def audit_as_json(audit: TenantAudit, now: datetime.datetime | None = None) -> dict:
    """One tenant's report as `manage.py memory_audit --json` prints it."""
    age = audit.oldest_pending_age(now or timezone.now())
    return {
        "tenant": audit.tenant,
        "active": audit.active,
        "counts": dict(audit.counts),
        "rates": {kind: round(audit.rate(kind), 4) for kind in KINDS},
        "oldest_pending_review_seconds": int(age.total_seconds()) if age is not None else None,
    }
