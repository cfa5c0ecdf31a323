"""The people and pets a clause names: "my gf priya", "our 2 kids", "Tom and I".

The reader uses them three ways: a later "she", "he" or "they" is the person last named
("my gf priya ... shes vegan" is "User's gf priya is vegan"); a subject that joins the user
and someone else is a fact of both ("me and my gf priya are planning ..." is "User and their
gf priya are planning ...", never "User's gf priya are planning"); and the people listed after
"with" ("living in milan with my wife giulia and our 2 kids") are each their own fact.

A relation is a word of the closed class `core/lexicons/people.txt`. The word after it is a
name only where the structure says so: the message capitalises it, or what follows it is a
verb the registry reads ("my sister anna is a nurse", "my brother tom works as a chef"), or it
ends a list after "with" ("with my wife giulia and ..."), where no verb can stand. A word of
any closed class (a function word, an adverb, a time word) is never a name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from core.lexicon import broader, lexicon, names, pairs
from core.words import word_spans, words_of
from extraction.verbs import finite
from memories.facets import read as read_facets


@dataclass(frozen=True)
class Mention:
    """One of the user's people as a clause names them ("my older brother tom")."""

    relation: str  # "brother", "gf", "best friend"
    name: str | None = None  # as the user wrote it ("tom"), when said
    count: str | None = None  # "2" in "our 2 kids"
    end: int = 0  # the index of the word after the mention

    def said(self) -> str:
        """The relation and name ("gf priya"), as a pronoun's subject."""
        return f"{self.relation} {self.name}" if self.name else self.relation


@cache
def _never_names() -> frozenset[str]:
    return frozenset().union(
        *(
            lexicon(name)
            for name in (
                "value_breaks", "value_ends", "first_person", "copulas", "auxiliaries",
                "negators", "adverbs", "generic_words", "people", "conjunctions", "fillers",
                "subject_pronouns", "determiners", "temporary", "quantities",
            )
        ),
        {"called", "named", "who", "whos", "who's", "both", "all"},
    )  # fmt: skip


@cache
def _kinds() -> dict[str, str]:
    return broader("kinds")


def one_of_theirs(relation: str) -> bool:
    """Whether a relation is one of the people or pets in a user's life (`people.txt`), or a
    kind of one (`kinds.txt`: a corgi is a dog, a tabby a cat)."""
    seen: set[str] = set()
    while relation and relation not in seen:
        if relation in lexicon("people") or relation.split()[-1] in lexicon("people"):
            return True
        seen.add(relation)
        relation = _kinds().get(relation, "")
    return False


def never_name(word: str) -> bool:
    """Whether a word is of a closed class, and so never anyone's name."""
    return word in _never_names()


def _cased(text: str) -> list[str]:
    """The words of `text` as typed, aligned with `words_of(text)`."""
    return words_of(text, case=True)


def _is_name(words: list[str], cased: list[str], at: int, *, listed: bool) -> bool:
    """Whether the word at `at`, right after a relation, is the person's name."""
    if at >= len(words):
        return False
    word = words[at].removesuffix("'s")
    if not word.isalpha() or word in _never_names():
        return False
    if cased[at][:1].isupper():
        return True
    after = words[at + 1 : at + 2]
    if words[at].endswith("'s") or (after and after[0] in lexicon("copulas")):
        return True  # "my gf priya's vegan", "my brother tom is a chef"
    if listed and (not after or after[0] in {"and", "or"}):
        return True  # "with my wife giulia and our 2 kids": no verb stands in a list
    if after and finite(after[0]) and word in names("given_names"):
        return True  # "my sister anna plays the cello": a given name, then a verb
    rest = " ".join(words[at + 1 : at + 7])
    return bool(rest) and any(
        f.attribute.split(":")[0] not in {"practice", "about"} for f in read_facets(f"User {rest}")
    )


def mention_at(text: str, at: int, *, listed: bool = False) -> Mention | None:
    """The person named from word `at` of `text` ("my"/"our", a count or a word that describes
    them, the relation, maybe a name), else None."""
    words, cased = words_of(text), _cased(text)
    if len(cased) != len(words) or words[at : at + 1] not in (["my"], ["our"]):
        return None
    count = None
    for start in (at + 1, at + 2):
        for size in (3, 2, 1):
            relation = " ".join(words[start : start + size]).removesuffix("'s")
            if relation not in lexicon("people") or start + size > len(words):
                continue
            between = words[at + 1 : start]
            if between and (between[0].isdigit() or between[0] in lexicon("numerals")):
                count = between[0]
            elif between and between[0] in lexicon("people"):
                continue  # "my sister anna": "anna" is no relation's describer
            end = start + size
            name = None
            if not words[start + size - 1].endswith("'s") and _is_name(
                words, cased, end, listed=listed
            ):
                name, end = cased[end].removesuffix("'s"), end + 1
            return Mention(relation, name, count, end)
    return None


