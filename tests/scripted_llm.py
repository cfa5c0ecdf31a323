"""Script the LLM stub by meaning: extraction prompts get facts, judge prompts get verdicts."""

from __future__ import annotations

import json
import re
from typing import Any

from bench.llm_stub import LLMStub, StubRequest

_STATEMENTS = re.compile(r"<statements>\s*(.*?)\s*</statements>", re.S)


def fact(caption: str, category: str = "personal", full_text: str | None = None) -> dict:
    """One extraction item as the LLM returns it."""
    return {
        "caption": caption,
        "full_text": full_text or caption,
        "category": category,
        "confidence": 0.9,
    }


class ScriptedLLM:
    """Answers each chat request by what it asks, so call order does not matter."""

    def __init__(self, stub: LLMStub):
        self.stub = stub
        self.facts: dict[str, list[dict[str, Any]]] = {}
        self.contradictions: set[frozenset[str]] = set()
        self.judge_available = True
        stub.always(self)

    def learn(self, marker: str, *facts: dict[str, Any]) -> None:
        """A conversation containing `marker` yields `facts`."""
        self.facts[marker] = list(facts)

    def contradict(self, existing: str, new: str) -> None:
        """The judge says these two full texts contradict each other."""
        self.contradictions.add(frozenset((existing, new)))

    @property
    def extraction_calls(self) -> list[StubRequest]:
        return [r for r in self.stub.calls if "\n<conversation>\n" in r.prompt_text]

    @property
    def judge_calls(self) -> list[StubRequest]:
        return [r for r in self.stub.calls if "\n<statements>\n" in r.prompt_text]

    def __call__(self, request: StubRequest) -> Any:
        from bench.llm_stub import error

        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        statements = _STATEMENTS.search(text)
        if statements:
            if not self.judge_available:
                return error(503)
            pair = json.loads(statements.group(1))
            verdict = frozenset((pair["existing"], pair["new"])) in self.contradictions
            return json.dumps({"contradiction": verdict, "reason": "scripted verdict"})
        conversation = text.split("<conversation>", 1)[-1]
        for marker, facts in self.facts.items():
            if marker in conversation:
                return json.dumps(facts)
        return "[]"
