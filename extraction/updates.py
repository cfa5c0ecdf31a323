"""What a new fact changes: which stored memories it is about, and whether the user said that
one of them no longer holds. Two general steps, pure functions, for topics no registry entry
was written for:

1. **Link** (`link`): the two facts are about the same person, and they meet in one of: the
   same registry attribute; a content word both say, lemmatised ("nursing" and "nurse",
   "smoke-free" and "smoke"); the chains of the kinds lexicon (`core/lexicons/kinds.txt`: a
   beagle is a dog is a pet, a Fiat is a car); the embedder's cosine at or above
   `LINK_SIMILARITY`. A fact about the user links to one about a person of theirs only by
   that person ("tom and i broke up" and "User's boyfriend Tom ...").
2. **Cue** (`update`): closed classes read from what the user said (the candidate's caption
   and the clause it came from, `Candidate.said`): a change word that ends what was said
   ("quit", "sold", "broke up", "no longer", "-free") or brings another value ("now",
   "switched", "moved", "new"), a polarity flip on the linked concept ("no pets" and "our new
   beagle"), another value of a single-valued attribute; an additive word ("also", "too",
   "another") or another place ("at home", "at work") keeps both. A self-correction ("I
   misspoke", "turns out", "I'm actually", or "not <the old value>": "I'm 170 cm not 180")
   says the linked fact nearest in wording was wrong, when the new one says something else.

A flip needs the negated concept to be the other side's or a broader one ("doesn't drink
alcohol" and "red wine with dinner"; not "doesn't drink beer" and "a glass of wine").
`Update.automatic` marks the changes precise enough to supersede under the `supersede` policy:
an explicit change cue on a linked fact that holds one value at a time, or whose polarity flips.
"""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cache, lru_cache

from core.lexicon import broader, group_heads, lexicon, names, pairs
from core.words import words_of
from extraction.cues import cue_phrases, cues_of, padded, says
from memories.attributes import PRACTICE, attribute, registry
from memories.facets import Facet, facets_read, subject_of

# Cosine at or above which two facts of one person are linked without a shared word or kind
# (measured on the dev splits of bench/data/conflicts_*.jsonl: see docs/benchmarks.md).
LINK_SIMILARITY = 0.6
# What a place name is, for the linker ("in manchester now" and "lives in Bristol").
PLACE = "place"
# How a fact of the user is linked to a fact of a person of theirs.
THEIRS = "their person"


@cache
def _function_words() -> frozenset[str]:
    """The words that name no concept, as written. A phrase of chat openings or of time words
    makes its words no function words ("on the other hand", "right now": "hand", "right")."""
    found: set[str] = set()
    for name in ("function_words", "determiners", "copulas", "auxiliaries", "first_person",
                 "subject_pronouns", "conjunctions", "adverbs", "quantities", "negators",
                 "fillers", "value_breaks", "temporary", "additive_cues"):  # fmt: skip
        phrases = name not in {"fillers", "temporary"}
        found |= {word for entry in lexicon(name) if phrases or " " not in entry
                  for word in entry.split()}  # fmt: skip
    return frozenset(found)


@cache
def _stop_words() -> frozenset[str]:
    """The function words as written and as lemmas ("i've" is "i'v")."""
    return _function_words() | {lemma(word) for word in _function_words()}


@lru_cache(maxsize=8192)
def lemma(word: str) -> str:
    """A word as the linker compares it: inflections and derivations of one stem agree
    ("nursing" and "nurse", "smokes" and "smoking", "allergies" and "allergy")."""
    word = word.strip("'-").removesuffix("'s").removesuffix("\u2019s")
    word = group_heads("same_words").get(word, word)
    word = pairs("participles").get(word, word)
    if len(word) <= 3:
        return word
    plural = word.endswith("ies") and len(word) > 4
    if plural:
        word = word[:-3] + "y"
    if word.endswith(("istry", "ery")) and len(word) > 6:
        word = word[:-2] if word.endswith("istry") else word[:-1]  # dentistry, delivery
    elif not plural:
        for suffix in ("ing", "es", "ed", "s", "er"):
            least = 4 if suffix == "er" else 3  # "teacher" is "teach"; "water" stays
            if word.endswith(suffix) and len(word) - len(suffix) >= least and word[-2:] != "ss":
                word = word[: -len(suffix)]
                break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "ls":
        word = word[:-1]
    stem = word.rstrip("e") if len(word) > 3 else word
    # A lemma is never a function word: "theme" is not "them".
    return word if stem != word and stem in _function_words() else stem


