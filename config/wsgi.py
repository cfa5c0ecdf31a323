"""`gunicorn config.wsgi`, from before the rename: memory_platform.wsgi's application."""

from memory_platform.wsgi import application

__all__ = ["application"]
