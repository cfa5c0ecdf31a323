"""A list of objects after one verb: "we have a cat, two guinea pigs and a very old goldfish".

Split at its commas, such a list leaves clauses without a verb ("two guinea pigs and a very
old goldfish") that say nothing on their own, or worse, read as an apposition of the thing
before ("User's cat is a dog and a rabbit") or as a fragment ("german and a bit of italian" is
no nationality). Where a clause with a subject and a verb ends on a comma, and the clauses
after it have no verb, no subject and ends on an item joined by "and", each item is an object
of the same subject and verb: "we have a cat" gives "we have two guinea pigs" and "we have a
very old goldfish"; "my son plays football, cricket and rugby" gives the son's cricket and
rugby. The subject and verb, the head, are the clause less its object, which must follow the
verb or a preposition after it and run to the clause's end ("we have | a cat", "i speak |
french", "im allergic to | nuts"). Any other shape ("i teach maths at a school, year 9 and
10") is left as it was, and so are names after a count ("2 rabbits, biscuit and fudge",
`extraction.named`): nothing is guessed.
"""

from __future__ import annotations

import logging

from core.lexicon import lexicon, pairs
from core.words import words_of
from extraction.people import mention_at
from extraction.verbs import base_form, past_tense, third_singular

_BREAKS = lexicon("value_breaks")
logger = logging.getLogger(__name__)
# The most words an item of a list may have ("a very old goldfish", "a bit of italian").
_ITEM_WORDS = 5
# The subjects a list's head opens with: the user, or one of their people (`mention_at`).
_USER = frozenset({"i", "we", "i'm", "im", "we're", "i've", "ive", "we've"})


def _verb(word: str) -> bool:
    return (
        word in lexicon("copulas")
        or word in pairs("verb_forms")
        or base_form(word)
        or third_singular(word)
        or past_tense(word)
    )


def _head(statement: str, *, names_may_follow: bool = True) -> str | None:
    """The subject and verb of a clause that ends on its object ("we have" of "we have a
    cat"), as the user wrote them; None for any other clause."""
    tokens = statement.strip(" ,").split()
    words = words_of(" ".join(tokens))
    if len(words) != len(tokens) or len(words) < 2:
        return None
    for at in range(len(words) - 1, 0, -1):  # "i'm dutch and i speak english": the last clause
        if words[at - 1] in {"and", "but", "so"} and (
            words[at] in _USER or mention_at(" ".join(tokens[at:]), 0) is not None
        ):
            head = _head(" ".join(tokens[at:]))
            return f"{' '.join(tokens[:at])} {head}" if head else None
    if words[0] in {"i", "we"}:
        at = 1
    elif words[0] in _USER:
        # "i'm allergic to nuts": the verb is in the subject, or after it ("we've got a cat")
        at = 1 if words[1] == "got" else 0
    elif (mention := mention_at(" ".join(tokens), 0)) is not None:
        at = mention.end
    elif (owned := _owned_copula(words)) is not None:  # "my hobbies are climbing, chess and"
        at = owned
    else:
        return None
    if at >= len(words) or not (at == 0 or _verb(words[at])):
        return None
    # "have a cat", "work at tesco", and after "is" an adjective's: "allergic to nuts".
    copula = at == 0 or words[at] in lexicon("copulas")
    for start in (at + 1, at + 2, at + 3) if copula else (at + 1, at + 2):
        if start >= len(words) or (start > at + 1 and words[start - 1] not in _BREAKS):
            continue
        thing = words[start:]
        if len(thing) > _ITEM_WORDS or set(thing) & _BREAKS:
            continue  # "teach maths at a school": its object is not the clause's end
        if (
            names_may_follow
            and (thing[0].isdigit() or thing[0] in lexicon("numerals"))
            and thing[-1] in lexicon("people_plural")
        ):
            return None  # "2 rabbits, biscuit and fudge": names follow (`extraction.named`)
        return " ".join(tokens[:start])
    return None


def _owned_copula(words: list[str]) -> int | None:
    """Where the copula is after a thing of the user's ("my favourite foods | are"), else None."""
    if words[0] not in {"my", "our"}:
        return None
    return next(
        (at for at in range(2, min(len(words), 6)) if words[at] in lexicon("copulas")), None
    )


