"""A memory's facets: whose fact it is, which attribute, what value, and its polarity.

`read` takes a third-person caption ("User lives in Munich", "User's brother is a nurse",
"User quit smoking") and returns the facets the registry of attributes (`memories.attributes`)
recognises in it. It builds no caption and guesses nothing from a word's ending: an attribute
is read only from a phrase the registry lists ("lives in", "moved to", "is allergic to") or a
value its closed class names ("vegan", "nurse"). A phrase several attributes share gives one
reading each ("quit" ends a job and a habit); the judge keeps the one that meets a stored
fact. A verb no attribute lists is a practice of that verb ("User plays the cello").

The facets are stored on the memory (`Memory.facets`), so the judge compares readings, not
re-parsed captions.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from functools import cache, lru_cache

from core.lexicon import broader, group_heads, lexicon, pairs
from core.words import words_of
from memories.attributes import PRACTICE, Attribute, attribute, named_by, registry


@dataclass(frozen=True)
class Facet:
    subject: str  # "user", or the person the fact is about ("brother", "cat")
    attribute: str  # a registry name; "practice:<verb>" for a verb no attribute lists
    value: str  # the canonical value, or the value's own words ("" when none is said)
    positive: bool = True
    change: bool = False  # announced as a change ("moved to", "quit")
    past: bool = False  # true once, not now ("used to", "was")
    scope: str = ""  # where it holds, when only there ("at work")

    def as_json(self) -> dict:
        return asdict(self)

    @classmethod
    def of(cls, data: dict) -> Facet:
        """A stored facet; whom it is about named as facets are read now ("mother" is "mum")."""
        facet = cls(**{key: data[key] for key in cls.__dataclass_fields__ if key in data})
        return replace(facet, subject=one_person(facet.subject))


@cache
def _phrases() -> tuple[tuple[tuple[str, ...], str, str, Attribute], ...]:
    """Every phrase of the registry as (words, kind, fixed value, attribute), longest first."""
    found = []
    for entry in registry().values():
        for kind in ("says", "changes", "ends", "denies"):
            for phrase in getattr(entry, kind):
                found.append((tuple(phrase.split()), kind, "", entry))
        for phrase, value in entry.fixed.items():
            found.append((tuple(phrase.split()), "fixed", value, entry))
    return tuple(sorted(found, key=lambda item: -len(item[0])))


def _opens(words: list[str], phrase: tuple[str, ...]) -> list[str] | None:
    """The words after `phrase` at the start of `words` ("{}" takes the value), else None;
    with a "{}" the value comes first."""
    if "{}" not in phrase:
        size = len(phrase)
        if len(words) < size or tuple(words[1:size]) != phrase[1:]:
            return None
        # The first word in any form of its verb ("bike to work" is "bikes to work").
        same = words[0] == phrase[0] or (size > 1 and _verb(words[0]) == _verb(phrase[0]))
        return words[size:] if same else None
    at = phrase.index("{}")
    head, tail = phrase[:at], phrase[at + 1 :]
    if tuple(words[:at]) != head:
        return None
    for end in range(at + 1, len(words) - len(tail) + 1):
        if tuple(words[end : end + len(tail)]) == tail:
            return words[at:end]
    return None


def _strip(words: list[str], name: str, keep: str = "") -> list[str]:
    """`words` without the entries of a lexicon it opens with (one or two words each), up to
    one of the lexicon `keep` ("never" is an adverb, and a negator the caller reads)."""
    entries = lexicon(name)
    kept = lexicon(keep) if keep else frozenset()
    while words:
        if " ".join(words[:2]) in entries:
            words = words[2:]
        elif words[0] in entries and words[0] not in kept:
            words = words[1:]
        else:
            break
    return words


def _cut(words: list[str]) -> list[str]:
    """The value: the words up to a value break ("Munich with their wife" is "Munich")."""
    breaks = lexicon("value_breaks")
    for at in range(len(words)):
        if words[at] in breaks or " ".join(words[at : at + 2]) in breaks:
            return words[:at]
    return words


def kind_of(value: str) -> str:
    """What kind of person or pet a value names ("daughter" is one of the user's kids), for
    "User has no kids" against "User's daughter ..."; the value itself when none is listed."""
    return pairs("person_kinds").get(value, value)


def _key(word: str) -> str:
    """A word as values are compared: "peanuts" and "peanut", "kids" and "children" agree."""
    if word in group_heads("same_words"):
        return group_heads("same_words")[word]
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _verb(word: str) -> str:
    """A verb's root as practices are compared ("smokes", "smoking" and "smoke" agree)."""
    word = pairs("participles").get(word, word)
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 2:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2]:
        word = word[:-1]
    return word.rstrip("e")


