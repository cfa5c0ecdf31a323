"""The offline reader: the user's own first-person statements, restated faithfully.

It keeps a clause only when the user states something about themselves or the people in
their life, in their own words, turned to the third person by closed-class rewrites
(`wording.third_person`): "I'm vegan and my partner is a nurse." gives "User is vegan" and
"User's partner is a nurse". It invents no structure: no template builds a caption.

Most of its work is deciding what not to store, with the grounding check's own evidence
(`clauses.user_statements`): questions, requests, hypotheticals, messages that instruct
the extractor, what the assistant said, and clauses the user corrected right after are never
statements; a clause about now (a lexicon of time words: "today", "rn") or a passing state
is not durable; a clause that does not open in the first person is not about the user.

A message is read as a list of clauses and appositions, each its own candidate: the people it
names and whom a later pronoun means (`extraction.people`), an introduction's name and age
(`extraction.introductions`), and contractions typed without apostrophes restored before any
of it (`extraction.chat_forms`, in `clauses.clauses_read`).
"""

from __future__ import annotations

import logging
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache

from core.lexicon import has_phrase, lexicon, pairs
from core.metrics import READER_CLAUSES_SKIPPED
from core.words import word_spans, words_of
from extraction import fragments, slots, subjectless
from extraction.candidates import Candidate
from extraction.clauses import opens_without_i, user_clauses, without_instructions
from extraction.corrections import correcting, only_correcting
from extraction.definite import definite_mine, relations_of
from extraction.described import description_split
from extraction.ellipsis import practice_restored
from extraction.fragments import fragment
from extraction.fronted import fronted
from extraction.introductions import introductions
from extraction.joins import MOST_JOINED, SUBJECT_BREAK, events_apart, undangled
from extraction.kept import caption_kept, caption_of, category
from extraction.lists import lists_distributed
from extraction.named import (
    group_counted,
    group_named,
    named_in_passing,
    names_alone,
    names_counted,
    names_joined,
    names_placed,
    one_of,
)
from extraction.people import (
    both_stated,
    closed_reading,
    goes_on,
    last_person,
    listed_with,
    lists_rejoined,
    mention_at,
    named_last,
    reported,
    resolved,
    stated,
    subject_being,
    subject_of,
    together,
)
from extraction.places import there_placed
from extraction.run_ons import time_trimmed
from extraction.shared import same_as_before, shared
from extraction.wording import tidy_caption
from memories.facets import read as read_facets

logger = logging.getLogger(__name__)

CONFIDENCE = 0.7


def _parts(clause: str) -> list[str]:
    """The clause's statements: split at a new subject, and at "and" before a verb that
    leaves the "I" out ("I'm 41 and have bad knees")."""
    parts = []
    for part in (p for split in SUBJECT_BREAK.split(clause) for p in events_apart(split)):
        pieces = part.split(" and ")
        if len(pieces) > MOST_JOINED:
            parts.append(part)  # a list or a flood of "and"s, not statements to split
            continue
        parts.append(pieces[0])
        for piece in pieces[1:]:
            said = words_of(piece)
            if not said:
                continue  # a dangling "and" ("I work at Siemens and "): nothing follows it
            subject = subject_of(parts[-1])
            after_words = len(words_of(parts[-1])) > 1
            if opens_without_i(said) and subject and after_words:
                parts.append(f"{subject} {piece}")  # "my sister moved there and never left"
            elif (opens_without_i(said) or subjectless.their_person(said)) and after_words:
                parts.append(piece)
            elif subject and closed_reading(f"User {piece}"):
                parts.append(f"{subject} {piece}")  # "he's retired and lives in cork"
            elif (
                (being := subject_being(parts[-1]))
                and closed_reading(f"User is {piece}")
                and not (said[0].isdigit() and words_of(parts[-1])[-1].isdigit())
            ):  # "my kids are 8 and 11" is one value
                parts.append(f"{being} {piece}")  # "I'm 67 and recently widowed"
            elif subject and (going_on := goes_on(piece, parts[-1], subject)):
                parts.append(going_on)  # "is 94 and still drives", "hes 27 and between jobs"
            elif going_on := subjectless.user_goes_on(piece, parts[-1]):
                parts.append(going_on)  # "i work from home and cook most nights"
            else:
                parts[-1] = f"{parts[-1]} and {piece}"
    return lists_rejoined([undangled(part) for part in parts if undangled(part)])