def last_person(clause: str, current: str) -> str:
    """Who the clause names last ("my mum", "our new puppy", "my gf priya"), else `current`."""
    words = words_of(clause)
    owned = [at for at in range(len(words) - 1, -1, -1) if words[at] in {"my", "our"}]
    # Each look reads the clause again: a hostile run of "my"s is read only at its end.
    for at in owned[:_MOST_LOOKS]:
        found = mention_at(clause, at)
        if found is not None:
            return found.said()
    return current


# The most "my"s of one clause `last_person` looks at, from its end.
_MOST_LOOKS = 20


# "she", "he", "they" at the start of a clause: the person the user named last ("my mum has
# dementia, she lives with us now"), with the verb the contraction stands for.
_PRONOUN = re.compile(r"^(?:she|he|they)(?P<verb>'s|'re| is| are|\b)", re.I)
# "she's got", "he's been": the 's of "has".
_HAS = frozenset({"got", "been", "gotten", "had"})


def resolved(part: str, person: str) -> str:
    """A clause opening with a pronoun for the person last named, about that person ("we got
    a cat, she's shy", "..., her name is Mochi")."""
    if person and (owned := _POSSESSIVE.match(part)):
        return _owned(part, owned, person)
    match = _PRONOUN.match(part)
    if not match or not person:
        return part
    several = person.split()[0] in lexicon("people_plural")  # "my parents ... theyre ..."
    if match.group(0).lower().startswith("they") and not several:
        return part  # "my wife ... we have twins theyre 2": "they" is never one person
    gender = pairs("people_genders").get(_head(person))
    if gender and match.group(0).lower().split()[0].split("'")[0] in {"he", "she"} - {gender}:
        return part  # "a son ... shes 9": not the son; the clause stays unread
    rest = part[match.end() :]
    verbs = {"'s": " is", "'re": " are" if several else " is", " are": " are" if several else " is"}
    verb = verbs.get(match["verb"], match["verb"])
    if match["verb"] == "'s" and words_of(rest)[:1] and words_of(rest)[0] in _HAS:
        verb = " has"
    return f"my {person}{verb}{rest}"


_POSSESSIVE = re.compile(r"^(?P<whose>his|her|their) (?=\w)", re.I)
_POSSESSIVE_PERSON = {"his": "he", "her": "she"}


def _owned(part: str, owned: re.Match, person: str) -> str:
    """ "her name is Mochi" as "my cat's name is Mochi": the clause unchanged unless the
    pronoun can be the person's (never "his" for a sister, "their" for one person)."""
    whose = owned["whose"].lower()
    several = person.split()[0] in lexicon("people_plural")
    if (whose == "their") != several:
        return part
    gender = pairs("people_genders").get(_head(person))
    if gender and _POSSESSIVE_PERSON.get(whose, gender) != gender:
        return part
    mark = "'" if several and person.endswith("s") else "'s"  # "my parents' house"
    return f"my {person}{mark} {part[owned.end() :]}"


def _head(person: str) -> str:
    """The relation a person is named by ("gf" of "gf priya", "boyfriend" of "sister's
    boyfriend")."""
    return person.split("'s ")[-1].split()[0]


def together(part: str, *, opens_sentence: bool = True) -> str | None:
    """A subject that joins the user and one of their people, as a fact of both: "me and my gf
    priya are planning a trip" is "User and their gf priya are planning a trip", "Tom and I
    got married" is "User and Tom got married"; None for any other clause. A name alone is a
    subject only where a sentence opens: after a comma it may end a list ("Austin, Texas and
    I work at Dell")."""
    words, cased = words_of(part), _cased(part)
    if len(words) != len(cased) or "and" not in words[:6]:
        return None
    joint = words.index("and")
    if joint == 1 and words[0] in {"me", "i"}:
        other, end = _other(part, words, cased, 2)
    elif words[joint + 1 : joint + 2] in (["i"], ["me"]):
        other, end = _other(part, words, cased, 0)
        end = joint + 2 if end == joint and (opens_sentence or words[0] == "my") else -1
    else:
        return None
    if other is None or end < 0 or end >= len(words):
        return None
    rest = " ".join(part.split()[len(part.split()) - (len(words) - end) :])
    return f"User and {other} {_their(rest)}"


