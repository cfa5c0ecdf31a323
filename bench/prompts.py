"""Issue 32's prompts set: several users, their people, and prompts of five kinds, scored by kind.

A prompts file (`bench/data/prompts_dev.json`, `prompts_heldout.json`, `prompts_heldout2.json`,
`prompts_heldout3.json`) holds users, each with memories and prompts:

- a memory: `key`, `caption`, `full_text`, `about` ("self" or the key of the person or pet it is
  about; their captions read "User's <person> ..."), and for a fact held for review `status`
  "pending_review" with `conflicts_with`, the key of the active memory it would replace;
- a prompt: `prompt`, `kind` (one of `KINDS`), `needs` (memory keys, any of which answers it;
  empty for general questions and prompts about nothing the user said), `about` and `topic`.

The files are split by topic: no user, profile domain or prompt topic of one is in another.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from django.db import transaction

from bench.llm import ItemCost, cost_summary
from bench.recall import DATA, RecallLabels, bench_memories_create, percentile, recall_measured
from memories.facets import category_of
from memories.models import EndUser, Memory, ReviewItem
from memories.services.conflicts import review_item_file
from recall.context import (
    DEFAULT_CONTEXT_TOKENS,
    PROFILE,
    PROFILE_LINES,
    TIER_SHARES,
    memory_context,
)
from tenants.models import Tenant

PROMPTS_DEV = DATA / "prompts_dev.json"
PROMPTS_HELDOUT = DATA / "prompts_heldout.json"
PROMPTS_HELDOUT2 = DATA / "prompts_heldout2.json"
PROMPTS_HELDOUT3 = DATA / "prompts_heldout3.json"
SELF = "self"
# Prompts that need a memory (scored by hit@1 and hit@3) and prompts that need none (scored by
# an empty answer).
NEED_KINDS = ("personal", "people", "implicit")
EMPTY_KINDS = ("general", "nothing")
KINDS = NEED_KINDS + EMPTY_KINDS
PENDING = Memory.Status.PENDING_REVIEW.value
RESULTS = 10  # memories asked for per prompt, as an assistant would


def prompts_load(path: Path) -> dict:
    """Read a prompts file; ValueError when a prompt or memory does not fit the format."""
    data = json.loads(Path(path).read_text())
    for user in data["users"]:
        keys = {m["key"] for m in user["memories"]}
        for memory in user["memories"]:
            if memory.get("status", "active") not in ("active", PENDING):
                raise ValueError(f"{user['key']}/{memory['key']}: unknown status")
            if memory.get("status") == PENDING and memory.get("conflicts_with") not in keys:
                raise ValueError(f"{user['key']}/{memory['key']}: conflicts_with no memory")
        for prompt in user["prompts"]:
            where = f"{user['key']}: {prompt['prompt']!r}"
            if prompt["kind"] not in KINDS:
                raise ValueError(f"{where}: unknown kind {prompt['kind']!r}")
            if not set(prompt["needs"]) <= keys:
                raise ValueError(f"{where}: needs an unknown memory")
            if bool(prompt["needs"]) != (prompt["kind"] in NEED_KINDS):
                raise ValueError(f"{where}: a {prompt['kind']} prompt with needs {prompt['needs']}")
    return data


def prompts_limit(data: dict, limit: int | None) -> dict:
    """The set with only the first `limit` prompts of each user."""
    if limit is None:
        return data
    return {**data, "users": [{**u, "prompts": u["prompts"][:limit]} for u in data["users"]]}


@dataclass(frozen=True)
class PromptsUser:
    """One user of the set as loaded: the end user, memory id -> key, and key -> whom about."""

    data: dict
    end_user: EndUser
    keys: dict[str, str]
    about: dict[str, str]


@transaction.atomic
def prompts_users_create(*, tenant: Tenant, data: dict) -> list[PromptsUser]:
    """Create the set's end users with their memories; a fact held for review is stored
    pending_review with a pending review item against the memory it would replace."""
    users = []
    for user in data["users"]:
        memories = user["memories"]
        end_user = EndUser.objects.create(tenant=tenant, external_id=uuid.uuid4())
        ids = bench_memories_create(
            end_user=end_user,
            texts=[m["full_text"] for m in memories],
            captions=[m["caption"] for m in memories],
        )
        by_key = {m["key"]: i for m, i in zip(memories, ids, strict=True)}
        # Filed under the category extraction gives each caption (as `extraction.pipeline`
        # does), so the context's profile tier sees the set as it would a real user's memories.
        for memory in memories:
            if category := category_of(memory["caption"]):
                Memory.objects.filter(id=by_key[memory["key"]]).update(category=category)
        for memory in memories:
            if memory.get("status") == PENDING:
                _held_for_review(by_key[memory["key"]], by_key[memory["conflicts_with"]])
        users.append(
            PromptsUser(
                data=user,
                end_user=end_user,
                keys={i: m["key"] for m, i in zip(memories, ids, strict=True)},
                about={m["key"]: m["about"] for m in memories},
            )
        )
    return users


def _held_for_review(new_id: str, existing_id: str) -> None:
    Memory.objects.filter(id=new_id).update(status=PENDING)
    new, existing = Memory.objects.get(id=new_id), Memory.objects.get(id=existing_id)
    similarity = float(np.dot(new.embedding, existing.embedding)) / max(
        float(np.linalg.norm(new.embedding) * np.linalg.norm(existing.embedding)), 1e-9
    )
    review_item_file(
        new_memory=new,
        existing=[existing],
        similarity=similarity,
        reason="bench: a newer fact that would replace this one",
        signal=ReviewItem.Signal.RULES,
    )


def prompts_labels(data: dict, labels: RecallLabels) -> None:
    """What the LLM stub answers: each prompt needs the captions of its needed memories."""
    for user in data["users"]:
        captions = {m["key"]: m["caption"] for m in user["memories"]}
        for prompt in user["prompts"]:
            labels.add(prompt["prompt"], [captions[k] for k in prompt["needs"]])


def _rate(part: int, whole: int) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


@dataclass
class PromptsResult:
    """One recall mode's outcome on a prompts set: one item per prompt, with its LLM cost."""

    items: list[dict[str, Any]] = field(default_factory=list)
    costs: list[ItemCost] = field(default_factory=list)

    def figures(self) -> dict:
        """hit@1 and hit@3 (prompts that need a memory), empty answers (prompts that need
        none), own-before-others (self prompts answered first by a fact about someone else),
        each over the whole set and by kind; personal prompts also with and without "?"."""
        needing = [i for i in self.items if i["kind"] in NEED_KINDS]
        empty_kinds = [i for i in self.items if i["kind"] in EMPTY_KINDS]
        own = [i for i in self.items if i["other_first"] is not None]
        by_kind: dict[str, dict] = {}
        for kind in KINDS:
            items = [i for i in self.items if i["kind"] == kind]
            by_kind[kind] = _scores(items, needs=kind in NEED_KINDS)
        personal = [i for i in self.items if i["kind"] == "personal"]
        return {
            "prompts": len(self.items),
            "users": len({i["user"] for i in self.items}),
            "hit@1": _rate(sum(i["hit@1"] for i in needing), len(needing)),
            "hit@3": _rate(sum(i["hit@3"] for i in needing), len(needing)),
            "empty_when_nothing_fits": _rate(
                sum(i["empty"] for i in empty_kinds), len(empty_kinds)
            ),
            "own_before_others": {
                "self_prompts": len(own),
                "other_first": sum(i["other_first"] for i in own),
                "other_first_rate": _rate(sum(i["other_first"] for i in own), len(own)),
            },
            "by_kind": by_kind,
            "personal_by_question_mark": {
                "with": _scores([i for i in personal if i["question_mark"]], needs=True),
                "without": _scores([i for i in personal if not i["question_mark"]], needs=True),
            },
            "p50_ms": round(percentile([1000 * c.seconds for c in self.costs], 50), 2),
            "usage": cost_summary(self.costs),
        }

    def as_dict(self, *, items: bool = False) -> dict:
        """The figures as the bench prints them (rates in percent), per prompt too on request."""
        figures = self.figures()
        if items:
            figures["items"] = self.items
        return figures