@cache
def _empty_words() -> frozenset[str]:
    return lexicon("generic_words") | lexicon("quantities")


def _value(entry: Attribute, words: list[str]) -> str | None:
    """The value of `entry` said by `words`: a canonical value its class names (anywhere in the
    words, the longest first), a number for a numeric one, else its own words; None when the
    attribute has a closed class that names none of them."""
    if entry.numeric:
        return words[0] if words and words[0].isdigit() and len(words[0]) <= 3 else None
    if entry.values:
        article = words[:1] in (["a"], ["an"]) or entry.article  # "is a" took the article
        words = _strip(_strip(words, "adverbs"), "quantities")
        # "a strict vegetarian", "a Shopify software engineer", "a night shift nurse": after an
        # article, up to two words may describe the value first ("learning Japanese" is no
        # nationality).
        for at in range(0, min(len(words), 3) if article else 1):
            for size in range(min(len(words) - at, 4), 0, -1):
                found = entry.value_of(" ".join(words[at : at + size]))
                if found:
                    return found
        return None
    if entry.name == PRACTICE:
        # What a practice is done to, with where and what for ("vintage violins from Quito"
        # and "from Hanoi" are two things): only the words that carry nothing are dropped.
        kept = [word for word in words if word not in lexicon("value_breaks")]
    else:
        kept = _cut(words)
    kept = _strip(kept, "quantities")
    return " ".join(_key(word) for word in kept if word not in _empty_words())


def _readings(subject: str, words: list[str], positive: bool, past: bool) -> list[Facet]:
    """The registry's readings of a predicate ("lives in Munich"), else a practice of its verb
    ("plays the cello"); a state after "is" ("is learning Japanese") is a practice too."""
    for phrase, kind, fixed, entry in _phrases():
        if kind == "fixed" and _opens(words, phrase) is not None:
            if entry.name == PRACTICE:  # "is smoke-free" is "not smoke"
                said, held = _practice_said(fixed)
                return [replace(said, subject=subject, positive=held == positive, past=past)]
            return [Facet(subject, entry.name, fixed, positive, False, past)]
    found: list[Facet] = []
    matched = 0
    for phrase, kind, _fixed, entry in _phrases():
        if kind == "fixed" or len(phrase) < matched:
            continue
        rest = _opens(words, phrase)
        if rest is None:
            continue
        if entry.name == PRACTICE:  # "quit smoking": the habit of smoking ends
            if rest:
                found.append(Facet(subject, f"{PRACTICE}:{_verb(rest[0])}",
                                   _value(entry, rest[1:]) or "", False, True, past))  # fmt: skip
            matched = len(phrase)
            continue
        value = _value(entry, rest)
        if value is None or (not value and kind != "ends"):
            continue
        matched = len(phrase)
        found.append(
            Facet(
                subject,
                entry.name,
                value,
                positive=positive and kind not in {"ends", "denies"},
                change=kind in {"changes", "ends"},
                past=past,
            )
        )
        if entry.name == "owns" and value:  # "has a dog named Max": the dog's name too
            found.extend(_named(subject, value, rest))
    if found:
        return _preferred(found)
    if words[:1] == ["is"]:
        words = _strip(words[1:], "quantities")
    if words and words[0] not in lexicon("auxiliaries") and words[0] not in {"has", "was"}:
        value = _value(registry()[PRACTICE], words[1:]) or ""
        return [Facet(subject, f"{PRACTICE}:{_verb(words[0])}", value, positive, False, past)]
    return []