def _other(text: str, words: list[str], cased: list[str], at: int) -> tuple[str | None, int]:
    """The person joined with the user from word `at` ("their gf priya", "Tom"), and the index
    of the word after them."""
    found = mention_at(text, at)
    if found is not None:
        said = " ".join(cased[at + 1 : found.end])
        return f"their {said}", found.end
    if at < len(words) and _is_name(words, cased, at, listed=False):
        return cased[at], at + 1
    return None, -1


_MINE = (
    (re.compile(r"\b(?:my|our)\b", re.I), "their"),
    (re.compile(r"\b(?:me|us)\b", re.I), "them"),
)


def _their(text: str) -> str:
    for pattern, replacement in _MINE:
        text = pattern.sub(replacement, text)
    return text.rstrip(" .!,")


def listed_with(text: str) -> tuple[int, list[Mention]] | None:
    """The people listed after the clause's last "with" ("with my wife giulia and our 2 kids"),
    each a fact of its own, and where the list starts; None unless every word after "with" is
    one of them."""
    words = words_of(text)
    if "with" not in words[1:]:
        return None
    start = len(words) - 1 - words[::-1].index("with")
    at, found = start + 1, []
    while at < len(words):
        mention = mention_at(text, at, listed=True)
        if mention is None:
            return None
        found.append(mention)
        at = mention.end
        if words[at : at + 1] == ["and"]:
            at += 1
    return (start, found) if found else None


def stated(mention: Mention) -> str | None:
    """What a listed mention says of the user ("User has 2 kids", "User's wife is called
    giulia"), None when it says nothing of its own ("with my mum")."""
    if mention.name:
        return f"User's {mention.relation} is called {mention.name}"
    if mention.count:
        return f"User has {mention.count} {mention.relation}"
    return None


def lists_rejoined(parts: list[str]) -> list[str]:
    """The parts with a bare mention of the user's people put back in the list it ended
    ("with my wife giulia and our 2 kids" is one list, not a clause "our 2 kids")."""
    kept: list[str] = []
    for part in parts:
        mention = mention_at(part, 0)
        said = words_of(part)
        bare = mention is not None and mention.end == len(said)
        # "with my girlfriend and our corgi": a thing of theirs no lexicon lists, no verb after
        if kept and (
            bare or (said[:1] in (["my"], ["our"]) and len(said) <= 3 and _verbless(said))
        ):
            kept[-1] = f"{kept[-1]} and {part}"
        else:
            kept.append(part)
    return kept


def _verbless(words: list[str]) -> bool:
    """Whether words hold no verb, nor a verb run into its subject ("my son's 8")."""
    return not any(
        finite(word, plural=True)
        or word in lexicon("copulas")
        or word in lexicon("auxiliaries")
        or "'" in word
        for word in words
    )


def subject_of(part: str) -> str | None:
    """The subject a part opens with, for a verb after "and" that leaves it out: "she", "he",
    or one of the user's people ("my dad", "my sister anna"); None for any other."""
    words = part.split()
    said = words_of(part)
    if said[:1] and said[0].removesuffix("'s") in {"she", "he"}:
        return said[0].removesuffix("'s")
    mention = mention_at(part, 0)
    if mention is None or len(said) != len(words):
        return None
    return " ".join(words[: mention.end])


def closed_reading(caption: str) -> bool:
    """Whether the registry reads a closed attribute in a caption: not a practice of any verb
    or a noun's "about"."""
    return any(f.attribute.split(":")[0] not in {"practice", "about"} for f in read_facets(caption))


def named_last(part: str) -> str | None:
    """The person or pet a clause ends by naming with an article ("i got a dog", "we have a
    new puppy"), whom a "she" or an apposition after it means; None if none."""
    words = words_of(part)
    if len(words) >= 5 and words[-2] in lexicon("naming_words") and not never_name(words[-1]):
        # "we have a cat called luna": the pet, with the name the user gave
        cased = _cased(part)
        found = named_last(" ".join(words[:-2]))
        return f"{found} {cased[-1]}" if found and len(cased) == len(words) else found
    # A kind of one ("a greyhound" is a dog) names one as well.
    if len(words) < 3 or lexicon("people").isdisjoint({words[-1], broader("kinds").get(words[-1])}):
        return None
    articles = [at for at in range(len(words) - 3, len(words) - 1) if words[at] in _ARTICLES]
    if not articles:
        return None
    before = words[articles[-1] - 1] if articles[-1] else ""
    if before in lexicon("be_forms") | {"im"} or before.endswith(("'s", "'m", "'re")):
        return None  # "my dad is a teacher": what someone is, not someone new
    if words[-2] in lexicon("additive_cues"):  # "a second dog", "another dog": not the first
        return f"{'other' if words[-2] == 'another' else words[-2]} {words[-1]}"
    return words[-1]


