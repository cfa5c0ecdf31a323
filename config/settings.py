"""DJANGO_SETTINGS_MODULE=config.settings, from before the rename: the settings, unchanged."""

from memory_platform.settings import *  # noqa: F403