# "from a" / "from an" mid-sentence: where something came from, never the user's origin.
_FROM_ONE = (["from", "a"], ["from", "an"])
_OPENERS = lexicon("fillers") | {"and", "but"}


def _opening(part: str) -> str:
    """The clause without the chat words it may open with ("lol", "ok so", "btw", "on the
    bright side", a heading and its colon: "Me: retired firefighter"), the longest first."""
    words = part.split()
    while words:
        size = next(
            (
                size
                for size in (4, 3, 2, 1)
                if len(words) >= size
                and (
                    (opening := " ".join(words[:size]).lower()).strip(",.!") in _OPENERS
                    or (opening.endswith(":") and opening[:-1] in lexicon("headings"))
                )
            ),
            0,
        )
        if not size:
            break
        words = words[size:]
    return " ".join(words)


def _in_first_person(part: str) -> str | None:
    """The part as a first-person clause (None if it is about someone else), with the "I" a
    chat clause leaves out put back ("moved to Lisbon!" is "I moved to Lisbon!", "night owl"
    is "I'm night owl")."""
    part = subjectless.quantifier_dropped(part)  # "both my kids have ADHD"
    words = words_of(part)
    if not words:
        return None
    slot = slots.value_first(part)
    if slot:  # "hiking's my favourite thing" is "my favourite thing is hiking"
        return slot
    if words[0] in lexicon("first_person") and words[0] not in {"me", "us"}:
        return part
    if subjectless.their_person(words):  # "mum's a GP", chat leaving out the "my"
        return f"my {part}"
    if words[0] in lexicon("adverbs") and words[1:2] and words[1] in pairs("pro_drop_states"):
        adverb, rest = part.split(None, 1)  # "currently working in the ICU"
        read = _in_first_person(rest)
        return read.replace("I ", f"I {adverb.lower()} ", 1) if read else None
    if words[0] in pairs("pro_drop_states"):  # "living in milan" is "I live in milan"
        if (job := fragment(part)) and job.startswith(("I'm a ", "I'm an ")):
            return job  # "teaching assistant at a primary school": a job's name
        cut = subjectless.gerund_cut(part)  # "renting in london is a joke"
        verb = pairs("pro_drop_states")[words[0]]
        return " ".join(["I", verb, *cut.split()[1:]]) if cut else None
    if words[0] in lexicon("negators") and closed_reading(caption_of(f"I {part}")):
        return f"I {part}"  # "dont eat meat": a negation the registry reads, not a request
    if opens_without_i(words):
        negated = words[0] in {"not", "never"} and words[1:2] != ["been"]
        # The opener is no name: "Cancelled my gym" is "I cancelled my gym", never "I Cancelled".
        part = part[:1].lower() + part[1:] if part[1:2].islower() else part
        # Two words are what the user is only when the second is on its own ("retired
        # firefighter", never "retired early").
        described = (
            fragment(part)
            if len(words) >= 2
            and words[1] not in _BREAKS
            and (len(words) > 2 or fragment(words[1]))
            else None
        )
        if described and described.startswith(("I'm a ", "I'm an ")):
            return described  # "retired police officer": what the user is, not what they did
        return f"I'm {part}" if negated else f"I {part}"
    # "blood group B+ btw", "down to 84kg now"
    return fragment(part) or slots.in_passing(part) or subjectless.verbless_change(part)


# A word after a verb that opens its object or its time ("moved to", "retired last year").
_BREAKS = lexicon("value_breaks") | lexicon("quantities")


@cache
def _openers() -> tuple[tuple[list[str], str], ...]:
    """The fragment openings and the clause each stands for, longest first."""
    found = []
    for entry in lexicon("fragment_openers"):
        opening, _, clause = entry.partition("=")
        found.append((opening.split(), clause.strip()))
    return tuple(sorted(found, key=lambda item: -len(item[0])))