def _practice_said(text: str) -> tuple[Facet, bool]:
    """A practice as the registry writes it ("not eat meat"), and whether it holds."""
    words = text.split()
    held = words[0] != "not"
    words = words if held else words[1:]
    value = _value(registry()[PRACTICE], words[1:]) or ""
    return Facet("user", f"{PRACTICE}:{_verb(words[0])}", value), held


@cache
def _meanings() -> tuple[tuple[Facet, bool, str, str], ...]:
    """Each practice the registry says states a value: (practice, holds, attribute, value)."""
    return tuple(
        (*_practice_said(said), entry.name, value)
        for entry in registry().values()
        for said, value in entry.means.items()
    )


def _meant(facet: Facet) -> list[Facet]:
    """The values a practice states ("doesn't eat meat" is a vegetarian diet)."""
    return [
        Facet(facet.subject, name, value, True, facet.change, facet.past)
        for said, held, name, value in _meanings()
        if said.attribute == facet.attribute
        and set(said.value.split()) <= set(facet.value.split())
        and held == facet.positive
    ]


def _named(subject: str, value: str, words: list[str]) -> list[Facet]:
    for marker in ("named", "called"):
        if marker in words[:-1]:
            thing = value.split()[0] if subject == "user" else f"{subject}'s {value.split()[0]}"
            return [Facet(thing, "name", words[words.index(marker) + 1])]
    return []


def _preferred(found: list[Facet]) -> list[Facet]:
    """One reading per attribute and value (an announced change first); a value a closed class
    names ("married", "linux") wins over an open reading of the same words."""
    closed = [f for f in found if attribute(f.attribute).values]
    if closed:
        found = closed + [f for f in found if f.attribute.startswith(PRACTICE)]
    kept: dict[tuple[str, str], Facet] = {}
    for facet in found:
        key = (facet.attribute, facet.value)
        if key not in kept or facet.change:
            kept[key] = facet
    return list(kept.values())


def _subject(words: list[str]) -> tuple[str, list[str], bool] | None:
    """Whom a caption is about, the words after, and whether those open with a noun ("User's
    job is ..."); None when it is not about the user. An LLM's frame ("The user mentioned
    being 42", "According to the user, they are ...") is taken off."""
    if words[:4] == ["according", "to", "the", "user"]:
        words = ["user", *words[4:]]
    if words[:1] == ["the"]:
        words = words[1:]
    if not words or words[0] not in {"user", "user's"}:
        return None
    if words[0] == "user":
        words = _strip(words[1:], "reporting")
        words = words[1:] if words[:1] == ["that"] else words
        if words[:1] == ["their"]:  # "mentioned their two daughters"
            words = ["user's", *words[1:]]
        else:
            if words[:1] == ["they"]:
                words = words[1:]
            words = [_BEING.get(words[0], words[0]), *words[1:]] if words else words
            if words[:2] == ["and", "their"]:  # "User and their wife ..." is the household
                words = words[3:]
            return "user", words, False
    words = _strip(words[1:], "quantities")
    for size in (3, 2, 1):
        person = " ".join(words[:size]).removesuffix("'s")
        person = person if person in lexicon("people") else person.removesuffix("s")
        # A breed of a pet is the pet ("User's corgi is called Biscuit": a dog), not the user.
        if person in lexicon("people") or _kind_chain(person)[2:][-1:] == ["pet"]:
            # "User's cat's name is Luna" is the cat's name.
            person = one_person(person)
            return person, words[size:], " ".join(words[:size]).endswith("'s")
    return "user", words, True


# An LLM's wording of the user's own verb ("they are based in", "being 42").
_BEING = {"are": "is", "being": "is", "were": "was", "having": "has", "have": "has"}


@cache
def _one_person() -> dict[str, str]:
    """Words naming one person (`same_words`: "mother" and "mum"), each to its group's first;
    not a pet's (the kinds lexicon): "a kitten" and "a cat" may be two animals."""
    pets = {word for word in broader("kinds") if _kind_chain(word)[-1] == "pet"}
    heads = group_heads("same_words").items()
    return {word: head for word, head in heads if head in lexicon("people") and head not in pets}


