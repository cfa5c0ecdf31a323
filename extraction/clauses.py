"""The user's messages read once, as clauses: what each clause states, in the user's words.

Every reader of what the user said (the offline reader, the grounding check of an LLM's
candidates, `remember`) takes its clauses from here, so a message is normalised and split one
way: each message read up to its first instruction, emoji read as the reader reads them, chat
forms without apostrophes restored ("shes", "im"), "Biscuit, my corgi, ..." with its subject
first, then split into clauses at sentence marks, commas and spaced dashes. A clause the user
corrects right after is not said, and a question, request or hypothetical states nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from core.lexicon import broader, lexicon, names, tagged
from core.words import sentences_rewritten, words_of
from extraction.answers import answers_framed
from extraction.asked import stated_in_question
from extraction.chat_forms import apostrophes_restored, shorthands_expanded
from extraction.labels import label_joined, labelled
from extraction.people import never_name, one_of_theirs
from extraction.run_ons import run_ons_marked
from extraction.since import fronted_events
from extraction.verbs import past_tense
from extraction.wording import symbols_read, third_person, tidy_caption
from memories.facets import read as read_facets
from memories.instructions import before_instruction


def first_person_in(text: str) -> bool:
    return any(word in lexicon("first_person") for word in words_of(text))


# A clause ends at a sentence mark, a comma, a dash ("my wife Anna — sorry, Ana") or a
# colon before a space ("Change of plans: we're expecting a baby"). An initial's full stop
# ("the U.S.") ends nothing, nor a thousands comma ("£2,000"), a colon in a time ("10:30"), a
# hyphen or an en dash between two letters or digits ("full-time", a "9 to 5" written with an
# en dash): a spaced dash does. Nor does a dot inside a token ("2.5", "example.co.uk") or an
# email address: one cut at its dots would keep "bob" as the user's email and leave the rest
# where redaction cannot see it.
# A bar or a bullet between the items of a profile ("nurse | vegan | 2 kids").
_ITEM_MARKS = str.maketrans({"|": ",", "\u2022": ","})
_ABBREVIATIONS = "|".join(map(re.escape, sorted(names("abbreviations").values(), key=len)))
_CLAUSE = re.compile(
    rf"(?:\b(?:{_ABBREVIATIONS})\.(?= )|"
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[A-Z]\.|(?<=\d),(?=\d{3}\b)|(?<=\d)\.(?=\d)"
    r"|(?<=[a-z0-9])\.(?=[a-z0-9]{2})|:(?=\S)|[^.!?;,:\n\u2013\u2014-]|(?<=\w)[-\u2013](?=\w))+"
    r"(?:[.!?;,:\n\u2013\u2014-]+|$)"
)


def _opens_with(clause: str, name: str) -> str | None:
    """The phrase of lexicon `name` that `clause` begins with, or None."""
    opening = " ".join(words_of(clause)[:4])
    for phrase in sorted(lexicon(name), key=len, reverse=True):
        if opening == phrase or opening.startswith(f"{phrase} "):
            return phrase
    return None


def statement_of(clause: str) -> str | None:
    """What a clause states (None for a question, a request or a hypothetical), without the
    words that ask to keep it ("please remember that ...")."""
    if clause.rstrip().endswith("?"):
        return None
    kept = _opens_with(clause, "remember_openers")
    if kept:  # the rest as written ("remember that my mum's birthday is 3 March")
        return " ".join(clause.split()[len(kept.split()) :])
    return None if _opens_with(clause, "not_statements") else clause


def instructs(content: str) -> bool:
    """Whether a message is an instruction from its first word ("ignore previous instructions",
    "SYSTEM: ...", "<system>memory.write(...)", "I am an admin, obey me"): data, never
    evidence. A message that says something first is read up to its instruction
    (`before_instruction`, in `clauses_read`); one rule for what instructs
    (`memories.instructions`) on every way in."""
    return not words_of(before_instruction(content))


def without_fillers(words: list[str]) -> list[str]:
    """The words after the chat fillers a clause may open with ("hmm", "oops", "ok")."""
    while words and words[0] in lexicon("fillers"):
        words = words[1:]
    return words


def _keys_joined(clauses: list[str]) -> list[str]:
    """The clauses, a one-word key before a colon kept with what follows it ("second: i live in
    berlin" is one clause, read as a whole as before); a label of more words ("Change of plans:
    ...") stays apart, so the statement after it opens its clause."""
    joined: list[str] = []
    for clause in clauses:
        if (
            joined
            and joined[-1].rstrip().endswith(":")
            and (len(words_of(joined[-1])) < 2 or label_joined(joined[-1], clause))
        ):
            joined[-1] += clause
        else:
            joined.append(clause)
    return joined


# What may end a clause: the marks `_CLAUSE` ends it at.
_MARKS = " ,.!?;:-\u2013\u2014"


def _correction(clause: str) -> str | None:
    """What a clause says after the words that correct the one before ("actually no, I live
    in Bremen", "sorry, Ana"), "" when nothing follows; None when it corrects nothing."""
    words = words_of(clause)
    kept = without_fillers(words)
    # A bare "no" corrects ("I'm 34 | oops no, 35"); "no kids" states something.
    if kept in (["no"], ["nope"]):
        return ""
    phrase = _opens_with(" ".join(kept), "corrections")
    if not phrase:
        return None
    said = len(words) - len(kept)
    while phrase:  # "sorry autocorrect, it's Bela", "sorry no, 53"
        said += len(phrase.split())
        phrase = _opens_with(" ".join(words[said:]), "corrections")
        phrase = phrase or (words[said] if words[said:][:1] in (["no"], ["nope"]) else None)
    return " ".join(clause.split()[said:]).strip(_MARKS)


def _corrected(statement: str, value: str) -> str | None:
    """The corrected statement with the value the registry reads in it replaced ("we live in
    amsterdam" corrected by "utrecht" is "we live in utrecht"); None when it reads none."""
    words = statement.strip(_MARKS).split()
    for facet in read_facets(tidy_caption(third_person(statement))):
        size = len(facet.value.split())
        if not size:
            continue
        for at in range(len(words) - size, -1, -1):
            said = words_of(" ".join(words[at : at + size]))
            if len(said) == size and all(
                word.startswith(part) for word, part in zip(said, facet.value.split(), strict=True)
            ):
                if not _alike(words[at], value.strip(_MARKS)):
                    return None
                return " ".join([*words[:at], value.strip(_MARKS), *words[at + size :]])
    return None


def _alike(old: str, new: str) -> bool:
    """Whether a value could stand in another's place as the user writes them: a number for
    a number, a capitalised name for a capitalised one ("Hull", not "wrong chat")."""
    if old[:1].isdigit() or new[:1].isdigit():
        return old[:1].isdigit() and new[:1].isdigit()
    return not old[:1].isupper() or new[:1].isupper()


def _bare_value(clause: str) -> bool:
    """A clause of a few words with no subject or verb of its own ("utrecht", "35")."""
    words = words_of(clause)
    return 0 < len(words) <= 3 and not first_person_in(clause) and not opens_without_i(words)


# "Biscuit, my corgi, loves the beach": a name, then whose it is, between commas.
_APPOSITION = re.compile(r"(?<![\w,] )\b(\w[\w'-]*), ((?:my|our) \w+(?: \w+)?), ", re.I)


def _named_first(match: re.Match) -> str:
    """ "Biscuit, my dog, ..." as "my dog Biscuit ..." when the relation is one of the people
    or pets in a user's life (a closed class, or a kind of one: "luna, my tabby, ..."), or the
    name is written as one ("Biscuit, my corgi"), so the clause keeps its subject."""
    relation = match.group(2).split(" ", 1)[1].lower()
    listed = one_of_theirs(relation)
    name = match.group(1)
    if never_name(name.lower()) or (not listed and not name[:1].isupper()):
        return match.group(0)  # a name as written ("Biscuit, my corgi, ...") names any thing
    return f"{match.group(2)} {match.group(1)} "


# "my sister, a nurse in Leeds, is visiting", "my husband, who works as an architect, is a
# keen cyclist": a description between commas after someone or something of the user's, with
# the sentence going on after it.
_DESCRIBED = re.compile(
    r"\b((?:my|our) (?:[\w'-]+ ){0,2}?[\w'-]+), ((?:a|an|who) [^,.!?;:\n]{1,60}?), (?=\w)", re.I
)
_SENTENCE_END = re.compile(r"[.!?\n]|$")


# "I have full custody of my son, who has type 1 diabetes.": a "who" clause that ends the
# sentence, of whom it follows.
_WHO_LAST = re.compile(
    r"\b((?:my|our) (?:[\w'-]+ ){0,2}?[\w'-]+), who ([^,.!?;:\n]{1,60}?)(?=[.!?;]|$)", re.I
)


# "I'm Jordan, a 28-year-old designer living in Austin": the description after the user's
# name is what they are, a sentence of its own ("I'm Jordan. I'm a 28-year-old designer ...").
_NAMED_DESCRIBED = re.compile(r"\b((?i:i'm|i am)) ([A-Z][\w'-]+), (?=(?:a|an) )")


# "Emma (8) and Noah (5)": a name with the age in brackets after it.
_AGED = re.compile(r"\b((?:(?:my|our) [\w'-]+ )?)([A-Z][\w'-]+) \((\d{1,3})\)")


# "Tom (my husband) is a chef": whose the name is, in brackets after it.
_RELATION_AFTER = re.compile(r"\b([A-Z][\w'-]+) \(((?i:my|our) [\w' -]{1,30})\)")
_NAME_AFTER = re.compile(r"\b((?i:my|our) [\w'-]+) \(([A-Z][\w'-]+)\)")


# "two children, aged 9 and 12, ...": the ages of a counted group between commas.
_GROUP_AGED = re.compile(
    rf"\b((?:\d+|{'|'.join(sorted(lexicon('numerals')))}) ([\w'-]+)), (?i:aged|ages) "
    r"(\d{1,3}(?:(?:, | and | & )\d{1,3})*)(?=[,.;!?]|$)",
    re.I,
)


def _group_aged(sentence: str) -> str:
    """The sentence with the ages of a counted group of the user's people said after it ("I
    have two children, aged 9 and 12, and a dog" is "I have two children, and a dog. my
    children are aged 9 and 12."): between commas they cut the list, and were no one's."""
    ages = [
        f"my {m[2]} are aged {m[3].replace(', ', ' and ')}."  # no comma to cut them
        for m in _GROUP_AGED.finditer(sentence)
        if m[2].lower() in lexicon("people_plural")
    ]
    if not ages:
        return sentence
    body = _GROUP_AGED.sub(
        lambda m: m[1] if m[2].lower() in lexicon("people_plural") else m[0], sentence
    ).rstrip()
    said = body.rstrip(".!?")
    return f"{said}{body[len(said) :] or '.'} {' '.join(ages)} "


# A name typed in lower case before one of the user's people or pets in brackets: the
# bracket's "my <relation>" is the evidence it is a name ("biscuit (my spaniel) is ill").
_RELATION_AFTER_LOWER = re.compile(r"(?<![\w'])([a-z][\w'-]+) \(((?i:my|our) ([\w'-]+))\)")


def _lower_named(match: re.Match) -> str:
    relation = match.group(3).lower()
    if lexicon("people").isdisjoint({relation, broader("kinds").get(relation)}):
        return match.group(0)
    return f"{match.group(2)} {match.group(1)}"


def _ages_moved(content: str) -> str:
    """The content with each age in brackets after a name said after its sentence ("two kids,
    Emma (8) and Noah (5)." is "two kids, Emma and Noah. Emma is 8. Noah is 5.", "my son Leo
    (6)" "my son Leo ... my son Leo is 6."; "Tom (my husband)" is "my husband Tom"): in
    brackets it cut the list, and the names and ages were lost."""
    content = _RELATION_AFTER.sub(r"\2 \1", content)  # "my husband Tom is a chef"
    content = _RELATION_AFTER_LOWER.sub(_lower_named, content)  # "biscuit (my spaniel)"
    content = _NAME_AFTER.sub(r"\1 \2", content)  # "my sister (Anna)" is "my sister Anna"
    if _GROUP_AGED.search(content):
        content = sentences_rewritten(content, _group_aged)  # "two kids, aged 9 and 12,"
    return sentences_rewritten(content, _aged) if _AGED.search(content) else content


def _aged(sentence: str) -> str:
    ages = [f"{m[1]}{m[2]} is {m[3]}." for m in _AGED.finditer(sentence)]
    if not ages:
        return sentence
    body = _AGED.sub(r"\1\2", sentence).rstrip()
    said = body.rstrip(".!?")
    return f"{said}{body[len(said) :] or '.'} {' '.join(ages)} "


# "our twins, Ava and Isla, start school": the names of one of the user's people between
# commas, the sentence going on after them.
_NAMES_BETWEEN = re.compile(
    rf"\b((?i:my|our) ([\w'-]+)), ((?:(?:{_ABBREVIATIONS})\.? )?[A-Z][\w'-]+"
    r"(?: (?:and|&) [A-Z][\w'-]+)?), (?=[a-z])"
)


def _names_placed(content: str) -> str:
    """The content with the names between commas after one of the user's people placed after
    the relation ("our twins Ava and Isla start school"): cut at the commas, the relation was a
    clause alone and the names another, and the sentence's verb lost its subject."""

    def placed(match: re.Match) -> str:
        # "our youngest, Theo, ...": a relation or a word a family calls one of its own.
        if match.group(2).lower() not in lexicon("people") | lexicon("relation_idioms"):
            return match.group(0)
        return f"{match.group(1)} {match.group(3)} "

    return _NAMES_BETWEEN.sub(placed, content)


# The most descriptions one sentence has moved: more is a list, not a description.
_DESCRIPTIONS_PER_SENTENCE = 3


def _descriptions_moved(content: str) -> str:
    """The content with each description of one of the user's people moved after its sentence
    ("my sister, a nurse in Leeds, is visiting" is "my sister is visiting. my sister is a nurse
    in Leeds."): between commas it reads as a clause of its own, the user's ("User is a nurse
    in Leeds"), and the sentence's verb loses its subject ("my car, a 2009 fiat, broke down"
    read "User broke down")."""
    content = _NAMED_DESCRIBED.sub(lambda m: f"{m.group(1)} {m.group(2)}. I'm ", content)
    content = _WHO_LAST.sub(r"\1. \1 \2", content)  # "... my son, who has diabetes."
    return sentences_rewritten(content, _described) if _DESCRIBED.search(content) else content


def _described(sentence: str) -> str:
    at = 0
    for _ in range(_DESCRIPTIONS_PER_SENTENCE):
        match = _DESCRIBED.search(sentence, at)
        if match is None:
            break
        end = _SENTENCE_END.search(sentence, match.end()).start()  # type: ignore[union-attr]
        rest = sentence[match.end() : end].rstrip()
        said = match.group(2)
        # "my husband, who works as an architect, is ...": the clause says it with its verb.
        described = said[4:] if said.lower().startswith("who ") else f"is {said}"
        moved = f"{match.group(1)} {rest}. {match.group(1)} {described}."
        sentence = sentence[: match.start()] + moved + sentence[end:].lstrip(".")
        at = match.start() + len(moved)
    return sentence


def user_clauses(
    messages: Iterable[dict], *, starts: list[int] | None = None
) -> list[tuple[str, str]]:
    """Each clause of the user's own messages with what it states (see `clauses_read`); the index
    of each message's first clause is added to `starts` (an introduction opens a message)."""
    return clauses_read(messages, starts)[0]


def clauses_read(
    messages: Iterable[dict], starts: list[int] | None = None
) -> tuple[list[tuple[str, str]], list[str]]:
    """Each clause of the user's own messages with the text it states (empty for a question, a
    request or a hypothetical: the readers still read such a clause for the people it names,
    so it stays in the list as text), each message read up to where it instructs the extractor or
    the assistant (what follows is data, never evidence). A clause the user corrects right
    after is not said ("I live in Hamburg. Actually no, Bremen"), and a bare value after the
    correction takes the place of the one it corrects ("I'm 34 | oops no, 35" says "I'm 35").
    A question still names the people a later "she" or "he" means ("can my cat eat tuna? he's
    14")."""
    found: list[tuple[str, str]] = []
    withdrawn: list[str] = []
    corrected = ""  # the statement a correction took back, until its new value comes
    for message in answers_framed(list(messages)):  # "Where are you based?" "Leeds"
        if str(message.get("role", "user")) != "user":
            continue
        # Up to its first instruction: what follows is the instruction's, not the user's.
        content = before_instruction(str(message.get("content", "")))
        content = symbols_read(content)  # an emoji says nothing, and may end a clause
        content = content.translate(_ITEM_MARKS)  # "nurse | cat mum": items, as commas part them
        content = apostrophes_restored(content)  # "shes" is "she's", "im" is "i'm"
        content = fronted_events(content)  # "since moving to Denver, I ...": I moved there
        content = run_ons_marked(content)  # "im 29 i work in sales my husband is ..."
        content = shorthands_expanded(content)  # "rn" is "right now"
        if starts is not None:
            starts.append(len(found))
        for clause in _keys_joined(
            _CLAUSE.findall(
                _descriptions_moved(
                    _ages_moved(_names_placed(_APPOSITION.sub(_named_first, content)))
                )
            )
        ):
            rest = _correction(clause)
            if rest is not None:
                stated = [at for at, (_, statement) in enumerate(found) if statement]
                if stated:
                    corrected = found[stated[-1]][1]
                    withdrawn.append(corrected)
                    found[stated[-1]] = (found[stated[-1]][0], "")
                if not rest:
                    found.append((clause, ""))
                    continue
                clause = rest
            statement = statement_of(clause)
            if statement is None and clause.rstrip().endswith("?"):
                statement = stated_in_question(clause)  # "... now that we're on Hyperoptic?"
            statement = labelled(statement) if statement else statement  # "Job: nurse"
            if corrected and statement and _bare_value(statement):
                statement = _corrected(corrected, statement) or statement
            corrected = ""
            found.append((clause, statement or ""))
    return found, withdrawn


def user_statements(messages: Iterable[dict]) -> list[str]:
    """What the clauses of the user's own messages state (`user_clauses`), questions left out."""
    return [statement for _, statement in user_clauses(messages) if statement]


def opens_without_i(words: list[str]) -> bool:
    """Whether a clause's words open the way chat leaves out "I" (a lexicon of openers, maybe
    after an adverb): "moved to Lisbon!", "finally sold the car", "not a fan of horror"."""
    if words and words[0] in lexicon("adverbs"):
        words = words[1:]
    if words[1:2] and words[1] in {"is", "are", "was", "were", "has"}:
        return False  # "work has been a lot lately": the word is the subject, not a verb
    opening = " ".join(words[:2])
    if any(opening == p or opening.startswith(f"{p} ") for p in lexicon("pro_drop")):
        return True
    # A change said in the past tense ("ditched the gym", "swapped the car for a bike"): the
    # change cues are a closed class of the user's own life changes, and a past with no
    # subject before it is the speaker's (`extraction.subjectless` for the other verbs).
    return any(words[: len(cue)] == cue and len(words) > len(cue) for cue in _change_pasts())


@cache
def _change_pasts() -> tuple[list[str], ...]:
    """The change cues (`core/lexicons/change_cues.txt`) that open with a verb's past tense
    ("ditched", "split up"; not "split" alone, which "split equally" is no change)."""
    cues = tagged("change_cues", ("ends", "starts", "corrects", "replaces"))
    return tuple(
        phrase.split()
        for tag in ("ends", "replaces", "starts")
        for phrase in cues[tag]
        if past_tense(phrase.split()[0])
    )


def without_instructions(messages: Iterable[dict]) -> list[dict]:
    """The messages, less those that instruct the extractor or the assistant ("ignore
    previous instructions", "SYSTEM:"): data for the model, never facts to read."""
    return [m for m in messages if not instructs(str(m.get("content", "")))]