@cache
def _value_stops() -> frozenset[str]:
    """Where the value after a fragment opening ends: a new clause, a break, the user, or an
    auxiliary that opens a question ("as a diabetic should i ...")."""
    return (
        lexicon("value_ends")
        | lexicon("value_breaks")
        | lexicon("first_person")
        | lexicon("auxiliaries")
    )


def _opened(clause: str) -> str | None:
    """A clause that opens the way chat states a fact without a subject ("greetings from
    Berlin!", "as a paralegal what's the best way ..."), as the user's own clause, with the
    value the registry reads after it ("I'm a paralegal"); None for any other."""
    said = words_of(_opening(clause))
    for opening, stands_for in _openers():
        if said[: len(opening)] != opening:
            if words_of(clause)[: len(opening)] != opening:
                continue
            said = words_of(clause)  # "hello from porto": a greeting that is the opener
        value: list[str] = []
        for word in said[len(opening) :][:4]:
            if word in _value_stops():
                break
            value.append(word)
        if not value or set(value) <= {"it", "that", "this", "them", "these", "those"}:
            return None  # "not into it": what it is was said elsewhere
        # The value as the user wrote it ("Lisbon"), from the clause's own words.
        spans = word_spans(clause)
        start = len(spans) - len(said) + len(opening)
        text = clause[spans[start].start() : spans[start + len(value) - 1].end()]
        stated = f"{stands_for} {text}"
        facets = read_facets(caption_of(stated))
        if any(f.attribute.split(":")[0] not in {"practice", "about"} for f in facets):
            return stated + _had_with(said[len(opening) + len(value) :], spans[-len(said) :])
    return None


def _had_with(rest: list[str], spans: list) -> str:
    """What "with a <thing>" right after an opening's value adds ("as a vegan with a nut
    allergy, ..." is "I'm a vegan and I have a nut allergy"), else ""."""
    if rest[:1] != ["with"] or rest[1:2] not in (["a"], ["an"]):
        return ""
    thing: list[str] = []
    for word in rest[1:5]:
        if word in _value_stops() and thing:
            break
        thing.append(word)
    at = len(spans) - len(rest) + 1
    return " and I have " + " ".join(span.group(0) for span in spans[at : at + len(thing)])


def _announces_change(part: str) -> bool:
    """Whether a clause announces a change the registry knows ("just turned 42 yesterday",
    "moved to Lisbon last week"): kept although it names a time."""
    return any(facet.change for facet in read_facets(caption_of(part)))


def read_statements(
    messages: Iterable[dict],
    *,
    skipped: list[str] | None = None,
    readings: list[tuple[str, list[str]]] | None = None,
) -> list[Candidate]:
    """The candidates the user stated in `messages`, in their own words, in order; each
    clause's statement and the captions read in it are added to `readings` (whom each clause
    is about, for the grounding check).

    It never raises: a clause it cannot read is left out, logged, counted in the metric
    `memory_reader_clauses_skipped` and added to `skipped` (the job counts it), and the rest of
    the conversation is still read.
    """
    messages = list(messages)
    found: list[Candidate] = []
    seen: set[str] = set()
    starts: list[int] = []
    clauses = lists_distributed(_clauses_read(messages, skipped, starts))
    clauses = names_joined(clauses, starts)  # "Ada, Bea and Cleo": one list
    try:
        introduced = introductions(clauses, starts)
    except Exception:  # the clauses are still read one by one
        logger.exception("reader: the introductions could not be read")
        introduced = {}
    state = _State()
    # The messages that say the user was wrong before: each of their facts corrects one.
    correct = {bisect_right(starts, at) for at, c in enumerate(clauses) if correcting(c[1] or c[0])}
    for at, (clause, statement) in enumerate(clauses):
        message = bisect_right(starts, at)
        if message and at - starts[message - 1] >= MOST_CLAUSES:
            if at - starts[message - 1] == MOST_CLAUSES:  # the rest of the message unread
                logger.warning("reader: a message's clauses past %d left unread", MOST_CLAUSES)
                READER_CLAUSES_SKIPPED.labels("message").inc()
            continue
        try:
            if at in introduced:
                captions, state.ended, state.about = [introduced[at]], "", ""
            else:
                opens = at in starts or clauses[at - 1][0].rstrip()[-1:] in {".", "!", "?", ":"}
                captions = _captions(clause, statement, state, opens)
            read = [(caption, category(caption)) for caption in captions]
            if readings is not None:
                readings.append((statement, list(captions)))
            state.last = captions[-1] if captions else state.last * (not words_of(clause))
            state.known |= {r for caption in captions for r in relations_of(caption)}
        except Exception:  # one unreadable clause must not lose the others
            _skip(clause, skipped, unit="clause")
            continue
        for caption, kind in read:
            if caption.lower() in seen or only_correcting(caption, statement or clause):
                continue  # said already, or only that something said before was wrong
            seen.add(caption.lower())
            found.append(
                Candidate(
                    caption=caption,
                    full_text=f"{caption}.",
                    category=kind,
                    confidence=CONFIDENCE,
                    said=statement or clause,
                    corrects=bisect_right(starts, at) in correct,
                )
            )
    return found


