"""The offline extractor's second reading: a first-person clause restated as a fact about "User",
kept when the statement reader recognises what it states.

The clause rules of `extraction.rules` know a fixed set of sentence shapes. People also say
"we moved to Bristol last month", "just turned 35", "I quit smoking!!", "turns out I'm not
allergic to cats after all" or "my girlfriend moved in with me". Restated in the third person
("User moved to Bristol last month"), those are read by `extraction.statements`, the same
catalogue the offline judge uses, so what can be compared can also be extracted.
"""

from __future__ import annotations

import re

from extraction.statements import USER, Statement, read
from extraction.vocabulary import PETS, third_person
from memories.text import states_a_fact

_LEADING = re.compile(
    r"^(?:(?:so|ok|okay|well|anyway|anyways|btw|fyi|fwiw|honestly|actually|also|and|but|oh|yeah|"
    r"now|omg|wow|yay|ugh|whew|phew|hey|hi|hello|since|ever since|now that|"
    r"lol|haha|welp|weirdly|oddly|funnily enough|funny thing|big news|good news|quick update|"
    r"update|news|turns out|it turns out|guess what|just so you know|fun fact|heads up|"
    r"side note|for context|to be honest|tbh|as of now|these days|nowadays|finally|"
    r"at last|officially|sadly|unfortunately|luckily|happily)\b[\s,:!.\u2014-]*)+",
    re.IGNORECASE,
)
_ADVERB = re.compile(
    r"^(?:just|really|also|finally|recently|actually|now|still|never|always|usually|honestly|"
    r"basically|totally|officially|already|literally|mostly|mainly|even|kind of|sort of|"
    r"pretty much|only|barely|hardly|somehow|sadly|happily|slowly|gradually|weirdly|"
    r"genuinely|definitely|absolutely|seriously|no longer)\b\s*",
    re.IGNORECASE,
)
_SUBJECTLESS_VERB = re.compile(
    r"^(?:just |finally |recently |officially |also )*(?:turned|started|switched|moved|finished|"
    r"relocated|quit|stopped|gave up|got|joined|left|became|learning|training|studying|"
    r"working|living|going|using|trying|married|engaged|divorced|adopted|began|dropped|"
    r"ditched|picked up|took up|signed up|retired|graduated|changed|converted|cut out|"
    r"been|not|no longer|never|loving|hating|back|have not|has not|have never)\b",
    re.IGNORECASE,
)
_POSSESSIVES = (
    (re.compile(r"\bmy\b", re.IGNORECASE), "their"),
    (re.compile(r"\bour\b", re.IGNORECASE), "their"),
    (re.compile(r"\bme\b", re.IGNORECASE), "them"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "themselves"),
    (re.compile(r"\bmine\b", re.IGNORECASE), "theirs"),
    (re.compile(r"\bI am\b"), "they are"),
    (re.compile(r"\bI\b"), "they"),
    (re.compile(r"\bwe\b", re.IGNORECASE), "they"),
    (re.compile(r"\bus\b", re.IGNORECASE), "them"),
)
# Attributes worth a memory when a clause states them (the catalogue also reads looser ones).
_CATEGORY = {
    "residence": "personal",
    "employer": "personal",
    "employer_left": "personal",
    "job": "personal",
    "relationship": "personal",
    "partner_name": "personal",
    "age": "personal",
    "children": "personal",
    "living_with": "personal",
    "allergy": "personal",
    "name": "personal",
    "pet_name": "personal",
    "diet": "preference",
    "favourite": "preference",
    "sentiment": "preference",
    "theme": "technical",
    "indentation": "technical",
    "editor": "technical",
    "os": "technical",
    "phone": "technical",
    "practice": "preference",
    "commute": "personal",
    "chronotype": "personal",
    "housing": "personal",
    "native_language": "personal",
}


def _third_person(text: str) -> str:
    for pattern, replacement in _POSSESSIVES:
        text = pattern.sub(replacement, text)
    return text


