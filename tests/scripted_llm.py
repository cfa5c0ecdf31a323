"""Script the LLM stub by meaning: extraction prompts get facts, decision calls get verdicts."""

from __future__ import annotations

import json
import re
from typing import Any

from testing.llm_stub import LLMStub, StubRequest, error

_FACTS = re.compile(r"<facts>\s*(.*?)\s*</facts>", re.S)


def fact(caption: str, category: str = "personal", full_text: str | None = None) -> dict:
    """One extraction item as the LLM returns it."""
    return {
        "caption": caption,
        "full_text": full_text or caption,
        "category": category,
        "confidence": 0.9,
    }


class ScriptedLLM:
    """Answers each chat request by what it asks, so call order does not matter.

    A decision call answers "contradicts" for the pairs taught with `contradict`, "same" for
    those taught with `same`, and "new" for everything else it is shown.
    """

    def __init__(self, stub: LLMStub):
        self.stub = stub
        self.facts: dict[str, list[dict[str, Any]]] = {}
        self.contradictions: set[tuple[str, str]] = set()
        self.restatements: set[tuple[str, str]] = set()
        self.judge_available = True
        self.updates = False
        stub.always(self)

    def learn(self, marker: str, *facts: dict[str, Any]) -> None:
        """A conversation containing `marker` yields `facts`."""
        self.facts[marker] = list(facts)

    def contradict(self, existing: str, new: str) -> None:
        """The decision call says the new full text contradicts the existing one."""
        self.contradictions.add((existing, new))

    def same(self, existing: str, new: str) -> None:
        """The decision call says the new full text restates the existing one."""
        self.restatements.add((existing, new))

    @property
    def extraction_calls(self) -> list[StubRequest]:
        return [r for r in self.stub.calls if "\n<conversation>\n" in r.prompt_text]

    @property
    def decision_calls(self) -> list[StubRequest]:
        return [r for r in self.stub.calls if "<facts>\n" in r.prompt_text]

    def shown(self, request: StubRequest) -> list[dict]:
        """The facts (with their neighbour memories) a decision call showed the LLM."""
        body = _FACTS.search(str(request.messages[-1].get("content", "")))
        return [json.loads(line) for line in body.group(1).splitlines()] if body else []

    def __call__(self, request: StubRequest) -> Any:
        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        if _FACTS.search(text):
            if not self.judge_available:
                return error(503)
            return json.dumps({"decisions": [self._decide(f) for f in self.shown(request)]})
        conversation = text.split("<conversation>", 1)[-1]
        for marker, facts in self.facts.items():
            if marker in conversation:
                return json.dumps({"memories": facts})
        return json.dumps({"memories": []})

    def _decide(self, shown: dict) -> dict:
        new = shown["text"]
        for memory in shown["memories"]:
            if (memory["text"], new) in self.contradictions:
                return self._verdict(shown, "contradicts", memory["id"])
            if (memory["text"], new) in self.restatements:
                return self._verdict(shown, "same", memory["id"])
        return self._verdict(shown, "new", None)

    def _verdict(self, shown: dict, decision: str, memory_id: str | None) -> dict:
        return {
            "fact": shown["fact"],
            "decision": decision,
            "memories": [memory_id] if memory_id else [],
            "update": self.updates,
            "reason": "scripted verdict",
        }
