"""The last path under /memories/: any other segment is a malformed memory id.

Included last (memory_platform/urls.py), after every app's paths: DELETE /memories/{id} with
a malformed id answers 400, as documented, rather than "no such endpoint". The apps' own
includes may come in any order; only this catch-all must stay last.
"""

from django.urls import path

from memories.apis import MemoryIdMalformedApi

urlpatterns = [
    path("<str:memory_id>", MemoryIdMalformedApi.as_view(), name="memories-delete-malformed"),
]
