"""config.asgi, from before the rename: memory_platform.asgi's application."""

from memory_platform.asgi import application

__all__ = ["application"]
