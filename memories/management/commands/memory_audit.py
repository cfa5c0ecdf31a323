"""The store's hygiene per tenant (`memories.hygiene.memory_audit`): near-duplicates, garbled
captions, relative times that go stale, memories about the assistant or general knowledge,
memories without evidence, and the age of the oldest pending review. Read-only."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils import timezone
from django.utils.timesince import timesince

from memories.hygiene import KINDS, audit_as_json, memory_audit
from tenants.commands import command_tenant
from tenants.rls import command_scope


class Command(BaseCommand):
    help = (
        "Audit the store's hygiene per tenant: near-duplicate pairs, garbled captions, "
        "relative times that go stale, memories about the assistant or general knowledge, "
        "memories without evidence (counts and rates over the active memories), and the age "
        "of the oldest pending review. Read-only; the scheduled job files the findings for "
        "review."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", metavar="NAME", help="only this tenant")
        parser.add_argument("--json", action="store_true", help="one JSON object per tenant")
        parser.add_argument(
            "--dry-run", action="store_true", help="accepted for symmetry: this command only reads"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        tenant = command_tenant(options["tenant"])
        with command_scope("memory_audit", tenant):
            audits = memory_audit(tenant_ids=[tenant.pk] if tenant else None)
        now = timezone.now()
        if options["json"]:
            for audit in audits:
                self.stdout.write(json.dumps(audit_as_json(audit, now)))
            return
        for audit in audits:
            self.stdout.write(f"Tenant {audit.tenant}: {audit.active} active memories")
            for kind, label in KINDS.items():
                count = audit.counts[kind]
                self.stdout.write(f"  {label:<30} {count:>6}  {audit.rate(kind):6.1%}")
            oldest = audit.oldest_pending
            waiting = f"{timesince(oldest, now)} ago" if oldest else "none pending"
            self.stdout.write(f"  {'oldest pending review':<30} {waiting}")
        if not audits:
            self.stdout.write("No tenant.")
