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

_LEADING = re.compile(
    r"^(?:(?:so|ok|okay|well|anyway|anyways|btw|fyi|honestly|actually|also|and|but|oh|yeah|"
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
_BE = {"am": "is", "are": "is", "was": "was", "were": "was", "have": "has", "do": "does"}
_PAST_OR_MODAL = re.compile(
    r"^(?:[a-z]+ed|got|gave|quit|left|took|went|began|became|became|had|made|met|ran|sold|"
    r"bought|found|grew|fell|broke|split|spent|swapped|stopped|turned|can|cannot|could|will|"
    r"would|should|might|must|may)$"
)
_SUBJECTLESS_VERB = re.compile(
    r"^(?:just |finally |recently |officially |also )*(?:turned|started|switched|moved|"
    r"relocated|quit|stopped|gave up|got|joined|left|became|learning|training|studying|"
    r"working|living|going|using|trying|married|engaged|divorced|adopted|began|dropped|"
    r"ditched|picked up|took up|signed up|retired|graduated|changed|converted|cut out|"
    r"been|not|no longer|never|loving|hating|back)\b",
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
}


def _conjugate(verb: str) -> str:
    lower = verb.lower()
    if lower in _BE:
        return _BE[lower]
    if _PAST_OR_MODAL.match(lower):
        return lower
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{lower}es"
    if len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
        return f"{lower[:-1]}ies"
    return f"{lower}s"


def _third_person(text: str) -> str:
    for pattern, replacement in _POSSESSIVES:
        text = pattern.sub(replacement, text)
    return text


def restate(clause: str) -> str | None:
    """The clause as a sentence about "User", or None when it is not about the speaker."""
    text = _LEADING.sub("", clause.strip()).strip(" ,.!;:")
    if not text:
        return None
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
        verb = _conjugate(words[0])
        body = " ".join([*adverbs, verb, *(words[1:] if len(words) > 1 else [])])
        return f"User {_third_person(body)}"
    owned = re.match(r"^(?:my|our)\s+(?P<rest>.+)$", text, re.IGNORECASE)
    if owned:
        return f"User's {_third_person(owned.group('rest'))}"
    if _SUBJECTLESS_VERB.match(text):
        verb = text.split()[0].lower()
        prefix = "User is " if verb.endswith("ing") else "User "
        return prefix + _third_person(text)
    return None


def restated_fact(clause: str) -> tuple[str, str, tuple[Statement, ...]] | None:
    """(third-person text, category, statements) for a clause that states a known attribute."""
    text = restate(clause)
    if text is None:
        return None
    statements = tuple(s for s in read(text) if s.subject == USER)
    if not statements:
        return None
    family = statements[0].attribute.split(":", 1)[0]
    if family not in _CATEGORY:
        return None
    return text, _CATEGORY[family], statements
