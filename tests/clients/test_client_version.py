"""The client's version comes from its installed metadata, not from a literal in the code."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError

import memory_platform_client
from memory_platform_client import _core


def test_the_version_is_the_installed_distribution_s(monkeypatch):
    monkeypatch.setattr(_core, "version", {"memory-platform-client": "1.2.3"}.__getitem__)

    assert _core._installed_version() == "1.2.3"


def test_a_source_tree_without_metadata_gets_a_version_no_release_has(monkeypatch):
    def not_installed(name: str) -> str:
        raise PackageNotFoundError(name)

    monkeypatch.setattr(_core, "version", not_installed)

    assert _core._installed_version() == "0+unknown"


def test_the_user_agent_and_dunder_version_carry_it():
    assert memory_platform_client.__version__ == _core.VERSION
    assert _core.VERSION  # metadata or the fallback, never empty