# The most clauses of one message read: a message of the largest size the API takes, written
# as prose, has about a thousand; a run of "x, x, x, ..." of that size has 6,000 and took
# 5 s. Past this the message is left unread, logged and counted (the metric), not failed.
MOST_CLAUSES = 1500


def _clauses_read(
    messages: list[dict], skipped: list[str] | None, starts: list[int]
) -> list[tuple[str, str]]:
    """The user's clauses (`user_clauses`), each message's first added to `starts`; if the
    conversation cannot be split as a whole, each message on its own, and a message that
    still cannot is skipped."""
    try:
        return user_clauses(messages, starts=starts)
    except Exception:  # degrade to one message at a time
        logger.exception("reader: the conversation could not be split; reading each message")
    clauses: list[tuple[str, str]] = []
    starts.clear()
    for message in messages:
        try:
            read = user_clauses([message])
        except Exception:
            _skip(str(message.get("content", "")), skipped, unit="message")
            continue
        starts.append(len(clauses))
        clauses += read
    return clauses


def _skip(text: str, skipped: list[str] | None, *, unit: str) -> None:
    logger.exception("reader: skipped a %s it could not read (%d characters)", unit, len(text))
    READER_CLAUSES_SKIPPED.labels(unit).inc()
    if skipped is not None:
        skipped.append(text)


@dataclass
class _State:
    """What the clauses read so far tell the next one."""

    person: str = ""  # whom a later "she" or "he" means ("gf priya")
    ended: str = ""  # the person or pet the last clause ended by naming ("i got a dog")
    about: str = ""  # whom the last clause was about, when one of the user's people
    group: str = ""  # the people or pets the last clause counted ("cats")
    things: str = ""  # anything the last clause counted ("rescue greyhounds"), as `group`
    last: str = ""  # the last caption the clause before stated
    named: dict[str, str] = field(default_factory=dict)  # a name listed after a count: whose
    known: set[str] = field(default_factory=set)  # the user's people and pets said so far


