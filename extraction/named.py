"""Names listed after a count: "I have two cats, Pip and Squeak. Pip is a Maine Coon".

A caption that counts the user's people or pets ("User has two cats", a relation of
`core/lexicons/people_plural.txt`) opens a group. A clause right after it of names alone,
joined by "and" or commas ("Pip and Squeak"), names the group ("User's cats are called Pip and
Squeak"): nothing else can stand there, so the structure says they are names, whatever their
case. A later clause with one of those names as its subject, a verb after it, is about that
one ("Squeak is deaf" is "my cat Squeak is deaf"), and "they" after the count means the group
("2 kids, they live with me on weekdays").
"""

from __future__ import annotations

import re

from core.lexicon import lexicon, tagged
from core.words import words_of
from extraction.people import never_name, one_of_theirs, third_person_verb

# "User has two cats", "User has 2 kids", "User has twins": the user's people or pets counted.
_COUNTED = re.compile(
    r"^User (?:has got|has|got|adopted|keeps) (?:(?P<count>\w+) )?(?P<group>[\w -]+?)$"
)


def group_counted(caption: str, *, listed: bool = True) -> str | None:
    """The group a caption counts ("cats" in "User has two cats"), else None. With `listed`
    false, a group no lexicon lists as people or pets ("two rescue greyhounds") is one too: a
    breed, a flock or a herd is an open class, and only names typed as names may name it
    (`names_counted`)."""
    match = _COUNTED.match(caption)
    if not match:
        return None
    count = (match["count"] or "").lower()
    group = match["group"].lower()
    if count and not (count.isdigit() or count in lexicon("numerals")):
        return None  # "User has a dog", "User has no kids"
    if not count and " " in group:
        return None  # "User has twins" only: a group named alone
    if group in lexicon("people_plural"):
        return group
    return None if listed or not count or count in {"1", "one"} else group


def names_counted(statement: str) -> list[str] | None:
    """The names a clause lists when each is typed with a capital ("Pepper and Salt"), the
    only names that may name a group no lexicon lists."""
    return names_alone(statement) if _capitalised(statement) else None


def one_of(group: str) -> str:
    """The relation of one member of a group ("cat" of "cats", "puppy" of "puppies")."""
    for single in (f"{group[:-3]}y", group[:-1], group[:-2]):
        if group.endswith("s") and single in lexicon("people"):
            return single
    return group


def names_alone(statement: str) -> list[str] | None:
    """The names a clause lists and nothing else ("Pip and Squeak", "biscuit, fudge"), as
    typed; None when any word is of a closed class or the list is longer than a few."""
    cased = words_of(statement, case=True)
    names = [word for word in cased if word.lower() not in {"and", "&"}]
    if not names or len(names) > 4 or any(word[0].isdecimal() for word in cased):
        return None
    if any(never_name(word.lower()) or word.lower() in lexicon("people") for word in names):
        return None
    if len(names) > len(cased) - len(names) + 1 and not all(n[:1].isupper() for n in names):
        return None  # "night owl": two words no "and" joins are no two names
    return names


def group_named(group: str, names: list[str]) -> str:
    """The caption naming a group ("User's cats are called Pip and Squeak")."""
    if len(names) == 1:
        return f"User's {one_of(group)} is called {names[0]}"
    return f"User's {group} are called {', '.join(names[:-1])} and {names[-1]}"


def names_placed(statement: str, named: dict[str, str]) -> str:
    """The statement with each name of `named` that opens a clause (at its start or after
    "and", a verb after it) as the user's pet or person it names: "Pip is a Maine Coon and
    Squeak is deaf" is "my cat Pip is a Maine Coon and my cat Squeak is deaf". A name no count
    listed is placed when the clause ends it (`ended_by_name`), and a thing someone took is the
    user's (`stolen_by_someone`)."""
    if not named:
        return ended_by_name(stolen_by_someone(statement))

    def placed(match: re.Match) -> str:
        name, verb = match["name"], match["verb"]
        relation = named.get(name.lower())
        if relation is None or not third_person_verb(verb.lower()):
            return match.group(0)
        return f"{match['lead']}my {relation} {name} {verb}"

    placed_named = re.sub(
        r"(?P<lead>^\s*|\band\s+|,\s*)(?P<name>[^\W\d_][\w'-]*) (?P<verb>[\w']+)",
        placed,
        statement,
    )
    return ended_by_name(stolen_by_someone(placed_named))


