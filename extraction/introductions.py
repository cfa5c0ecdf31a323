"""How chat introduces the user: "ciao! im marco, 34, ..." or "22, uni student in leeds".

A bare number says nothing on its own ("34" could be a price, a count, a bus). At the opening
of a message, after at most a greeting, or right after the user gives their name, it is their
age when the registry's age range holds it (`memories/attributes.toml`, `bare`); anywhere else
it is left alone. "i'm <word>" or "<word> here" is a name there only when the word is no word
of a closed class and the registry reads nothing in it ("im vegan" is a diet, "im tired" a
passing state), and the message capitalises it ("I'm Marco") or an age follows it ("im marco,
34"); a word alone is a name only right before the age ("quick intro: ana, 52, ...").
"""

from __future__ import annotations

from core.lexicon import has_phrase, lexicon
from core.words import words_of
from extraction.people import never_name
from memories.attributes import PRACTICE, registry
from memories.facets import read as read_facets


def _said(clause: str) -> list[str]:
    """The clause's words after the greetings and fillers it opens with."""
    words = words_of(clause)
    if clause.lstrip().lower().startswith("me:"):
        words = words[1:]  # "me: 38, only child, ...": a heading, like "about me:"
    while words:
        if " ".join(words[:2]) in lexicon("fillers"):
            words = words[2:]
        elif words[0] in lexicon("fillers"):
            words = words[1:]
        else:
            break
    return words


def _bare_number(clause: str) -> str | None:
    """The caption of an age said as a bare number ("34" is "User is 34", and so is a
    birthday: "34 today", `birthday_marks.txt`), else None."""
    words = _said(clause)
    if not words or not words[0].isdigit():
        return None
    if len(words) > 1 and " ".join(words[1:]) not in lexicon("birthday_marks"):
        return None
    for entry in registry().values():
        if entry.bare and entry.bare[0] <= int(words[0]) <= entry.bare[1]:
            return f"User is {words[0]}"
    return None


def _name(clause: str, *, aged: bool) -> str | None:
    """The caption of the user's name said as "i'm <name>", "<name> here" or, right before
    their age, "<name>" alone ("ana, 52"), else None."""
    words = _said(clause)
    if words[:1] in (["i'm"], ["im"]) and len(words) == 2:
        said = words[1]
    elif words[1:] == ["here"] or (aged and len(words) == 1):
        said = words[0]
    else:
        return None
    typed = next(w for w in words_of(clause, case=True) if w.lower() == said)
    if never_name(said) or not said.isalpha() or not (aged or typed[:1].isupper()):
        return None
    if any(f.attribute.split(":")[0] != PRACTICE for f in read_facets(f"User is {said}")):
        return None  # "im vegan", "im single": an attribute the registry reads
    if has_phrase(f"User is {said}", "passing_states") or has_phrase(
        f"User is {said}", "not_durable"
    ):
        return None  # "I'm Tired"
    return f"User is called {typed}"


def _heading(clause: str) -> bool:
    """Whether a clause only announces what follows ("a bit about me:", "quick intro -")."""
    return clause.rstrip().endswith((":", " -", "\u2013", "\u2014"))


def _opener(clause: str) -> bool:
    """Whether a clause opens a chat the way `fragment_openers.txt` lists ("greetings from
    leeds!", "hello from porto"): a fact of its own, after which an introduction may follow."""
    said = {" ".join(_said(clause)), " ".join(words_of(clause))}
    return any(
        text.startswith(f"{entry.partition('=')[0].strip()} ")
        for entry in lexicon("fragment_openers")
        for text in said
    )


def introductions(clauses: list[tuple[str, str]], starts: list[int]) -> dict[int, str]:
    """The captions of the clauses that introduce the user, by the clause's index: each
    message's first clauses (after a greeting), the name and the age that follows it."""
    found: dict[int, str] = {}
    for start in starts:
        at = start
        while at < len(clauses) and clauses[at][1] and not _said(clauses[at][1]):
            at += 1  # "ciao!", "hey": a greeting
        if at + 1 < len(clauses) and at + 1 not in starts and _heading(clauses[at][0]):
            at += 1  # "so a bit about me: i'm priya, 41": what follows the heading introduces
        if at + 1 < len(clauses) and at + 1 not in starts and _opener(clauses[at][1]):
            at += 1  # "greetings from leeds! im priyanka, 29": the opener says where
        if at >= len(clauses) or not clauses[at][1]:
            continue
        statement = clauses[at][1]
        nxt = clauses[at + 1][1] if at + 1 < len(clauses) and at + 1 not in starts else ""
        age = _bare_number(nxt) if nxt else None
        if _bare_number(statement):
            found[at] = _bare_number(statement) or ""
        elif name := _name(statement, aged=age is not None):
            found[at] = name
            if age:
                found[at + 1] = age
    return found
