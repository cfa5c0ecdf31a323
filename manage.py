#!/usr/bin/env python
"""Django's command-line utility for the memory platform."""

import os
import sys


def main() -> None:
    """Run administrative tasks, after starting the embedded servers the command needs."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_platform.settings")
    from memory_platform import local
    from memory_platform.embedded import EmbeddedServerError

    if local.needs_servers(sys.argv):
        try:
            local.prepare()
        except EmbeddedServerError as exc:
            sys.exit(f"manage.py: {exc}")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