# A number and the unit typed onto it ("180cm", "5kg"): two words.
_NUMBER_UNIT = re.compile(r"\d+(?:[.,]\d+)?|\D+")


def _lemmas(text: str) -> list[str]:
    """The lemmas of a text's words, hyphenated words split ("smoke-free": smoke, free), a
    number apart from its unit ("180cm": 180, cm)."""
    return [
        lemma(piece)
        for word in words_of(text)
        for part in word.split("-")
        for piece in _NUMBER_UNIT.findall(part)
        if piece.strip("'")
    ]


def content_lemmas(text: str) -> list[str]:
    """The lemmas of a text's content words: no function word, no change cue."""
    return [w for w in _lemmas(text) if w not in _stop_words() and w not in _cue_words()]


def _denied_values(text: str) -> set[str]:
    """What a statement says it is not, after its value ("170 cm not 180", "A positive not O
    neg"): the content lemmas of the few words after "not"."""
    words = padded(text).split()
    found: set[str] = set()
    for at, word in enumerate(words):
        if word == "not":
            found |= {
                w for w in _lemmas(" ".join(words[at + 1 : at + 4])) if w not in _stop_words()
            }
    return found


@cache
def _kinds() -> dict[tuple[str, ...], str]:
    """The kinds lexicon by the lemmas of its narrower term."""
    return {
        tuple(_lemmas(narrow)): " ".join(_lemmas(broad))
        for narrow, broad in broader("kinds").items()
    }


@cache
def _places() -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(_lemmas(place)) for place in names("place_names"))


def closure(lemmas: list[str]) -> set[str]:
    """The concepts a text's lemmas name: the content words, each phrase of the kinds lexicon
    and its broader terms up the chain, and "place" for a place name."""
    found = {word for word in lemmas if word not in _stop_words()}
    for size in (3, 2, 1):
        for at in range(len(lemmas) - size + 1):
            phrase = tuple(lemmas[at : at + size])
            if phrase in _places() and not set(phrase) & _stop_words():
                found.add(PLACE)
            kind = _kinds().get(phrase)
            seen: set[str] = set()
            while kind and kind not in seen:
                seen.add(kind)
                found.add(kind)
                kind = _kinds().get(tuple(kind.split()))
    return found


@cache
def _cue_words() -> frozenset[str]:
    return frozenset(
        lemma(word)
        for phrases in cue_phrases().values()
        for phrase in phrases
        for word in phrase.split()
    )


def _people_in(text: str) -> list[str]:
    """The lemmas of the people a text names: a given name, or a person of the user's."""
    return [
        lemma(word)
        for word in words_of(text)
        if word in names("given_names") or word in lexicon("people")
    ]


def _unframed(caption: str) -> str:
    """A caption without the words that name no part of the fact, so that two wordings of one
    fact differ by none of them: the frame a model wraps a fact in ("User mentioned a
    penicillin allergy", "User said that ...", read past by `memories.facets` too) and a
    naming word ("a dog called Rex" and "User's dog Rex"; "name" itself is a concept)."""
    words = caption.split()
    if len(words) > 2 and words[0].lower() == "user" and words[1].lower() in lexicon("reporting"):
        words = ["User", *(words[3:] if words[2].lower() == "that" else words[2:])]
    naming = {entry for entry in lexicon("naming_words") if " " not in entry}
    return " ".join(word for word in words if word.lower() not in naming)


# A capitalised word after the first: a name ("User's boyfriend Tom ...").
_NAME = re.compile(r"(?<!^)\b[A-Z][\w'-]*")


