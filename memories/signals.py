"""The memory domain's one signal: a user's memories changed, sent once the write commits.

Apps above `memories` react to writes through it (recall drops its cached index) instead of
being called by the write services, so the domain never imports them. Receivers run after the
commit and are best effort: one that fails is logged and the write stands.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import partial

from django.db import transaction
from django.dispatch import Signal

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
