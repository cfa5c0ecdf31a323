"""Script the LLM stub by meaning: extraction prompts get facts, decision calls get verdicts."""

from __future__ import annotations

import json
import re
from typing import Any

from testing.llm_stub import LLMStub, StubRequest, error

_PAIRS = re.compile(r"<pairs>\s*(.*?)\s*</pairs>", re.S)


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

    A decision call answers "update" for the pairs taught with `contradict`, "same" for those
    taught with `same`, and "compatible" for every other pair it is asked about.
    """

    def __init__(self, stub: LLMStub):
        self.stub = stub
        self.facts: dict[str, list[dict[str, Any]]] = {}
        self.contradictions: set[tuple[str, str]] = set()
        self.restatements: set[tuple[str, str]] = set()
        self.judge_available = True
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
        return [r for r in self.stub.calls if "<pairs>\n" in r.prompt_text]

    def shown(self, request: StubRequest) -> list[dict]:
        """The questions a decision call asked: {"q", "stored", "new", "said"} each."""
        body = _PAIRS.search(str(request.messages[-1].get("content", "")))
        return [json.loads(line) for line in body.group(1).splitlines()] if body else []

    def __call__(self, request: StubRequest) -> Any:
        text = str(request.messages[-1].get("content", "")) if request.messages else ""
        if _PAIRS.search(text):
            if not self.judge_available:
                return error(503)
            return "\n".join(self._decide(pair) for pair in self.shown(request))
        conversation = text.split("<conversation>", 1)[-1]
        for marker, facts in self.facts.items():
            if marker in conversation:
                return json.dumps({"memories": facts})
        return json.dumps({"memories": []})

    def _decide(self, pair: dict) -> str:
        """One answer line, the reason first and the label last."""
        key = (pair["stored"], pair["new"])
        label = (
            "update"
            if key in self.contradictions
            else "same"
            if key in self.restatements
            else "compatible"
        )
        return f"{pair['q']}: scripted verdict => {label}"
