"""config.urls, from before the rename: memory_platform.urls."""

from memory_platform.urls import *  # noqa: F403
