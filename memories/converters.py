"""The path converter of memory ids in URLs: `<memory_id:memory_id>` (memories.urls)."""

from __future__ import annotations

from memories.models import MEMORY_ID_PREFIX


class MemoryIdConverter:
    """A memory id: `mem_` and 16 letters or digits (`memories.models.new_memory_id`).

    No other path under /memories/ has that shape, so the route shadows none of the other
    apps' paths whatever the order of the includes. A malformed id matches no app's route and
    reaches the fallback of memories.urls_fallback instead (400, as documented).
    """

    regex = f"{MEMORY_ID_PREFIX}[A-Za-z0-9]{{16}}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