# "Dune is my favourite book", "Vim is my main editor", "X is what I'm training for".
_INVERTED = re.compile(
    r"^(?P<x>.{1,40}?) (?:is|are|has to be|have to be|would be|will always be|remains|is still|"
    r"has become|became|is now)"
    r" (?:(?:hands down|definitely|easily|probably|still|now|officially|honestly|totally|"
    r"by far|basically|always|literally|just|really) )*(?:my|our) "
    r"(?:(?:all-time|absolute|new|current|personal|#1|number one|top) )*"
    r"(?:(?P<kind>favou?rite|fav|fave|go-to|main|primary|daily|default)"
    r"(?: (?P<what>[\w' -]{2,30}?))?|"
    r"(?P<what2>editor|ide|language|os|phone|drink) of choice)(?:,.*)?$",
    re.IGNORECASE,
)
# "Figma is where I work", "Rex is my dog".
_WHERE_I = re.compile(r"^(?P<x>.{2,40}?) is where (?:I|we) (?P<verb>work|live)\b", re.IGNORECASE)
_IS_MY_PET = re.compile(rf"^(?P<name>[A-Z][\w'-]+) is (?:my|our) (?P<pet>{PETS})\b")
_WHAT_I_DO = re.compile(
    r"^(?P<x>.{2,50}?) is what (?:I am|I'm|we are) (?P<verb>\w+ing)(?P<prep> for| on| with)?$",
    re.IGNORECASE,
)
# "as a high school chem teacher I need...": the speaker's role, said in passing.
_AS_ROLE = re.compile(
    r"^as an? (?P<role>[\w' -]{2,40}?),? (?:I|we|how|what|should|do|is|can|any|where|which)\b",
    re.IGNORECASE,
)
# "Atlassian is my employer", "here in Edinburgh where I live", "the only computer I own is".
_IS_MY_EMPLOYER = re.compile(
    r"^(?P<x>.{2,40}?) is (?:my|our) (?:employer|company|workplace)\b", re.IGNORECASE
)
_WHERE_I_LIVE = re.compile(
    r"(?:^|\b)(?:here )?(?:in|from) (?P<x>[A-Z][\w'-]+(?: [A-Z][\w'-]+)?),? where (?:I|we) live\b"
)
_FIRST_LANGUAGE = re.compile(
    r"^(?P<x>[A-Za-z]+) is (?:my|our) (?:first|native|mother) (?:language|tongue)\b", re.IGNORECASE
)
_ONLY_THING = re.compile(
    r"^(?:the )?only (?P<thing>computer|laptop|phone|car|machine) (?:I|we) (?:own|have|use) "
    r"is (?P<x>.+)$",
    re.IGNORECASE,
)
# "Amara and I got married", "my boyfriend Marco and I broke up", "Hana (my wife) and I".
# "our daughter was born last week": a child, said through its birth.
_BORN = re.compile(
    r"^(?:my|our) (?:(?:baby|little|first|second) )*(?P<child>son|daughter|baby|twins|boy|girl)"
    r" (?:was|were) born\b",
    re.IGNORECASE,
)
_ME_AND = re.compile(r"^(?:me and|I and) (?:my \w+ )?[A-Z][\w'-]+\s+(?P<rest>.+)$")
_JOINT = re.compile(
    r"^(?:(?i:my|our) (?P<rel>[a-z]+) )?(?P<name>[A-Z][\w'-]+)(?: \((?:my|our) (?P<rel2>[a-z]+)\))?"
    r" and (?:I|me)\b\s*(?P<rest>.*)$"
)
PET_APPOSITION = re.compile(
    rf"^(?P<name>[A-Z][\w'-]+)(?:,| \() ?(?:my|our) (?:(?:old|little|rescue|sweet)\s+)?"
    rf"(?P<pet>{PETS})\b"
)


def _inverted(text: str) -> str | None:
    found = _INVERTED.match(text)
    if found:
        if found.group("what2"):
            return f"User's main {found.group('what2').lower()} is {found.group('x')}"
        what = (found.group("what") or "").strip()
        kind = found.group("kind").lower()
        if kind == "go-to" and (not what or what.startswith(("for ", "when "))):
            return f"User uses {found.group('x')} {what}".strip()
        kind = "favourite" if kind in {"fav", "fave", "favorite", "go-to", "favourite"} else kind
        return f"User's {kind} {what} is {found.group('x')}"
    for pattern, template in (
        (_IS_MY_EMPLOYER, "User works at {x}"),
        (_WHERE_I_LIVE, "User lives in {x}"),
        (_FIRST_LANGUAGE, "User's first language is {x}"),
    ):
        found = pattern.search(text) if pattern is _WHERE_I_LIVE else pattern.match(text)
        if found:
            return template.format(x=found.group("x"))
    found = _ONLY_THING.match(text)
    if found:
        return f"User's only {found.group('thing').lower()} is {found.group('x')}"
    found = _WHERE_I.match(text)
    if found:
        verb = found.group("verb").lower()
        return f"User {'works at' if verb == 'work' else 'lives in'} {found.group('x')}"
    found = _IS_MY_PET.match(text)
    if found:
        return f"User has a {found.group('pet').lower()} named {found.group('name')}"
    found = _WHAT_I_DO.match(text)
    if found:
        prep = found.group("prep") or ""
        return f"User is {found.group('verb')}{prep} {found.group('x')}"
    return None


