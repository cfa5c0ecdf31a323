"""A file cache whose counters are exact across processes: the rate limit without Redis."""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.core.cache.backends.filebased import FileBasedCache


class LockedFileBasedCache(FileBasedCache):
    """Django's file cache with `add` and `incr` made atomic by a lock file.

    Django's own `incr` is a read and a write: two gunicorn workers counting the same user at
    once would both read 4 and both write 5. Under an exclusive `flock` they cannot.
    """

    # Django culls on every write by listing the whole directory: milliseconds once it holds
    # a few thousand counters. Counters live a minute, so culling now and then is enough.
    CULL_EVERY_SECONDS = 30.0
    _culled_at = 0.0

    # FileBasedCache's private members this class builds on (django-stubs leave them out).
    _dir: str
    _createdir: Callable[[], None]

    def _cull(self) -> None:
        now = time.monotonic()
        if now - self._culled_at < self.CULL_EVERY_SECONDS:
            return
        self._culled_at = now
        super()._cull()  # type: ignore[misc]  # private, left out of django-stubs

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self._createdir()
        fd = os.open(os.path.join(self._dir, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def add(self, key: str, value: Any, timeout: Any = None, version: int | None = None) -> bool:
        with self._locked():
            return super().add(key, value, timeout, version)

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        with self._locked():
            return super().incr(key, delta, version)