@dataclass(frozen=True)
class Reading:
    """One side of a pair as the linker reads it."""

    subject: str  # "user", or the person it is about (`memories.facets.subject_of`)
    text: str  # what it was read from (a review reason quotes its words as said)
    words: frozenset[str]  # the lemmas of its content words
    concepts: frozenset[str]  # the words, their kinds up the chain, its registry attributes
    people: frozenset[str]  # whom it names besides the user: their kind and their name
    attributes: frozenset[tuple[str, str]]  # (subject, registry attribute) it states
    negative: bool  # it negates or ends what it is about
    objects: frozenset[str]  # what it negates ("alcohol" of "doesn't drink alcohol")
    denies: frozenset[str]  # what a value it states rules out ("meat" of "vegetarian")
    ends: bool
    starts: bool
    corrects: bool  # the user says what they said before was wrong ("I misspoke", "turns out")
    replaces: bool  # another value in place of the old ("switched to", "instead of")
    # What a positive statement says it is not ("not O neg" of "I'm A positive not O neg").
    not_values: frozenset[str]
    additive: bool
    wish: bool  # a wish or a plan ("would love to live in Japan someday"): nothing holds yet
    # What it says the person does, and to what: ("work", {"leeds"}) of "works in Leeds".
    doings: frozenset[tuple[str, frozenset[str]]]
    single: bool  # it states an attribute that holds one value at a time
    # The values of those attributes, and their kinds ("toronto": "place").
    values: frozenset[str]
    value_kinds: frozenset[str]
    scopes: frozenset[str]  # where it holds, when only there ("at work")
    # Its caption's cue words ("sell" of "User sells teapots"): not linked on, but the fact's.
    cued: frozenset[str] = frozenset()
    # The user says it holds one value at a time ("User only wears black"): another value
    # announced with a cue changes it, held for review (`cued_changes.cued_change`).
    exclusive: bool = False
    # A caption "User's <slot> is <value>": the slot's lemmas and the value's ("favourite
    # food", "lasagna"), for two values of one slot the user says holds one.
    slot: frozenset[str] = frozenset()
    slot_value: frozenset[str] = frozenset()


def _registry(facet: Facet) -> bool:
    return not facet.attribute.startswith((f"{PRACTICE}:", "about:"))


@lru_cache(maxsize=8192)
def reading(
    caption: str,
    said: str = "",
    facets: tuple[Facet, ...] | None = None,
    *,
    corrects: bool = False,
) -> Reading:
    """How the linker reads a fact: its caption, and for a candidate the clause the user said
    it in (the cues are read from both, so a caption that lost "now" still has it). A stored
    memory passes the facets stored on it (read from its caption otherwise). `corrects`: the
    message it was said in corrects what the user said before (`extraction.corrections`)."""
    facets = facets_read(caption) if facets is None else facets
    subject = subject_of(caption)
    # The clause may hold other facts of the same message ("I live in Berlin and I work at
    # Acme"): of it, only the cues and the people it names ("tom and i broke up") are read.
    said_in_caption = _lemmas(_unframed(caption))
    lemmas = said_in_caption + _people_in(said)
    cue_words = _cue_words()
    words = frozenset(w for w in lemmas if w not in _stop_words() and w not in cue_words)
    said_of = [f for f in facets if _registry(f) and f.attribute != "owns"]
    named = [lemma(f.attribute) for f in said_of]
    concepts = closure([w for w in lemmas if w not in cue_words] + named) - cue_words
    concepts |= {lemma(f.value) for f in facets if f.value and " " not in f.value}
    found_names = {
        lemma(n.lower()) for n in _NAME.findall(caption) if n.lower() in names("given_names")
    }
    people: set[str] = set()
    if subject != "user":
        people = closure(_lemmas(subject)) | found_names
    cues = cues_of(f"{caption} {said}")
    negated = [f for f in facets if not f.positive and (f.subject == subject)]
    objects = {lemma(w) for f in negated for w in f.value.split()} - _stop_words()
    objects |= {f.attribute.split(":", 1)[1] for f in negated if not f.value and ":" in f.attribute}
    # A registry attribute ended with no value ("got laid off") ends all of it.
    objects |= {
        kind
        for f in negated
        if not f.value and _registry(f)
        for kind in closure([lemma(f.attribute)])
    }
    negative = bool(negated) or "ends" in cues
    if negative and not objects:
        objects = set(words)
    single = [f for f in facets if f.subject == subject and attribute(f.attribute).single]
    values = {lemma(word) for f in single for word in f.value.split()} - _stop_words()
    return Reading(
        subject=subject,
        text=f"{caption} {said}",
        words=words,
        concepts=frozenset(concepts | found_names),
        people=frozenset(people),
        attributes=frozenset((f.subject, f.attribute) for f in facets if _registry(f)),
        negative=negative,
        objects=frozenset(objects),
        denies=frozenset(_denied(facets, subject)),
        ends="ends" in cues or any(f.change and not f.positive for f in facets),
        # A change the registry reads ("went vegetarian", "moved to") is announced too.
        starts=bool(cues & {"starts", "replaces"}) or any(f.change and f.positive for f in facets),
        corrects="corrects" in cues or corrects,
        replaces="replaces" in cues,
        not_values=frozenset(() if negated else _denied_values(caption) | _denied_values(said)),
        additive=says(f"{caption} {said}", "additive_cues"),
        wish=says(f"{caption} {said}", "wishes"),
        doings=frozenset(
            (verb, frozenset(map(lemma, f.value.split())))
            for f in facets
            if f.attribute.startswith(f"{PRACTICE}:") and f.subject == subject
            for verb in [lemma(f.attribute.split(":", 1)[1])]
            if verb not in _stop_words() and verb not in cue_words
        ),
        single=bool(single),
        values=frozenset(values),
        value_kinds=frozenset(closure(sorted(values)) - values),
        scopes=frozenset(f.scope for f in facets if f.scope in lexicon("scopes")),
        cued=frozenset(w for w in said_in_caption if w in cue_words) - _stop_words(),
        exclusive=says(caption, "exclusives"),
        **_slot_of(caption),
    )


