"""The memory domain's signals: a user's memories changed (sent once the write commits), and
an erasure is under way (sent inside its transaction).

Apps above `memories` react to writes through them (recall drops its cached index, extraction
deletes an erased user's jobs) instead of being called by the write services, so the domain
never imports them. `memories_changed` receivers run after the commit and are best effort: one
that fails is logged and the write stands. `erasure_started` receivers run inside the
erasure's transaction: one that fails rolls the erasure back, so nothing is half erased.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import Signal

from memories.models import AgentSession, EndUser

logger = logging.getLogger(__name__)

# Sent with `end_user_ids`: a frozenset of EndUser primary keys whose memories changed.
memories_changed = Signal()


def memories_changed_on_commit(*, end_user_ids: Iterable[int]) -> None:
    """Send `memories_changed` once for these users when the current transaction commits."""
    ids = frozenset(end_user_ids)
    if ids:
        transaction.on_commit(partial(_send, ids))


def _send(end_user_ids: frozenset[int]) -> None:
    for receiver, result in memories_changed.send_robust(sender=None, end_user_ids=end_user_ids):
        if isinstance(result, Exception):
            logger.warning(
                "memories_changed receiver %r failed: %s", receiver, result, exc_info=result
            )


# Sent inside an erasure's transaction, under the user's lock and before any row is deleted,
# with `end_user`, `session` (the AgentSession erased, or None: the whole user) and
# `memory_ids` (a frozenset: the memories that came from that session, or all of the user's).
# Each receiver deletes what its app holds about that user or session and answers an
# `ErasureShare`. Sent with `send`, not `send_robust`: a failure rolls the erasure back.
erasure_started = Signal()


@dataclass(frozen=True)
class ErasureShare:
    """A receiver's answer to `erasure_started`."""

    # Rows it deleted, by kind of the erasure receipt (e.g. {"jobs": 2}).
    deleted: Mapping[str, int] = field(default_factory=dict)
    # Of `memory_ids`, those it knows another source of (another session, or a conversation
    # sent without one): a session's erasure keeps them.
    stated_elsewhere: frozenset[str] = frozenset()


def erasure_shares(
    *, end_user: EndUser, session: AgentSession | None, memory_ids: Iterable[str]
) -> list[ErasureShare]:
    """Send `erasure_started` and return the receivers' answers (call inside the erasure)."""
    responses: list[tuple[Any, Any]] = erasure_started.send(
        sender=None, end_user=end_user, session=session, memory_ids=frozenset(memory_ids)
    )
    shares = [share for _, share in responses]
    wrong = [receiver for receiver, share in responses if not isinstance(share, ErasureShare)]
    if wrong:
        raise TypeError(f"erasure_started receivers must answer an ErasureShare: {wrong!r}")
    return shares