def names_joined(clauses: list[tuple[str, str]], starts: list[int]) -> list[tuple[str, str]]:
    """The clauses with a list of names cut at its commas stated as one by its first clause
    ("Ada," and "Bea and Cleo" state "Ada, Bea and Cleo"; the second states nothing more), so
    the group before it names them all, never only the first ("User's kid is called Ada").
    Never across messages (`starts`: the index of each message's first clause), and only for
    names as written with a capital: "51, hypertension, epileptic" lists no names."""
    joined = list(clauses)
    head = None  # the clause that states the list so far
    for at, (clause, statement) in enumerate(clauses):
        listed = _capitalised(statement)
        if head is not None and at not in starts and listed:
            joined[head] = (joined[head][0], f"{joined[head][1]}{statement}")
            joined[at] = (clause, "")
        else:
            head = at if listed else None
        if not clause.rstrip().endswith(","):
            head = None
    return joined


def _capitalised(statement: str) -> bool:
    names = names_alone(statement) or []
    return bool(names) and all(name[:1].isupper() for name in names)


def stolen_by_someone(statement: str) -> str:
    """ "Someone nicked the e-bike from outside the gym" as "my e-bike got stolen from outside
    the gym": a doer no one names (`core/lexicons/stolen_by.txt`), a verb of taking, and the
    user's thing after it. Anything else comes back as it is."""
    words = statement.split()
    kinds = tagged("stolen_by", ("doer", "verb"))
    at = 2 if words[:2] and words[0].lower() == "some" else 1  # "some idiot stole ..."
    if len(words) < at + 2 or words[0].lower() not in kinds["doer"]:
        return statement
    if words[at].lower() not in kinds["verb"]:
        return statement
    thing = words[at + 1 :]
    if thing[0].lower() in {"the", "my", "our"}:
        thing = thing[1:]
    head, _, rest = " ".join(thing).partition(" ")
    return f"my {head.rstrip(',.!')} got stolen{head[len(head.rstrip(',.!')) :]} {rest}".strip()


def ended_by_name(statement: str) -> str:
    """ "Biscuit passed away in July", "Bessie got stolen": a clause whose subject is a name
    alone and whose verb ends a being or a thing (`core/lexicons/named_endings.txt`) is about
    the user's own ("my Biscuit passed away in July"), so the ending meets the fact that named
    it. Anything else comes back as it is."""
    cased = words_of(statement, case=True)
    first = cased[0].lower() if cased else ""
    if len(cased) < 2 or not cased[0][:1].isupper() or never_name(first):
        return statement
    if first in lexicon("function_words"):  # "Everything died", "It died": no name
        return statement
    after = " ".join(words_of(statement)[1:])
    if not any(f"{after} ".startswith(f"{phrase} ") for phrase in lexicon("named_endings")):
        return statement
    at = statement.find(cased[0])
    return f"{statement[:at]}my {statement[at:]}"


def named_in_passing(part: str) -> str | None:
    """What a clause about now says for good of the user's pet or person it names ("my corgi
    Biscuit has a vet appointment tomorrow": the visit passes, "User's corgi is called
    Biscuit" holds): "my <relation> <Name> <more>", the relation one of the user's people or
    pets or a kind of one (`people.one_of_theirs`), the name as typed with a capital; None for
    any other clause."""
    cased = words_of(part, case=True)
    if len(cased) < 4 or cased[0].lower() not in {"my", "our"}:
        return None
    for size in (2, 1):
        relation, name = " ".join(cased[1 : 1 + size]).lower(), cased[1 + size]
        if len(cased) <= 2 + size or not one_of_theirs(relation):
            continue
        if name[:1].isupper() and name.isalpha() and not never_name(name.lower()):
            return f"User's {relation} is called {name}"
    return None