def passing_facts(sentence: str) -> list[str]:
    """Facts said in passing, even in a question: 'Biscuit, my corgi, ...', 'as a nurse I...',
    'Hana (my wife) and I ...'. Each is restated about "User"."""
    text = _LEADING.sub("", sentence.strip())
    found = []
    pet = PET_APPOSITION.match(text)
    if pet:
        name = pet.group("name")
        found.append(f"User has a {pet.group('pet').lower()} named {name[:1].upper()}{name[1:]}")
    role = _AS_ROLE.match(text)
    if role:
        found.append(f"User is a {role.group('role')}")
    joint = _JOINT.match(text)
    if joint and (relation := joint.group("rel") or joint.group("rel2")):
        found.append(f"User's {relation.lower()} is named {joint.group('name')}")
    return [fact for fact in found if any(s.subject == USER for s in read(fact))]


def _first_person(text: str) -> str | None:
    subject = re.match(r"^(?:I|we)\s+(?P<rest>.+)$", text, re.IGNORECASE)
    if subject:
        rest = subject.group("rest")
        adverbs = []
        while (adverb := _ADVERB.match(rest)) is not None:
            adverbs.append(adverb.group(0).strip())
            rest = rest[adverb.end() :]
        words = rest.split(maxsplit=1)
        if not words:
            return None
        verb = third_person(words[0])
        body = " ".join([*adverbs, verb, *(words[1:] if len(words) > 1 else [])])
        return f"User {_third_person(body)}"
    owned = re.match(r"^(?:my|our)\s+(?P<rest>.+)$", text, re.IGNORECASE)
    if owned:
        return f"User's {_third_person(owned.group('rest'))}"
    if re.match(r"^(?:not|no longer)\b", text, re.IGNORECASE):
        return f"User is {_third_person(text)}"
    if _SUBJECTLESS_VERB.match(text):
        verb = text.split()[0].lower()
        prefix = "User is " if verb.endswith("ing") else "User has " if verb == "been" else "User "
        return prefix + _third_person(text[:1].lower() + text[1:])
    return None


# "Figma's my go-to", "green's my fave": a name's contraction, not a possessive.
_NAME_IS = re.compile(
    r"^(?P<x>[\w-]+)'s (?=(?:my|our|just|not|literally|hands|definitely|really)\b)"
)


def restatements(clause: str) -> list[str]:
    """Ways to say the clause about "User", most faithful first (none: not about the speaker)."""
    text = _LEADING.sub("", clause.strip()).strip(" ,.!;:")
    text = _NAME_IS.sub(r"\g<x> is ", text)
    if not text:
        return []
    found: list[str | None] = [_inverted(text)]
    if born := _BORN.match(text):
        found.append(f"User had a baby {born.group('child').lower()}")
    if me_and := _ME_AND.match(text):
        text = f"we {me_and.group('rest')}"
    joint = _JOINT.match(text)
    if joint:
        if joint.group("rest"):
            found.append(_first_person(f"we {joint.group('rest')}"))
    else:
        found.append(_first_person(text))
    return [sentence for sentence in found if sentence]


# How a statement read from a fragment ("dark mode everywhere", "tabs, always") is worded.
_TEMPLATES = {
    "allergy": "User is allergic to {value}",
    "age": "User is {value} years old",
    "theme": "User prefers {value} mode",
    "indentation": "User indents code with {value}",
    "editor": "User's main editor is {value}",
    "diet": "User is {value}",
    "os": "User uses {value}",
    "phone": "User uses an {value} phone",
}


