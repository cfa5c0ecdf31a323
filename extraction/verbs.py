"""Whether a word is a verb, and in which form, from a closed list of base forms.

`core/lexicons/verbs.txt` lists common verbs in their base form; the regular rules of
English make their other forms from each ("play": "plays", "played"; "carry": "carries",
"carried"; "stop": "stopped"), and `verb_forms.txt` and
`participles.txt` hold the irregular ones ("went", "broke", "eaten"). A word is a verb only
when a listed base makes it: nothing is guessed from a word's ending, so "news", "bed" or
"boss" is never a verb. The reader uses it where the structure of a clause turns on a verb:
where a run-on opens a new clause ("... my wife takes the train"), whether the word after a
relation is a name ("my sister anna plays ..."), and whom a clause without a subject is about
("my cat is diabetic, needs insulin" is the cat's: "needs" cannot be the user's verb).
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon, pairs

_VOWELS = frozenset("aeiou")
_MODALS = frozenset({"shall", "ought", "used"})


def _doubled(base: str) -> str | None:
    """The base with its last consonant doubled, as "stop" makes "stopped" ("plan",
    "shop"); None where English does not double it."""
    if (
        len(base) >= 3
        and base[-1] not in _VOWELS | {"w", "x", "y"}
        and base[-2] in _VOWELS
        and base[-3] not in _VOWELS
    ):
        return base + base[-1]
    return None


def _third(base: str) -> str:
    if base.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{base}es"
    if len(base) > 2 and base.endswith("y") and base[-2] not in _VOWELS:
        return f"{base[:-1]}ies"
    return f"{base}s"


def _pasts(base: str) -> set[str]:
    if base.endswith("e"):
        return {f"{base}d"}
    if len(base) > 2 and base.endswith("y") and base[-2] not in _VOWELS:
        return {f"{base[:-1]}ied"}
    doubled = _doubled(base)
    return {f"{base}ed"} | ({f"{doubled}ed"} if doubled else set())


def _gerund(base: str) -> str:
    if base.endswith("ie"):
        return f"{base[:-2]}ying"  # "lie": "lying"
    if base.endswith("e") and not base.endswith(("ee", "ye", "oe")) and len(base) > 2:
        return f"{base[:-1]}ing"  # "live": "living"
    return f"{_doubled(base) or base}ing"  # "get": "getting"


@cache
def _forms() -> dict[str, dict[str, str]]:
    """Each form of each listed verb to its base, by kind: "third", "past"."""
    forms: dict[str, dict[str, str]] = {"third": {}, "past": {}, "gerund": {}}
    irregular = set(pairs("participles").values())  # "eat": "ate", never "eated"
    for base in lexicon("verbs"):
        forms["third"][_third(base)] = base
        forms["gerund"][_gerund(base)] = base
        for past in _pasts(base) if base not in irregular else ():
            forms["past"][past] = base
    # The irregular forms: a past the table keeps as it is ("went went", "broke broke").
    # Not a present form another maps to ("is", "has", "does") nor an auxiliary ("can").
    presents = {third for first, third in pairs("verb_forms").items() if first != third}
    for first, third in pairs("verb_forms").items():
        if (
            first == third
            and first.isalpha()
            and first not in presents | lexicon("verbs") | lexicon("auxiliaries") | _MODALS
        ):
            forms["past"].setdefault(first, first)
    return forms


def gerund(word: str) -> bool:
    """Whether a word is the "-ing" form of a listed verb ("getting", "running", "living")."""
    return word in _forms()["gerund"]


def base_form(word: str) -> bool:
    """Whether a word is a listed verb in its base form ("play", "live")."""
    return word in lexicon("verbs")


def third_singular(word: str) -> bool:
    """Whether a word is the third person singular of a listed verb ("plays", "carries")."""
    return word in _forms()["third"]


def past_tense(word: str) -> bool:
    """Whether a word is the past tense of a verb ("played", "stopped", "went", "broke")."""
    return word in _forms()["past"]


def finite(word: str, *, plural: bool = False) -> bool:
    """Whether a word can be the verb of a clause whose subject is one person (or several,
    `plural`): the third person or the past ("works", "died"), or the base for several
    ("my kids love ...")."""
    return third_singular(word) or past_tense(word) or (plural and base_form(word))


def base_of(word: str) -> str:
    """The listed base a verb form comes from ("lived", "lives" and "living" are "live"); the
    word itself when it is a base or no listed verb makes it."""
    forms = _forms()
    return forms["past"].get(word) or forms["third"].get(word) or forms["gerund"].get(word) or word


def gerund_of(word: str) -> str:
    """The "-ing" form of a verb form ("smoke", "smokes" and "smoked" are "smoking")."""
    return _gerund(base_of(word))


def past_of_gerund(word: str) -> str | None:
    """The past tense of a listed verb's "-ing" form ("moving" is "moved", "stopping"
    "stopped", "visiting" "visited", "having" "had"); None for a word that is no such form.
    Whether the consonant doubles is read from how the "-ing" form spells it."""
    base = _forms()["gerund"].get(word)
    if base is None:
        return None
    irregular = pairs("irregular_pasts")
    if base in irregular:
        return irregular[base]
    doubled = _doubled(base)
    if doubled and word.startswith(doubled):
        return f"{doubled}ed"
    return min(_pasts(base) - ({f"{doubled}ed"} if doubled else set()))


def pasts_of(base: str) -> set[str]:
    """The regular past tenses of a listed verb ("cancel": "cancelled", "canceled"); none for
    a verb the table keeps irregular."""
    return {past for past, of in _forms()["past"].items() if of == base}