# "User's favourite food is lasagna": whose, the slot, the value.
_SLOT = re.compile(r"^User's (?P<slot>.+?) (?:is|are) (?P<value>.+)$")


def _slot_of(caption: str) -> dict[str, frozenset[str]]:
    """The slot and the value of a caption "User's <slot> is <value>" (none for another)."""
    found = _SLOT.match(caption.rstrip("."))
    if not found:
        return {}
    return {
        "slot": frozenset(content_lemmas(found["slot"])),
        "slot_value": frozenset(content_lemmas(found["value"])),
    }


@cache
def _denials() -> dict[tuple[str, str], frozenset[str]]:
    """What each value rules out, from the registry's practices that state it ("not eat meat"
    is a vegetarian diet: a vegetarian rules out meat)."""
    found: dict[tuple[str, str], set[str]] = {}
    for entry in registry().values():
        for said, value in entry.means.items():
            words = said.split()
            if words[0] == "not" and len(words) > 2:
                found.setdefault((entry.name, value), set()).update(map(lemma, words[2:]))
    return {key: frozenset(objects) for key, objects in found.items()}


def _denied(facets: tuple[Facet, ...], subject: str) -> set[str]:
    return {
        word
        for f in facets
        if f.positive and f.subject == subject
        for word in _denials().get((f.attribute, f.value), ())
    }


def same_person(new: Reading, old: Reading) -> bool:
    """The same person, or the user and a person of theirs that the user's fact names
    ("tom and i broke up" and "User's boyfriend Tom ..."; "no kids" and "User's daughter")."""
    if new.subject == old.subject:
        return True
    if new.subject == "user":
        return bool(old.people & new.concepts)
    if old.subject == "user":
        return bool(new.people & old.concepts)
    return False


def link(new: Reading, old: Reading, similarity: float) -> str:
    """How the new fact is about the old one ("" when it is not): see the module docstring."""
    if not same_person(new, old):
        return ""
    if new.attributes & old.attributes:
        return "same attribute"
    if new.subject != old.subject:
        return THEIRS
    shared = new.words & old.words
    if shared:
        return f"both say '{sorted(shared)[0]}'"
    if distinct_attributes(new, old):
        return ""  # the registry reads two kinds of fact ("grew up in", "lives in")
    kinds = new.concepts & old.concepts
    if kinds:
        return f"both are about '{sorted(kinds)[0]}'"
    if similarity >= LINK_SIMILARITY:
        return "close wording"
    return ""


def distinct_attributes(new: Reading, old: Reading) -> bool:
    """Whether the registry reads each side as its own single-valued attribute and none of
    the other's ("grew up in Lyon" and "lives in Paris now"); an ended one ("got laid off")
    may still end the other ("is a PM at Meta")."""
    if new.negative or old.negative:
        return False
    mine = {name for subject, name in new.attributes if subject == new.subject}
    theirs = {name for subject, name in old.attributes if subject == old.subject}
    mine = {name for name in mine if attribute(name).single}
    theirs = {name for name in theirs if attribute(name).single}
    return bool(mine and theirs) and not mine & theirs


def _as_said(lemmas: AbstractSet[str], *readings: Reading) -> str:
    """One of the lemmas as the text wrote it (the longest), for the review reason."""
    for found in sorted(lemmas, key=lambda w: (-len(w), w)):
        for reading in readings:
            for word in words_of(reading.text):
                if lemma(word) == found:
                    return word
        return found
    return ""


