"""The registry of attributes: every kind of fact the service can read, compare and route.

One table per attribute in `memories/attributes.toml` (what it is called, its category, whether
it holds one value at a time, the life domains it matters for, how people state it, change it
and end it, and its closed class of values). The offline reader (`memories.facets`), the
facet comparison (`memories.comparison`) and recall's domains all read it, so a new kind of fact is
one entry there and nowhere else.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from core.lexicon import LEXICONS

REGISTRY = Path(__file__).resolve().parent / "attributes.toml"
# A fact no attribute states ("User plays the cello"): its verb is the attribute.
PRACTICE = "practice"


@dataclass(frozen=True)
class Attribute:
    name: str
    label: str
    category: str
    single: bool
    domains: tuple[str, ...]
    says: tuple[str, ...]
    changes: tuple[str, ...]
    ends: tuple[str, ...]
    denies: tuple[str, ...]
    fixed: dict[str, str]
    values: dict[str, str]  # each way of saying a value -> its canonical form
    numeric: bool
    compatible: tuple[tuple[str, ...], ...]
    means: dict[str, str]  # "[not ]<verb> <object>" -> the value it states
    article: bool = False  # its values are nouns that take "a" ("a nurse", "a night owl")
    nouns: tuple[str, ...] = ()  # what names it in "User's <noun> is ..." ("favourite")
    safety: bool = False  # a health or safety fact: a context never cuts it for a lesser one
    standing: bool = False  # shapes any answer (name, where they live): always in a context
    # The range of a bare number an introduction states it by ("im marco, 34"), if any.
    bare: tuple[int, int] | None = None
    # Its value is a count of years that grows with time (an age): shown as today's value.
    ages: bool = False

    def value_of(self, text: str) -> str:
        """The canonical value `text` names ("plant based" is "vegan"), or ""."""
        return self.values.get(text, "")

    def compatible_values(self, a: str, b: str) -> bool:
        """Whether two values hold together (a halal diet and a vegetarian one)."""
        return any({a, b} <= set(group) and group[0] in {a, b} for group in self.compatible)


def _value_lexicon(name: str) -> dict[str, str]:
    """A value lexicon file: one value per line, "canonical = other, forms"."""
    values: dict[str, str] = {}
    for line in (LEXICONS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip().lower()
        if not line:
            continue
        canonical, _, others = line.partition("=")
        canonical = canonical.strip()
        for form in (canonical, *others.split(",")):
            if form.strip():
                values[form.strip()] = canonical
    return values


def _values(spec: str | Mapping[str, list[str]] | None) -> dict[str, str]:
    if isinstance(spec, str):
        return {} if spec == "numbers" else _value_lexicon(spec)
    return {form: canonical for canonical, forms in dict(spec or {}).items() for form in forms}


@cache
def registry() -> dict[str, Attribute]:
    """Every attribute, by name, in the registry's order."""
    table = tomllib.loads(REGISTRY.read_text(encoding="utf-8"))
    return {
        name: Attribute(
            name=name,
            label=entry["label"],
            category=entry["category"],
            single=entry.get("single", False),
            domains=tuple(entry.get("domains", ())),
            says=tuple(entry.get("says", ())),
            changes=tuple(entry.get("changes", ())),
            ends=tuple(entry.get("ends", ())),
            denies=tuple(entry.get("denies", ())),
            fixed=dict(entry.get("fixed", {})),
            values=_values(entry.get("values")),
            numeric=entry.get("values") == "numbers",
            compatible=tuple(tuple(group) for group in entry.get("compatible", ())),
            means=dict(entry.get("means", {})),
            article=entry.get("article", False),
            nouns=tuple(entry.get("nouns", ())),
            safety=entry.get("safety", False),
            standing=entry.get("standing", False),
            bare=tuple(entry["bare"]) if "bare" in entry else None,
            ages=entry.get("ages", False),
        )
        for name, entry in table.items()
    }


@cache
def named_by(noun: str) -> Attribute | None:
    """The attribute a noun names in "User's <noun> is ..." (its name, "diet", or one of its
    `nouns`, "favourite"), else None."""
    for entry in registry().values():
        if noun in {entry.name, *entry.nouns}:
            return entry
    return None


def attribute(name: str) -> Attribute:
    """The registry entry of a facet's attribute; a verb's practice ("practice:play") is the
    practice entry."""
    return registry()[name.split(":", 1)[0]]
