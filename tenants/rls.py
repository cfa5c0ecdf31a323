"""Tenants walled apart by PostgreSQL: which tenant's rows the current work may touch.

Every table that holds tenant data has a row-level security policy (FORCE ROW LEVEL SECURITY,
see `memory_platform.tenant_tables`) that shows a row only when one of these session settings
allows it:

- `app.tenant_ids`: the tenants the work is for, `{7}` (an API request, a job) or `{3,7}` (an
  admin operator of two tenants); unset or empty, no row of any tenant is visible;
- `app.rls_bypass` = `on`: cross-tenant maintenance (prune, reembed, stats, the admin of a
  superuser, migrations), entered only through `rls_bypass`, which logs who and why;
- `app.api_key_prefix`: while a request's key is looked up, that key's row only.

What the work is for lives in a context variable (`tenant_scope`, `rls_bypass`,
`request_frame`); the database backend (`tenants.backend`) brings the connection's settings
in line with it before each query, so a connection reused by the next request, thread or task
carries nothing over: a query made outside every scope runs with no tenant and sees nothing.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from tenants.models import Tenant

logger = logging.getLogger(__name__)

TENANT_SETTING = "app.tenant_ids"
BYPASS_SETTING = "app.rls_bypass"
KEY_PREFIX_SETTING = "app.api_key_prefix"
# The role the application's queries run as when the login user would ignore row security (a
# superuser, or a role with BYPASSRLS, such as the embedded PostgreSQL's `postgres`).
APP_ROLE = "memory_app"


@dataclass(frozen=True)
class Scope:
    """What the current work may see: its tenants, or every tenant (bypass), or nothing."""

    tenant_ids: tuple[int, ...] = ()
    bypass: bool = False
    key_prefix: str = ""
    # Run as the login user, not APP_ROLE (migrations: the tables' owner alters them).
    as_login_user: bool = False

    def settings(self) -> tuple[str, str, str]:
        """The values of TENANT_SETTING, BYPASS_SETTING and KEY_PREFIX_SETTING."""
        ids = "{" + ",".join(str(i) for i in self.tenant_ids) + "}" if self.tenant_ids else ""
        return ids, "on" if self.bypass else "", self.key_prefix


NOTHING = Scope()
_scope: ContextVar[Scope | None] = ContextVar("rls_scope", default=None)
# The scope of a context that entered none (a new thread, a worker's task before it names its
# tenant): nothing. Only the test suite changes it (`default_scope_set`).
_default = NOTHING


def scope_current() -> Scope:
    """The scope the current work runs in."""
    found = _scope.get()
    return _default if found is None else found


def scope_tenant_ids() -> tuple[int, ...]:
    """The tenants the current work is for; () under the bypass or outside every scope."""
    current = scope_current()
    return () if current.bypass else current.tenant_ids


@contextlib.contextmanager
def _entered(scope: Scope) -> Iterator[None]:
    token = _scope.set(scope)
    try:
        yield
    finally:
        _scope.reset(token)


@contextlib.contextmanager
def tenant_scope(tenant_ids: Iterable[int]) -> Iterator[None]:
    """Work for these tenants only (the bypass is off inside); the outer scope on exit."""
    ids = tuple(sorted({int(i) for i in tenant_ids}))
    with _entered(Scope(tenant_ids=ids, as_login_user=scope_current().as_login_user)):
        yield


@contextlib.contextmanager
def scope_restored(scope: Scope) -> Iterator[None]:
    """Work again in a scope captured earlier (`scope_current`) by the work it continues (a
    request's statistics written later by a thread): a bypass was logged when first entered."""
    with _entered(scope):
        yield


@contextlib.contextmanager
def no_tenant() -> Iterator[None]:
    """Work for no tenant: nothing of any tenant is visible (deny by default, made explicit)."""
    with _entered(NOTHING):
        yield


@contextlib.contextmanager
def rls_bypass(reason: str, *, actor: str = "", level: int = logging.WARNING) -> Iterator[None]:
    """Cross-tenant maintenance: every tenant's rows, logged (at warning level, or `level` for
    a routine read such as a metrics scrape, with `reason` and `actor`) on entry. The one way
    past the walls; a `tenant_scope` inside narrows again."""
    logger.log(
        level,
        "row-level security bypassed: %s",
        reason,
        extra={"rls_bypass": reason, "actor": actor},
    )
    with _entered(Scope(bypass=True, as_login_user=scope_current().as_login_user)):
        yield


F = TypeVar("F", bound=Callable[..., Any])


def bypassed(reason: str) -> Callable[[F], F]:
    """Run the decorated function under `rls_bypass(reason)` (a command's `handle`, a task)."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def run(*args: Any, **kwargs: Any) -> Any:
            with rls_bypass(reason):
                return func(*args, **kwargs)

        return run  # type: ignore[return-value]

    return decorate


@contextlib.contextmanager
def command_scope(command: str, tenant: Tenant | None) -> Iterator[None]:
    """A management command's walls: its `--tenant`'s rows only, or without one every
    tenant's, through the logged bypass."""
    if tenant is None:
        with rls_bypass(f"manage.py {command}"):
            yield
    else:
        with tenant_scope([tenant.pk]):
            yield


@contextlib.contextmanager
def schema_owner(reason: str) -> Iterator[None]:
    """Migrations: run as the login user (who owns the tables and may alter them), under the
    bypass, logged like it."""
    with rls_bypass(reason), _entered(replace(scope_current(), as_login_user=True)):
        yield


@contextlib.contextmanager
def request_frame() -> Iterator[None]:
    """Serve one request: it starts seeing nothing (whatever the caller's scope), its
    authentication names the tenant (`frame_tenant_set`), and the caller's scope is back on
    exit."""
    with _entered(NOTHING):
        yield


def frame_key_prefix_set(prefix: str) -> None:
    """While the request's API key is looked up: that key's row is visible (by its prefix)."""
    _scope.set(replace(scope_current(), key_prefix=prefix))


def frame_tenant_set(tenant_id: int) -> None:
    """The request's caller is authenticated as `tenant_id`: the rest of it works for it."""
    _scope.set(Scope(tenant_ids=(tenant_id,)))


def frame_scope_set(tenant_ids: list[int] | None, *, actor: str) -> None:
    """An admin page: the operator's tenants, or (None: a superuser, an operator of every
    tenant) the bypass, logged."""
    if tenant_ids is None:
        logger.warning(
            "row-level security bypassed: %s",
            "admin across tenants",
            extra={"rls_bypass": "admin across tenants", "actor": actor},
        )
        _scope.set(Scope(bypass=True))
    else:
        _scope.set(Scope(tenant_ids=tuple(sorted(tenant_ids))))


@contextlib.contextmanager
def default_scope(scope: Scope) -> Iterator[None]:
    """For the test suite only, whose factories write rows outside any request (in threads
    too): contexts that entered no scope get `scope`, and whatever a test entered or set is
    gone on exit."""
    global _default
    previous, _default = _default, scope
    token = _scope.set(None)
    try:
        yield
    finally:
        _scope.reset(token)
        _default = previous
