"""A 30-turn session sent the way a chat loop sends it: prompt tokens per turn stay flat."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.test.utils import override_settings

from bench.llm import llm_arguments_add, llm_server
from bench.recall import bench_tenant_delete, bench_tenant_reset
from bench.session import WINDOW, session_load, session_play
from extraction.reader import offline_candidates
from tenants.rls import bypassed
from testing.llm_stub import LLMStub, extracting_chat_reply


class Command(BaseCommand):
    help = (
        "Play bench/data/session_30.json as a chat loop sends it (the last --window messages "
        "after every reply), one extraction per turn through the service, and report the "
        "prompt tokens, LLM calls and seconds of each turn and the ratio turn 30 / turn 5."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--window", type=int, default=WINDOW)
        parser.add_argument("--turns", type=int, default=30)
        parser.add_argument("--json", action="store_true")
        llm_arguments_add(parser)

    @bypassed("manage.py bench_session (bench data)")
    def handle(self, *args: Any, window: int, turns: int, **options: Any) -> None:
        for name in ("httpx", "httpx2", "extraction", "openai"):
            logging.getLogger(name).setLevel(logging.WARNING)
        server = llm_server(options)
        with ExitStack() as stack:
            stub = None
            if server is None:
                stub = stack.enter_context(_stub())
                stack.enter_context(
                    override_settings(OPENAI_API_KEY="bench-stub", OPENAI_BASE_URL=stub.base_url)
                )
            else:
                stack.enter_context(server.configured())
            stack.enter_context(
                override_settings(MEMORY_EXTRACTOR="llm", MEMORY_ASYNC_EXTRACTION=False)
            )
            tenant = bench_tenant_reset()
            try:
                played = session_play(
                    tenant=tenant, turns=session_load()[:turns], window=window, stub=stub
                )
            finally:
                bench_tenant_delete()
        by_turn = {turn.turn: turn for turn in played}
        ratio = (
            by_turn[30].prompt_tokens / by_turn[5].prompt_tokens
            if 5 in by_turn and 30 in by_turn and by_turn[5].prompt_tokens
            else None
        )
        report = {
            "llm": server.describe() if server else "stub",
            "window": window,
            "turns": [turn.__dict__ for turn in played],
            "prompt_tokens_turn30_over_turn5": round(ratio, 3) if ratio else None,
        }
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(f"llm {report['llm']}  window {window}")
        self.stdout.write("turn  sent  read_before  llm_calls  prompt_tokens  seconds")
        for turn in played:
            self.stdout.write(
                f"{turn.turn:>4}  {turn.sent:>4}  {turn.read_before:>11}  {turn.llm_calls:>9}  "
                f"{turn.prompt_tokens:>13}  {turn.seconds:>7.2f}"
            )
        self.stdout.write(
            f"prompt tokens, turn 30 / turn 5: {report['prompt_tokens_turn30_over_turn5']}"
        )


@contextmanager
def _stub() -> Iterator[LLMStub]:
    """The in-process stub answering like an extracting LLM (the offline rules' facts)."""
    stub = LLMStub().always(extracting_chat_reply(offline_candidates)).start()
    try:
        yield stub
    finally:
        stub.stop()
