"""System checks of recall: stored vectors must come from the configured embedding model."""

from __future__ import annotations

import logging
from typing import Any

from django.core.checks import Warning, register
from django.db import DatabaseError

from memories.models import Memory
from tenants import rls

# Memory ids are random, so the first and last rows by primary key are a uniform sample that
# the pk index returns in milliseconds, even at a million rows (no scan at every startup).
SAMPLE_ROWS = 1000


def stored_embedding_models(*, sample: int = SAMPLE_ROWS) -> dict[str, int]:
    """Count the embedding models of a sample of stored vectors (first and last ids)."""
    rows = Memory.objects.filter(embedding__isnull=False)
    ids = [
        *rows.order_by("id").values_list("id", flat=True)[:sample],
        *rows.order_by("-id").values_list("id", flat=True)[:sample],
    ]
    counts: dict[str, int] = {}
    for model in Memory.objects.filter(id__in=set(ids)).values_list("embedding_model", flat=True):
        counts[model] = counts.get(model, 0) + 1
    return counts


@register()
def check_embedding_model(app_configs: Any = None, **kwargs: Any) -> list:
    """Warn when stored vectors were made by another model than MEMORY_EMBEDDER's."""
    from integrations.embeddings import current_model_id

    try:
        current = current_model_id()
        # Every tenant's vectors: a check runs for no tenant (row-level security).
        with rls.rls_bypass("system check: stored embedding models", level=logging.INFO):
            counts = stored_embedding_models()
    except DatabaseError:
        return []  # unreachable or not migrated yet: /health and migrate say so, not this check
    stale = {model or "(none)": n for model, n in counts.items() if model != current}
    if not stale:
        return []
    found = ", ".join(f"{model} ({n})" for model, n in sorted(stale.items()))
    return [
        Warning(
            f"Stored memory vectors come from another embedding model than the configured "
            f"{current!r}: {found} in a sample of {sum(counts.values())} rows. Recall ranks "
            f"those memories by words only until they are re-embedded.",
            hint="Run `python manage.py reembed` (or set MEMORY_EMBEDDER back).",
            id="recall.W001",
        )
    ]