_ARTICLES = frozenset({"a", "an", "the", "another"})


def subject_being(part: str) -> str | None:
    """The subject a part opens with and its "is" ("I'm", "my dad is", "he's"), which a state
    after "and" shares ("hes 27 and between jobs"); None when it opens otherwise."""
    said = words_of(part)
    if said[:1] in (["i'm"], ["she's"], ["he's"]):
        return part.split()[0]
    if said[:2] == ["i", "am"]:
        return " ".join(part.split()[:2])
    subject = subject_of(part)
    at = len(subject.split()) if subject else 0
    if (
        subject
        and said[at : at + 1] in (["is"], ["are"], ["was"])
        and len(said) == len(part.split())
    ):
        return f"{subject} {said[at]}"
    return None


def third_person_verb(word: str) -> bool:
    """Whether a word after one of the user's people is a verb: a copula, the third-person
    form of a closed verb ("has", "goes", "won't") or of a verb chat leaves the "I" out of
    ("works", "lives", "uses", "drives"), or of a listed verb, or its past ("takes", "died":
    `extraction.verbs`)."""
    if word in lexicon("copulas") or word in set(pairs("verb_forms").values()):
        return True
    if finite(word):
        return True
    stems = {word[:-1], word[:-2]} if word.endswith("s") else set()
    if word.endswith("ies"):
        stems.add(f"{word[:-3]}y")
    return bool(stems & lexicon("pro_drop"))


# What opens another item of a list, not a state: "a son hes 12 and a daughter".
_LISTED = lexicon("determiners") | lexicon("quantities")


def goes_on(piece: str, before: str, subject: str) -> str | None:
    """The words after "and" as a statement of the subject of the words before it, when they
    go on about it with a verb of their own ("my grandad is 94 and still drives" is "my
    grandad still drives", "has ms and uses a wheelchair"), or with a state after an age
    ("hes 27 and between jobs" is "he's between jobs"): an age is a whole value, so what
    follows it is a new predicate, unless it is another number ("my kids are 8 and 11")."""
    words = words_of(piece)
    while words and words[0] in lexicon("adverbs"):
        words = words[1:]
    if not words or words[0] in {"be", "been", "being"}:
        return None
    if third_person_verb(words[0]):
        return f"{subject} {piece}"
    said = words_of(before)
    being = subject_being(before)
    aged = bool(said) and said[-1].isdigit() and being is not None
    if aged and words[0] in _LISTED:
        return piece  # "a son hes 12 and a daughter": another item, not the son's state
    if aged and not (words[0].isdigit() or words[0] in lexicon("numerals")):
        return f"{being} {piece}"
    return None


def reported(statement: str) -> str:
    """What someone else said about one of the user's people or pets, as its own clause: "the
    vet said our old cat has kidney disease" is "our old cat has kidney disease". Only then:
    what they said of the user ("my sister says im lazy") is their word, never the user's
    fact, and the user's own "i said" is not reported speech."""
    words = words_of(statement)
    for at, word in enumerate(words[:5]):
        if word not in lexicon("reporting") or not at:
            continue
        if set(words[:at]) & lexicon("first_person") - {"my", "our"}:
            return statement  # "i told my boss ...": the user speaking
        start = at + 1
        while words[start : start + 1] and words[start] in {"me", "us", "that"}:
            start += 1
        mention = mention_at(" ".join(words[start:]), 0)
        said = words[start:]
        verb = mention.end if mention else len(said)
        if verb + 1 < len(said) and not never_name(said[verb]):
            verb += 1 if third_person_verb(said[verb + 1]) else 0  # "our cat smudge has"
        if verb >= len(said) or not third_person_verb(said[verb]):
            return statement
        return statement[word_spans(statement)[start].start() :]
    return statement


_JOINT_STATE = re.compile(r"^User and their (?P<who>[\w' -]+?) are (?:both |all )?(?P<state>.+)$")


def both_stated(joint: str) -> list[str] | None:
    """A state the user and one of their people share, as a fact of each: "my partner and I
    are both vegan" is "User is vegan" and "User's partner is vegan"; None for a joint fact
    that is one (a plan of both, "are planning a trip") or a state the registry does not
    close."""
    match = _JOINT_STATE.match(joint)
    if not match or " and " in match["who"] or match["who"].split()[0] in lexicon("people_plural"):
        return None
    state = match["state"]
    if not closed_reading(f"User is {state}"):
        return None
    return [f"User is {state}", f"User's {match['who']} is {state}"]