def _scores(items: list[dict], *, needs: bool) -> dict:
    if needs:
        return {
            "prompts": len(items),
            "hit@1": _rate(sum(i["hit@1"] for i in items), len(items)),
            "hit@3": _rate(sum(i["hit@3"] for i in items), len(items)),
        }
    return {"prompts": len(items), "empty": _rate(sum(i["empty"] for i in items), len(items))}


def prompts_evaluate(*, users: list[PromptsUser], mode: str) -> PromptsResult:
    """Ask every prompt of every user in one recall mode and score each answer."""
    result = PromptsResult()
    for user in users:
        for prompt in user.data["prompts"]:
            cost = ItemCost()
            recalled = recall_measured(
                end_user=user.end_user, prompt=prompt["prompt"], limit=RESULTS, mode=mode, cost=cost
            )
            result.costs.append(cost)
            keys = [user.keys[r.id] for r in recalled]
            result.items.append(
                _scored(prompt, keys, user.about) | {"user": user.data["key"]} | cost.as_dict()
            )
    return result


def _scored(prompt: dict, keys: list[str], about: dict[str, str]) -> dict:
    """One prompt's answer: the keys recalled, and what counts for its kind."""
    needs = set(prompt["needs"])
    own = prompt.get("about") == SELF and prompt["kind"] in NEED_KINDS
    return {
        "prompt": prompt["prompt"],
        "kind": prompt["kind"],
        "question_mark": "?" in prompt["prompt"],
        "recalled": keys[:3],
        "hit@1": bool(needs & set(keys[:1])),
        "hit@3": bool(needs & set(keys[:3])),
        "empty": not keys,
        # A prompt about the user whose first memory is about someone else; None when the
        # prompt is not about the user or needs nothing.
        "other_first": (bool(keys) and about[keys[0]] != SELF) if own else None,
    }


