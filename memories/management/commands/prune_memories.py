"""Delete memories by age, by last access, by user, or down to the per-user cap."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.user_ids import user_id_normal
from memories.models import EndUser
from memories.services.maintenance import PRUNABLE_STATUSES, memory_prune
from tenants.commands import command_tenant
from tenants.rls import command_scope

_DURATION = re.compile(r"^(?P<n>\d+)\s*(?P<unit>[dhw]?)$")
_UNITS = {"": "days", "d": "days", "h": "hours", "w": "weeks"}


def duration(text: str) -> timedelta:
    """'90' or '90d' days, '12h' hours, '2w' weeks."""
    match = _DURATION.match(text.strip().lower())
    if match is None:
        raise ValueError(f"{text!r} is not a duration such as 90d, 12h or 2w")
    return timedelta(**{_UNITS[match["unit"]]: int(match["n"])})


class Command(BaseCommand):
    help = (
        "Delete memories for real (a content-free deletion record stays): older than a duration, "
        "not recalled for a duration, of given users, or beyond the per-user cap. Memories in a "
        "pending conflict are never pruned."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--older-than", type=duration, metavar="AGE", help="created before AGE ago (90d)"
        )
        parser.add_argument(
            "--unused-for",
            type=duration,
            metavar="AGE",
            help="not recalled for AGE (never recalled: created before AGE ago)",
        )
        parser.add_argument(
            "--to-cap",
            type=int,
            nargs="?",
            const=settings.MEMORY_USER_CAP,
            metavar="N",
            help=f"evict each user's oldest active memories beyond N "
            f"(default: MEMORY_USER_CAP, now {settings.MEMORY_USER_CAP})",
        )
        parser.add_argument(
            "--user",
            action="append",
            type=user_id_normal,
            metavar="USER_ID",
            help="only this end user (the API's user_id); repeat for several",
        )
        parser.add_argument("--tenant", metavar="NAME", help="only this tenant's users")
        parser.add_argument(
            "--status",
            action="append",
            choices=PRUNABLE_STATUSES,
            help="only memories with this status (repeatable; default active and superseded); "
            "applies to --older-than/--unused-for",
        )
        parser.add_argument("--batch-size", type=int, default=500)
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")

    def handle(self, *args: Any, **options: Any) -> None:
        if (
            options["older_than"] is None
            and options["unused_for"] is None
            and options["to_cap"] is None
        ):
            raise CommandError("give --older-than, --unused-for and/or --to-cap")
        if options["to_cap"] is not None and options["to_cap"] < 0:
            raise CommandError("--to-cap must not be negative")
        tenant = command_tenant(options["tenant"])
        tenant_id = tenant.pk if tenant else None
        with command_scope("prune_memories", tenant):
            end_user_ids = None
            if options["user"]:
                users = EndUser.objects.filter(external_id__in=options["user"])
                if tenant_id is not None:
                    users = users.filter(tenant_id=tenant_id)
                end_user_ids = list(users.values_list("pk", flat=True))
                if not end_user_ids:
                    raise CommandError("none of the given users exists")

            result = memory_prune(
                older_than=options["older_than"],
                unused_for=options["unused_for"],
                statuses=options["status"] or PRUNABLE_STATUSES,
                cap=options["to_cap"],
                end_user_ids=end_user_ids,
                tenant_id=tenant_id,
                dry_run=options["dry_run"],
                batch_size=options["batch_size"],
            )
            verb = "Would prune" if result.dry_run else "Pruned"
            noun = "memory" if result.total == 1 else "memories"
            self.stdout.write(
                f"{verb} {result.total} {noun} of {result.users} user(s): "
                f"{result.by_criteria} by age/access, {result.over_cap} over the cap"
                + (" (dry run: nothing deleted)." if result.dry_run else ".")
            )
