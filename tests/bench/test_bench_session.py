"""bench_session: a chat loop that resends its last messages pays for the new ones only."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from bench.management.commands.bench_session import Command as BenchSession

pytestmark = pytest.mark.django_db


def test_a_resent_session_reads_each_message_once_and_its_prompt_stays_flat():
    out = io.StringIO()

    call_command(BenchSession(), "--turns", "12", "--window", "8", "--json", stdout=out)

    report = json.loads(out.getvalue())
    turns = report["turns"]
    assert report["llm"] == "stub"
    assert [t["read_before"] for t in turns][:4] == [0, 2, 4, 6]
    assert all(t["read_before"] == 6 for t in turns[4:])  # the window slid: 8 sent, 6 read
    assert turns[-1]["prompt_tokens"] <= 1.5 * turns[4]["prompt_tokens"]
