"""The wiring's old name: `memory_platform` was called `config` until the project took the
layout its design names (Django's own: the project package named after the project).

Installs made before the rename name its modules in their own files, which an upgrade of the
code does not rewrite: DJANGO_SETTINGS_MODULE=config.settings in an environment, `gunicorn
config.wsgi --config python:config.gunicorn_conf` in a start command or unit, `celery -A
config` for the worker and beat. Each module here re-exports its new counterpart so those keep
working; nothing else belongs here, and nothing in the project imports it
(tests/memory_platform/test_old_paths.py holds both). Point them at memory_platform.* when
you can.
"""

from memory_platform import celery_app

__all__ = ["celery_app"]