def _fragment(clause: str) -> tuple[str, tuple[Statement, ...]] | None:
    """A subjectless fragment the reader understands, worded from its statement."""
    text = _LEADING.sub("", clause.strip()).strip(" ,.!;:")
    statements = tuple(s for s in read(text) if s.subject == USER)
    for statement in statements:
        family = statement.attribute.split(":", 1)[0]
        if statement.positive and family in _TEMPLATES:
            return _TEMPLATES[family].format(value=statement.value), statements
        if not statement.positive and family == "allergy" and statement.value == "*":
            return "User has no allergies", statements
    return None


_CHATTER = r"rn|atm|tbh|ngl|fwiw|imo|imho|lol|lmao|haha|btw"
_SYMBOLS = re.compile(r"\s*[\U0001F000-\U0001FFFF\u2600-\u27BF\u2B00-\u2BFF].*$")
_AFTERTHOUGHT = re.compile(
    rf"\s+(?:so|because|cause|cuz|omg|which|and then|tho|though|{_CHATTER})\b.*$"
    r"|[\s,]+(?:(?:they|I) (?:guess|think|suppose)|anyway|anyways|lol|haha)\s*$",
    re.IGNORECASE,
)


def tighten(text: str, statements: tuple[Statement, ...]) -> tuple[str, str]:
    """(caption, detail): the fact up to its value, and what followed it ("last month").

    "User finally moved to Leeds last weekend 🎉 boxes everywhere" is captioned "User finally
    moved to Leeds", with " last weekend" kept for the full text.
    """
    text = _SYMBOLS.sub("", text)
    text = _AFTERTHOUGHT.sub("", text).strip(" ,.!;:")
    value = statements[0].value if statements else ""
    if value and value != "*":
        at = text.lower().rfind(value.lower())
        end = at + len(value)
        if at > len("User") and end < len(text):
            head, tail = text[:end], text[end:]
            tail = tail.strip()
            if tail and not tail.startswith((",", "and ", "or ")):
                return head, f" {tail}"
            return head, ""
    return text, ""


def _says_something(text: str) -> bool:
    """A predicate, or a possessed person or thing said to do something ("User's two children
    fight over the tablet", "User's two kids")."""
    return (
        states_a_fact(text)
        or (text.startswith("User's ") and len(text.split()) >= 4)
        or bool(re.match(r"^User's (?:two|three|four|\d+) (?:kids|children|sons|daughters)$", text))
    )


_INTOLERANCES = frozenset({"lactose", "gluten", "fructose", "histamine"})


def restated_fact(clause: str) -> tuple[str, str, tuple[Statement, ...]] | None:
    """(third-person text, category, statements) for a clause that states a known attribute."""
    readings = [
        (text, tuple(s for s in read(text) if s.subject == USER))
        for text in restatements(clause)
        if _says_something(text)
    ]
    readings = [
        (f"User is {s[0].value} intolerant", s)
        if s and s[0].attribute.startswith("allergy:") and s[0].value in _INTOLERANCES
        else (text, s)
        for text, s in readings
    ]
    if (fragment := _fragment(clause)) is not None:
        readings.append(fragment)
    for text, statements in readings:
        if statements and _worth_keeping(text, statements):
            return text, _CATEGORY[statements[0].attribute.split(":", 1)[0]], statements
    return None


# A positive practice worth a memory: pursued, or a habit said with its frequency.
_PURSUIT = re.compile(
    r"\b(?:training|preparing|learning|studying|practi[sc]ing|working towards|started|took up|"
    r"picked up|signed up|plays|practi[sc]es|smokes?|vapes?|drinks?|wine|beer|coffee|a day|"
    r"adopted|rescued|owns|"
    r"every (?:day|night|"
    r"morning|week)|daily|nightly|most days|a week|times a week|on weekends|every weekend)\b",
    re.IGNORECASE,
)


def _worth_keeping(text: str, statements: tuple[Statement, ...]) -> bool:
    """Whether a restated clause states something durable enough to remember.

    "Uses", "does" and "plays" read almost anything as a practice ("User uses a lot of
    garlic"); those count only when they name something (a capitalised tool) or are pursued
    ("is training for", "started"), while ending one ("quit", "stopped") always counts.
    """
    if _SECOND_PERSON.search(text):
        return False  # about this chat ("User likes your answer"), not about the user
    first = statements[0]
    family = first.attribute.split(":", 1)[0]
    if family not in _CATEGORY:
        return False
    if family == "practice" and first.positive:
        return bool(_PURSUIT.search(text)) or any(word[:1].isupper() for word in text.split()[1:])
    return True


_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)