def prompts_context(*, users: list[PromptsUser], max_tokens: int = DEFAULT_CONTEXT_TOKENS) -> dict:
    """The context each prompt gets from the real builder (`recall.context.memory_context`, the
    configured recall mode, the default budget): its lines per prompt, by tier, and the set's
    conflicting pairs (a fact held for review and the fact it would replace) it shows without
    marking which one holds."""
    items = []
    for user in users:
        ids = {key: memory_id for memory_id, key in user.keys.items()}
        pairs = [
            (ids[m["key"]], ids[m["conflicts_with"]])
            for m in user.data["memories"]
            if m.get("status") == PENDING
        ]
        for prompt in user.data["prompts"]:
            context = memory_context(
                tenant=user.end_user.tenant,
                external_id=str(user.end_user.external_id),
                prompt=prompt["prompt"],
                max_tokens=max_tokens,
            )
            items.append(_context_scored(prompt, context.memories, pairs))
    return _context_figures(items)


def _context_scored(prompt: dict, memories: list, pairs: list[tuple[str, str]]) -> dict:
    """One prompt's context: its lines by tier, and its conflicting pairs shown (both facts in
    the block) marked (the pending one as unconfirmed, or the other as earlier) or not."""
    shown = {m.id: m for m in memories}
    marked = {pending for m in memories for pending, _ in m.unconfirmed}
    tiers = {tier: sum(m.tier == tier for m in memories) for tier in TIER_SHARES}
    pairs_shown = pairs_unmarked = 0
    for pending, existing in pairs:
        if existing in shown and (pending in shown or pending in marked):
            pairs_shown += 1
            if pending not in marked and not shown[existing].earlier:
                pairs_unmarked += 1
    return {
        "prompt": prompt["prompt"],
        "kind": prompt["kind"],
        # One line per memory, and one per fact held for review shown under it.
        "lines": len(memories) + sum(len(m.unconfirmed) for m in memories),
        "tiers": tiers,
        "pairs_shown": pairs_shown,
        "pairs_unmarked": pairs_unmarked,
    }


def _context_figures(items: list[dict]) -> dict:
    lines = [i["lines"] for i in items]
    profile = [i["tiers"][PROFILE] for i in items]
    empty_kinds = [i for i in items if i["kind"] in EMPTY_KINDS]
    return {
        "prompts": len(items),
        "lines_mean": round(float(np.mean(lines)), 2) if lines else 0.0,
        "lines_max": max(lines, default=0),
        "lines_by_tier_mean": {
            tier: round(float(np.mean([i["tiers"][tier] for i in items])), 2) if items else 0.0
            for tier in TIER_SHARES
        },
        "profile_lines_max": max(profile, default=0),
        "prompts_over_profile_lines": sum(p > PROFILE_LINES for p in profile),
        "empty_when_nothing_fits": _rate(
            sum(i["lines"] == 0 for i in empty_kinds), len(empty_kinds)
        ),
        "conflicting_pairs_shown": sum(i["pairs_shown"] for i in items),
        "conflicting_pairs_unmarked": sum(i["pairs_unmarked"] for i in items),
        "items": items,
    }
