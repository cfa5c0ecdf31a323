"""Values of statements, compared: cleaned of time phrases and qualifiers, stemmed, matched.

"munich" and "munich, germany" are one residence; "running the marathon" and "marathon plans"
one pursuit; "icu nurse" and "intensive care nurse" one job, "junior analyst" and "senior
analyst" two.
"""

from __future__ import annotations

import re

from extraction.vocabulary import words

_TIME_TAIL = re.compile(
    r"\s+(?:in \d{4}|since\b|for (?:about |over |almost |nearly )?(?:\d+|a|an|one|two|three|"
    r"four|five|six|several|many|a few) |last (?:week|month|year|spring|summer|autumn|fall|"
    r"winter)|this (?:week|month|year)|(?:a|one|two|three|a few|\d+) (?:days?|weeks?|months?|"
    r"years?) ago|recently|now\b|these days|at the moment|currently|anymore|any more|again|"
    r"after\b|before\b|because\b|as of\b|from \w+ (?:on|onwards)|starting\b|permanently|"
    r"full[- ]time|part[- ]time|for work|for good|for now|today|yesterday|tonight|"
    r"this (?:morning|afternoon|evening)|last night|on (?:monday|tuesday|wednesday|thursday|"
    r"friday|saturday|sunday)).*$"
)
_VALUE_STOP = re.compile(
    r"\s+(?:with|where|who|which|that|and|but|so|while|when|as|to be|to work|to study|"
    r"to live|to join|because|after|before|near|close to|for|since|from|on|at|by|via|"
    r"instead|rather|like|including|especially|mostly|mainly|though|although|if|or|"
    r"than|(?:(?:is|are|was) )?(?:looking|hoping|planning|trying|wanting|enjoying|loving|"
    r"finding|getting|starting|exploring|settling|adjusting|searching))\b.*$"
)
_LEADING_ARTICLE = re.compile(r"^(?:the|a|an|some|their|his|her|its|one)\s+")


def clean_value(raw: str) -> str:
    """A value as compared: articles, time phrases and trailing qualifiers dropped."""
    value = raw.strip(" ,.!:;\"'()")
    value = _TIME_TAIL.sub("", value)
    value = _VALUE_STOP.sub("", value)
    value = re.sub(r",.*$", "", value)
    value = _LEADING_ARTICLE.sub("", value.strip())
    return value.strip(" ,.!:;\"'()")


def stem(word: str) -> str:
    """A crude English stem, enough to match running/runs/run and smoking/smoke."""
    word = word.strip("'")
    for suffix in ("ing", "ers", "er", "ed", "es", "s", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            if suffix == "s" and word.endswith("ss"):
                continue
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]
    return word.rstrip("e") if len(word) > 3 else word


_FILLER_WORDS = words(
    """the a an to of for in on at with and or their his her my your its this that these
    those some any more much very really so too regularly anymore any again all every
    lot lots bit just about from as it them they he she user user's is are be been being
    trying try going go doing do does did get getting got"""
)
_SYNONYMS = {
    **dict.fromkeys(
        words(
            """honda toyota ford tesla bmw vw volkswagen audi mazda subaru kia hyundai nissan
            chevy chevrolet mercedes volvo fiat jeep prius civic corolla golf polo yaris"""
        ),
        "car",
    ),
    "drunk": "drink",
    "drank": "drink",
    "win": "drink",
    "beer": "drink",
    "cocktail": "drink",
    "whisky": "drink",
    "whiskey": "drink",
    "vodka": "drink",
    "liquor": "drink",
    "sob": "drink",
    "cigarette": "smok",
    "cigarett": "smok",
    "smok": "smok",
    "caffein": "coff",
    "coff": "coff",
    "espresso": "coff",
    "alcohol": "drink",
    "booz": "drink",
    "drink": "drink",
    "jog": "run",
    "runn": "run",
    "vap": "smok",
}


def object_key(text: str) -> frozenset[str]:
    """The content stems of an object, for comparing 'running' with 'going for runs'."""
    stems = set()
    for word in re.findall(r"[a-z0-9+#']+", text.lower()):
        if word in _FILLER_WORDS:
            continue
        root = stem(word)
        stems.add(_SYNONYMS.get(root, root))
    return frozenset(stems)


# Words too general to tell two objects apart ("jazz music" and "rap music" differ).
_GENERIC = frozenset(
    {stem(w) for w in words("music food stuff thing things people kind type sort plan plans")}
)


def same_object(first: str, second: str) -> bool:
    """Whether two objects name the same thing: one's content words within the other's, or
    half of the shorter one's specific words shared ('running the marathon', 'marathon plans')."""
    a, b = object_key(first), object_key(second)
    if not a or not b:
        return False
    if a <= b or b <= a:
        return True
    a, b = a - _GENERIC, b - _GENERIC
    shared = a & b
    return bool(shared) and 2 * len(shared) >= min(len(a), len(b))


def _value_words(value: str) -> set[str]:
    return {re.sub(r"'s$", "", word) for word in value.split()} - {"the", "of", "district"}


_SENIORITY = frozenset(
    words("junior senior lead head principal staff chief associate assistant trainee intern")
)


def same_job(first: str, second: str) -> bool:
    """Whether two job values name one job ('icu nurse', 'intensive care nurse'), not a change
    of role or seniority ('junior analyst', 'senior analyst')."""
    if same_value(first, second):
        return True
    a, b = first.split(), second.split()
    return a[-1] == b[-1] and set(a) & _SENIORITY == set(b) & _SENIORITY


def same_value(first: str, second: str) -> bool:
    """Whether two values of an attribute are the same ('munich' and 'munich germany')."""
    if first == second:
        return True
    a, b = _value_words(first), _value_words(second)
    return bool(a and b) and (a <= b or b <= a)