def _kind_chain(word: str) -> list[str]:
    chain = [word]
    while chain[-1] in broader("kinds") and broader("kinds")[chain[-1]] not in chain:
        chain.append(broader("kinds")[chain[-1]])
    return chain


def one_person(person: str) -> str:
    """One name for a person written two ways ("mother" is "mum"); any other word as it is."""
    return _one_person().get(person, person)


def subject_of(caption: str) -> str:
    """Whom a caption is about: "user", or the person it names ("User's brother lives..." is
    about the brother; "User's job is..." is about the user)."""
    parsed = _subject(words_of(caption))
    return parsed[0] if parsed else "user"


def _clauses(words: list[str]) -> list[list[str]]:
    clauses: list[list[str]] = [[]]
    for word in words:
        if word in {"and", "but", "so", "because", "while", "since"} and clauses[-1]:
            clauses.append([])
        else:
            clauses[-1].append(word)
    return [clause for clause in clauses if clause]


def _negated(words: list[str]) -> tuple[list[str], bool]:
    """The words without the negation they open with, and whether there was one ("does not
    eat", "is no longer", "has no", "can't")."""
    positive = True
    for _ in range(2):
        if words and words[0] in lexicon("auxiliaries"):
            words = words[1:]
        if words[:1] in (["is"], ["has"], ["was"]) and len(words) > 1:
            rest, kept = _negated(words[1:]) if words[1:2] != ["no"] else (words[2:], False)
            if not kept:
                return [words[0], *rest], False
        head = " ".join(words[:2])
        if head in lexicon("negators"):
            words, positive = words[2:], False
        elif words[:1] and words[0] in lexicon("negators"):
            words, positive = words[1:], False
        words = _strip(words, "adverbs")
    if words:
        words = [pairs("verb_forms").get(words[0], words[0]), *words[1:]]
    return words, positive


def _predicate(subject: str, words: list[str]) -> list[Facet]:
    past = False
    words = _strip(words, "adverbs", keep="negators")  # "never" is read as a negation below
    if words[:2] == ["has", "been"] and words[2:3] != ["to"]:  # "has been a Liverpool fan"
        words = ["is", *words[2:]]
    if words[:2] == ["used", "to"]:
        past, words = True, words[2:]
        words = ["is", *words[1:]] if words[:1] == ["be"] else words
    if words[:1] and (words[0] in lexicon("negators") or words[0] == "is"):
        # A phrase that holds its own negation ("can't stand", "is not a fan of").
        for phrase, kind, _fixed, _entry in _phrases():
            if kind == "denies" and _opens(words, phrase) is not None:
                return _readings(subject, words, True, past)
    words, positive = _negated(words)
    if words[:1] in (["was"], ["were"], ["had"]):
        past = True
    if not words:
        return []
    found = _readings(subject, words, positive, past)
    if words[0] in lexicon("aspect_verbs") and len(words) > 1:
        verb = f"{PRACTICE}:{_verb(words[0])}"
        if all(facet.attribute == verb for facet in found):
            # "started eating meat again", "finished moving to Chicago": what began, announced.
            found = [replace(f, change=True) for f in _readings(subject, words[1:], positive, past)]
    return [*found, *(meant for facet in found for meant in _meant(facet))]


def _noun_fact(subject: str, words: list[str]) -> list[Facet]:
    """ "User's <noun> is <value>" ("User's job is nursing", "User's favourite colour is
    green"): the noun names the attribute when the registry has it, else is its own."""
    if "is" not in words[1:4]:
        return []
    at = words.index("is", 1)
    noun, value = " ".join(words[:at]), _strip(words[at + 1 :], "adverbs")
    kind = registry().get(words[at - 1])
    if at > 1 and kind is not None and not kind.values:  # "User's shellfish allergy is gone"
        ended = bool(value) and value[0] in lexicon("ended_states")
        return [Facet(subject, kind.name, " ".join(_key(w) for w in words[: at - 1]), not ended)]
    entry = registry().get(noun.replace(" ", "_")) or named_by(words[0])
    if entry is not None:
        found = _value(entry, value)
        return [Facet(subject, entry.name, found)] if found else []
    return [Facet(subject, f"about:{noun}", _value(registry()[PRACTICE], value) or "")]