@dataclass(frozen=True)
class Update:
    """The new fact says the old one no longer holds: why, and whether it may supersede."""

    reason: str
    automatic: bool
    # A correction of what the user said before: it changes only the linked fact nearest in
    # wording (`extraction.decisions.changes_found`), not every fact it links to.
    correction: bool = False
    # For review only, even when the new fact is dated (`decisions._dated_change`).
    held: bool = False


def update(new: Reading, old: Reading, similarity: float) -> Update | None:
    """Whether the new fact changes the old one (see the module docstring), else None."""
    how = link(new, old, similarity)
    if not how or new.additive or new.wish:
        return None
    if new.scopes and old.scopes and new.scopes != old.scopes:
        return None
    explicit = new.ends or new.starts
    corrected = _corrected(new, old)
    if corrected:  # "I misspoke, I'm actually right-handed", "I'm 170 cm not 180"
        return Update(
            f"corrected: '{_as_said(corrected, new)}' now ({how})",
            automatic=old.single or bool(new.not_values & old.words),
            correction=True,
        )
    ruled_out = (new.denies & old.concepts) if not old.negative else set()
    ruled_out = ruled_out or ((old.denies & new.concepts) if not new.negative else set())
    if ruled_out:  # "went vegetarian" and "steak is my fave"
        return Update(f"rules out '{_as_said(ruled_out, new, old)}' ({how})", automatic=explicit)
    if new.negative != old.negative:
        negative, positive = (new, old) if new.negative else (old, new)
        known = positive.concepts | positive.people
        met = negative.objects & known
        # Announced ("gave up writing the novel"), one word of what ends is enough; else the
        # whole of what is negated must be the other's or broader ("doesn't like horror
        # films" does not end "loves films").
        if not met or not (explicit or negative.objects <= known):
            return None
        said = "ended" if new.negative else "now so"
        return Update(f"{said}: '{_as_said(met, old, new)}' ({how})", automatic=explicit)
    # Another value of what holds one value at a time: announced ("now", "switched"), or of
    # the same kind as the old value ("Vancouver" after "Toronto"; a MacBook after "my only
    # computer is a ThinkPad"). The registry's own attributes were compared by their facets.
    # Their person is linked to end what was said of them ("broke up"), never to change it
    # ("Tom and I got engaged" changes nothing of "User's boyfriend Tom is a chef").
    # "switched to" replaces even what may hold several values, linked by a word or a kind.
    if new.negative or not (old.single or new.replaces):
        return None
    if how in {"same attribute", "close wording", THEIRS}:
        return None
    other = new.words - old.concepts - old.people
    kinded = {word for word in other if closure([word]) & old.value_kinds}
    if any(verb not in old.words and values & kinded for verb, values in new.doings):
        return None  # another relation to the value ("works in Manchester", "lives in Leeds")
    kinds = new.concepts - new.words
    if not other or kinds & old.values or not (new.starts or kinds & old.value_kinds):
        return None  # nothing else said, a kind of the old value ("rail" of "train"), or no cue
    automatic = new.starts and old.single
    return Update(f"changed: '{_as_said(other, new)}' now ({how})", automatic=automatic)


def _corrected(new: Reading, old: Reading) -> set[str]:
    """What the new fact says instead, when it corrects the old one: the user says they were
    wrong (a `corrects` cue) or that they are not what the old fact says ("not 180"), of the
    same person, both positive, and the new one says something the old one did not (a
    correction that repeats the old fact restates it)."""
    denies_old = new.not_values & (old.words | old.values)
    # Denying the old value is a correction of the same slot only: another word or attribute
    # shared ("170 cm not 180" and "180cm tall"), not "likes cats not dogs" and "has a dog".
    slot = (new.words & old.words) - new.not_values or new.attributes & old.attributes
    if not (new.corrects or (denies_old and slot)) or new.subject != old.subject:
        return set()
    if new.negative or old.negative:
        return set()  # a flip ("turns out I'm not allergic") is read as one
    return set(new.words - old.words - new.not_values)


def announced(new: Reading, old: Reading) -> bool:
    """Whether the user's own words announce the change precisely enough to supersede the old
    fact at once: a change cue, on a fact that holds one value at a time or whose polarity
    flips (for a change the LLM advised and the rules did not read)."""
    return (new.ends or new.starts) and (old.single or new.negative != old.negative)
