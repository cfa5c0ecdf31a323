"""Benchmarks, load tests and evaluations: a development-only app that nothing else imports.

Installed by `bench.settings` only (`python manage.py <command> --settings=bench.settings`).
"""
