"""`--config python:config.gunicorn_conf`, from before the rename: the same gunicorn settings
and hooks (gunicorn reads this module's public names)."""

from memory_platform.gunicorn_conf import *  # noqa: F403