def _captions(clause: str, statement: str, state: _State, opens: bool = True) -> list[str]:
    """The captions one clause states, `state` brought up to date. An apposition describes
    whom the clause before ended by naming ("i got a dog, a rescue greyhound called pepper"),
    and a clause that leaves its subject out after a comma goes on about the person the one
    before was about ("my sister lives in bergen, moved there for uni and never left")."""
    # "..., from a shelter in Kent": mid-sentence, "from a" goes on with the clause before it.
    opened = _opened(clause) if opens or words_of(clause)[:2] not in _FROM_ONE else None
    ended, about, state.ended, state.about = state.ended, state.about, "", ""
    group, state.group = state.group, ""
    copied = shared(statement, state.last) or same_as_before(statement, state.last)
    if copied:  # "..., like my mum", "my son has the same allergy": the fact is theirs too
        return [copied]
    # "retired firefighter, 67": the user's age, unless the clause before named someone
    # ("i have a son, 8").
    if not (ended or group) and (age := fragments.age_listed(statement, state.last)):
        return [age]
    names = names_alone(statement) if group else None
    if not names and state.things:  # "we've got two rescue greyhounds, Pepper and Salt"
        group, names = state.things, names_counted(statement)
    state.things = ""
    if names:  # "I have two cats, Pip and Squeak"
        state.named.update({name.lower(): one_of(group) for name in names})
        return [group_named(group, names)]
    statement = names_placed(reported(statement), state.named)  # "Squeak is deaf": the cat
    statement = definite_mine(statement, state.known)  # "the cat is called toast"
    if not statement and not opened:
        state.person = last_person(clause, state.person)
        return []
    said = _opening(statement)
    if ended and words_of(said)[:1] in (["a"], ["an"]):
        # An apposition: what they just named is, theirs if someone else's clause named it
        # ("my sister had the baby! a little boy called Rory").
        owner = f"{about}'s " if about and about != ended else ""
        said = statement = f"my {owner}{ended} is {said}"
    elif ended and len(name := names_alone(statement) or []) == 1 and name[0][0].isupper():
        return [f"User's {ended} is called {name[0]}"]  # "we had a baby girl, Rosie, ..."
    elif about and not opens and opens_without_i(words_of(said)):
        said = statement = f"my {about} {said}"  # the subject left out: the same person
    elif going_on := subjectless.continued(said, about):
        said = statement = going_on  # "..., needs insulin": not the user's verb
    elif about and not opens and (own := fragment(said)):  # "my partner is vegan, allergic to"
        said = statement = own.replace("I'm", f"my {about} is", 1).replace(
            "I have", f"my {about} has", 1
        )
    joint = None if opened else together(said, opens_sentence=opens)
    if joint:  # "me and my gf priya are planning ...": a fact of both
        state.person = last_person(said, state.person)
        # Its verb is plural ("run", "are"): `together` found it after the two subjects.
        each = both_stated(tidy_caption(joint))  # "my partner and I are both vegan"
        return [c for c in each or [tidy_caption(joint)] if caption_kept(c, verb=False)]
    captions: list[str] = []
    parts = _parts(opened) if opened else [s for part in _parts(statement) for s in fronted(part)]
    for part in parts:
        counted = mention_at(part.strip(" ,.!"), 0)
        if counted and counted.count and counted.end == len(words_of(part)):
            captions.append(stated(counted) or "")  # "my two cats": how many the user has
            continue
        part = resolved(subjectless.adverb_moved(_opening(part)), state.person)
        state.person = subjectless.owner_named(part, state.person)  # "my wife's job. shes"
        part = _in_first_person(part) or subjectless.user_dropped(part, about=about) or ""
        if not part:  # about someone else, or no words: nobody a next clause goes on about
            state.about = ""
            continue
        part = there_placed(part, captions[-1] if captions else state.last)  # "... there"
        state.person = last_person(part, state.person)
        subject = mention_at(part, 0)
        state.about = subject.said() if subject else ""
        if not part or (has_phrase(part, "temporary") and not _announces_change(part)):
            captions += [named] if part and (named := named_in_passing(part)) else []
            continue
        listed = listed_with(part)
        if listed:  # "living in milan with my wife giulia and our 2 kids": each its own fact
            head = part[: part.lower().rfind(" with ")]
            captions += (of_each := [c for c in map(stated, listed[1]) if c])
            part = head if of_each and caption_kept(caption_of(head)) else part  # "with my mum"
        caption = practice_restored(caption_of(part), captions[-1] if captions else state.last)
        if caption_kept(caption):
            split = [c for c in description_split(caption) if caption_kept(c)]
            captions += split if len(split) > 1 else [caption]  # "a designer living in Austin"
            state.ended = named_last(time_trimmed(part)) or ""
            state.group = group_counted(caption) or ""
            state.things = group_counted(caption, listed=False) or ""
            # "my sister has a new boyfriend, he's ...": hers, not the user's.
            owned = f"{state.about}'s {state.ended}" if state.ended and state.about else ""
            state.person = owned or state.ended or state.group or state.person
    return captions


def offline_candidates(
    messages: list[dict], *, skipped: list[str] | None = None
) -> list[Candidate]:
    """What the offline path stores candidates for (`pipeline.candidates_extract` without an
    LLM): the user's own statements, no message that instructs the extractor read; the
    clauses it could not read are added to `skipped`."""
    return read_statements(without_instructions(messages), skipped=skipped)