def _items(statement: str) -> list[str] | None:
    """The items a clause of a list holds ("two guinea pigs", "a very old goldfish"), None
    when it has a verb, a subject or a question, or an item too long to be one."""
    said = words_of(statement)
    if not said or statement.rstrip().endswith("?"):
        return None
    if any(
        word.split("'")[0] in _CLAUSE_WORDS  # "he's called bruno"
        or third_singular(word)
        or word in lexicon("first_person")
        for word in said
    ):
        return None
    text = statement.strip(" ,.!")
    text = text[4:] if text.lower().startswith("and ") else text
    items = [item.strip(" ,") for item in text.replace(" & ", " and ").split(" and ")]
    if any(not words_of(item) or len(item.split()) > _ITEM_WORDS for item in items):
        return None  # "and" alone: no item
    if any(_verb(_first_said(item)) for item in items):
        # "34 and married", "live in swansea", "just graduated in biology": a clause of its own
        return None
    return items


# The words of a clause, never of a list's item.
_CLAUSE_WORDS = lexicon("copulas") | lexicon("auxiliaries") | lexicon("subject_pronouns")


def lists_distributed(clauses: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The clauses with each verbless item of a list after a clause's verb stated with its
    subject and verb ("two guinea pigs and a very old goldfish" after "we have a cat," is "we
    have two guinea pigs and we have a very old goldfish"); the rest as they were. It never
    raises: on an error the clauses are read as they came."""
    try:
        return _distributed(clauses)
    except Exception:  # the clauses are still read one by one
        logger.exception("reader: the lists could not be read")
        return clauses


def _distributed(clauses: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out = list(clauses)
    for at, (clause, statement) in enumerate(clauses):
        if not statement or not clause.rstrip().endswith(","):
            continue
        # "two children, and a golden retriever named Fudge": a thing, not a name, follows.
        thing_next = words_of(clauses[at + 1][1])[:2] if at + 1 < len(clauses) else []
        head = _head(statement, names_may_follow=thing_next[1:] not in (["a"], ["an"]))
        if head is None:
            continue
        run: list[tuple[int, list[str]]] = []
        for nxt in range(at + 1, len(clauses)):
            items = _items(clauses[nxt][1])
            if items is None:
                run = []
                break
            run.append((nxt, items))
            if len(items) > 1 or words_of(clauses[nxt][1])[:1] == ["and"]:
                break  # "... and a very old goldfish": the list's last item
            if not clauses[nxt][0].rstrip().endswith(","):
                run = []
                break
        else:
            run = []
        listed = [item for _, items in run for item in items]
        if _names_of_count(statement[len(head) :], listed):
            continue  # "two rescue greyhounds, Pepper and Salt" (`extraction.named`)
        if _counted_after_being(head, listed):
            continue  # "we're a family of four, two adults and two kids": who they are
        for nxt, items in run:
            stated = " and ".join(f"{head} {item}" for item in items)
            out[nxt] = (clauses[nxt][0], stated)
    return out


def _counted_after_being(head: str, items: list[str]) -> bool:
    """Whether a head that says what someone is ("we're", "my sister is") has a counted item
    ("two adults"): a count is what they are made of or have, never what they are."""
    said = words_of(head)
    being = bool(said) and (said[-1] in lexicon("be_forms") or said[-1].split("'")[-1] in _BEING)
    return being and any(
        (first := words_of(item)[:1]) and (first[0].isdigit() or first[0] in lexicon("numerals"))
        for item in items
    )


# The contractions of "be" after a subject ("we're", "i'm", "she's").
_BEING = frozenset({"m", "re", "s"})


def _names_of_count(thing: str, items: list[str]) -> bool:
    """Whether the items name what the head counted: a count, then one word typed with a
    capital per item ("two rescue greyhounds" | "Pepper", "Salt")."""
    said = words_of(thing)
    counted = bool(said) and (said[0].isdigit() or said[0] in lexicon("numerals"))
    return counted and all(len(item.split()) == 1 and item[:1].isupper() for item in items)


def _first_said(item: str) -> str:
    """An item's first word after the adverbs it may open with ("just graduated")."""
    said = words_of(item)
    return next((word for word in said if word not in lexicon("adverbs")), said[0])
