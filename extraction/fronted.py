"""A phrase the user puts before their own clause, read by structure whatever the topic.

Chat often fronts what would follow the clause: where or for what it holds ("on my switch i
play animal crossing", "for client meetings I have to wear a suit", "weekends i sleep til
10"), or what the user is ("as a libra I literally cannot make decisions", "as someone who's
6 foot 2, ..."). The reader reads a clause from its subject, so a fronted phrase hid the
user's clause. Both are closed classes (`core/lexicons/fronted_scopes.txt`,
`fronted_roles.txt`): a fronted scope goes after the clause it scopes; a fronted role is a
statement of its own ("I'm a libra"), unless it names a time of life or a manner ("as a kid",
"as a rule": `fronted_role_exceptions.txt`).
"""

from __future__ import annotations

from functools import cache

from core.lexicon import lexicon
from core.words import words_of

# At most this many words before the user's subject make a fronted phrase; more is a clause.
FRONTED_WORDS = 6


@cache
def _roles() -> tuple[tuple[list[str], str], ...]:
    """The role openings and the clause each stands for, longest first."""
    found = []
    for entry in lexicon("fronted_roles"):
        opening, _, clause = entry.partition("=")
        found.append((opening.split(), clause.strip()))
    return tuple(sorted(found, key=lambda item: -len(item[0])))


@cache
def _not_in_a_phrase() -> frozenset[str]:
    """Words a fronted phrase never holds: a clause's verb ("for what it's worth") or a word
    addressing the assistant."""
    return (
        lexicon("copulas")
        | lexicon("auxiliaries")
        | lexicon("question_words")
        | lexicon("subject_pronouns")
        | frozenset({"you", "your", "if", "when"})
    ) - lexicon("user_subjects")


def _subject_at(tokens: list[str]) -> int:
    """Where the user's subject is among the first words (0: not there)."""
    for at, token in enumerate(tokens[: FRONTED_WORDS + 1]):
        if words_of(token)[:1] and words_of(token)[0] in lexicon("user_subjects"):
            return at
    return 0


def _role(lead: list[str], tokens: list[str]) -> str | None:
    """The statement a fronted role makes ("I'm a libra"), or None."""
    for opening, stands_for in _roles():
        if lead[: len(opening)] != opening:
            continue
        value = lead[len(opening) :]
        if not 1 <= len(value) <= 5 or set(value) & lexicon("fronted_role_exceptions"):
            return None
        if set(value) & _not_in_a_phrase() - {"is"}:
            return None
        # The value as the user wrote it, from the clause's own tokens.
        written = " ".join(tokens[len(opening) : len(lead)]).rstrip(",;:.!")
        return f"{stands_for} {written}"
    return None


def _scope_opening(lead: list[str]) -> bool:
    """Whether the words before the user open a scope: a preposition or a part of the week
    (`fronted_scopes.txt`), a day ("saturday mornings", "tuesday through thursday"), or a
    time that is now ("these days", `time_now.txt`)."""
    return (
        lead[0] in lexicon("fronted_scopes")
        or lead[0].removesuffix("s") in lexicon("calendar_names")
        or " ".join(lead) in lexicon("time_now")
    )


def fronted(part: str) -> list[str]:
    """The part's statements with a fronted phrase read (see the module docstring): a role as
    its own statement before the clause, a scope moved after it; the part itself otherwise."""
    tokens = part.split()
    subject = _subject_at(tokens)
    lead = [word for token in tokens[: subject or len(tokens)] for word in words_of(token)]
    if not lead or len(lead) > FRONTED_WORDS:
        return [part]
    if any(" ".join(lead[:size]) in lexicon("fillers") for size in range(1, len(lead) + 1)):
        return [part]  # a chat opening ("on the bright side"), read past by the reader
    role = _role(lead, tokens)
    if role:
        return [role, " ".join(tokens[subject:])] if subject else [role]
    if not subject or not _scope_opening(lead):
        return [part]
    if set(lead) & _not_in_a_phrase() or (len(lead) < 2 and lead[0] in lexicon("value_breaks")):
        return [part]
    # The phrase goes at the end of the clause it fronts: before the next clause it opens
    # ("we only have a 4G router so I download ...") or the sentence mark.
    ends = next(
        (at for at in range(subject + 1, len(tokens)) if words_of(tokens[at])[:1]
         and words_of(tokens[at])[0] in lexicon("conjunctions") | lexicon("clause_breaks")),
        len(tokens),
    )  # fmt: skip
    rest = " ".join(tokens[subject:ends])
    body = rest.rstrip(".!?,;:\u2013\u2014 ")
    phrase = " ".join(tokens[:subject]).rstrip(",;:")
    if lead[0] not in lexicon("calendar_names"):
        phrase = phrase[:1].lower() + phrase[1:]  # it no longer opens the sentence
    moved = f"{body} {phrase}{rest[len(body) :]}"
    return [" ".join([moved, *tokens[ends:]])]