def read(text: str) -> tuple[Facet, ...]:
    """The facets a third-person caption states (see the module docstring)."""
    parsed = _subject(words_of(text))
    if parsed is None:
        return ()
    subject, rest, noun = parsed
    if noun:
        return tuple(_noun_fact(subject, rest))
    if rest[:2] == ["name", "is"]:
        return (Facet(subject, "name", " ".join(_cut(rest[2:]))),)
    names = {word.lower() for word in _NAME.findall(text)}
    if subject != "user" and rest[:1] and rest[0] in names:  # "User's brother Tom lives ..."
        rest = rest[1:]
    found: list[Facet] = []
    for clause in _clauses(rest):
        value = _strip(clause[1:], "adverbs")
        if subject != "user" and clause[:1] == ["is"] and value[:1] and value[0] in names:
            found.append(Facet(subject, "name", value[0]))  # "User's manager is Tom"
            continue
        scope = _scope(clause)
        for facet in _predicate(subject, clause):
            facet = replace(facet, scope=scope) if scope else facet
            if facet not in found:
                found.append(facet)
    if subject != "user":  # "User's two kids are 4 and 7": the user has kids
        found.append(Facet("user", "owns", _key(subject.split()[-1])))
    return tuple(found)


def _scope(clause: list[str]) -> str:
    """Where or what for a fact holds, when the clause narrows it ("at work", "for scripting")."""
    scope = next((scope for scope in lexicon("scopes") if _has(clause, scope)), "")
    if not scope and "for" in clause[2:]:
        at = len(clause) - 1 - clause[::-1].index("for")
        # "for a few years" says how long, not where or what for.
        if not set(clause[at:]) & lexicon("durations"):
            scope = " ".join(clause[at:])
    return scope


def _has(words: list[str], phrase: str) -> bool:
    size = len(phrase.split())
    return any(" ".join(words[at : at + size]) == phrase for at in range(len(words)))


# A capitalised word after the first: a name ("User's cat Luna is 16").
_NAME = re.compile(r"(?<!^)\b[A-Z][\w'-]*")


def states_safety(caption: str) -> bool:
    """Whether a caption states a health or safety fact of anyone (the registry's `safety`
    attributes: an allergy, a condition), which a context never cuts for a lesser fact."""
    return any(
        not facet.attribute.startswith("about:") and attribute(facet.attribute).safety
        for facet in facets_read(caption)
        if facet.positive
    )


def states_standing(caption: str) -> bool:
    """Whether a caption states a fact of the user that shapes any answer: a `standing`
    attribute of the registry (their name, where they live) or a health or safety fact."""
    return any(
        facet.subject == "user"
        and not facet.attribute.startswith("about:")
        and (attribute(facet.attribute).standing or attribute(facet.attribute).safety)
        for facet in facets_read(caption)
        if facet.positive and not facet.past
    )


def category_of(caption: str) -> str | None:
    """The category the registry files a caption's fact under ("User quit their job" is
    personal, "User prefers dark mode" a preference), None when it reads no attribute."""
    for facet in facets_read(caption):
        if not facet.attribute.startswith("about:"):
            return attribute(facet.attribute).category
    return None


@lru_cache(maxsize=8192)
def facets_read(*texts: str) -> tuple[Facet, ...]:
    """The facets of a memory's texts, each once (cached by text: a conversation compares
    each memory often; bounded, since a server sees captions without end)."""
    return tuple(dict.fromkeys(facet for text in texts for facet in read(text)))


def facets_of(*texts: str) -> list[dict]:
    """The facets of a memory's texts, as stored on `Memory.facets`."""
    return [facet.as_json() for facet in facets_read(*texts)]
