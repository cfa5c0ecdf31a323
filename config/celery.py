"""`celery -A config`, from before the rename: memory_platform's Celery application."""

from memory_platform.celery import app

__all__ = ["app"]
