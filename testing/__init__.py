"""Test doubles shared by the tests and the benches (never shipped, never imported at runtime)."""
