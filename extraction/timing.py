"""Time phrases in what the user said (issue 33): when a fact holds, and a caption that does not
go stale.

"We moved to Lisbon last month", said on 2026-11-10, is "User moved to Lisbon" from 2026-10-01:
the phrase is read from the clause the candidate came from (`Candidate.said`), resolved against
when it was said (`Candidate.said_at`, else now), and taken out of the caption (and, when it is
relative, out of the full text), so the caption is still true a year on.

The dates are dateparser's (`search_dates` finds the phrases, `DateDataParser` resolves each with
its period: rules kept as data per locale); this module writes no date grammar. What a phrase
does to the fact is read from closed classes (`core/lexicons/time_*.txt`): the word before it
("since 2019": from then; "until 2020": to then; "back in 2015": then, not now), a clause about
the past with no date of its own ("used to", "when I was a kid": over when it was said) or about
what is expected ("expecting a baby in March": the next March, and only until its end).

dateparser takes about 0.1 s to load, so it is imported only for a clause that names a time.
"""

from __future__ import annotations

import calendar
import datetime
from dataclasses import dataclass, replace
from functools import cache

from django.utils import timezone

from core.lexicon import has_phrase, lexicon
from core.words import word_spans, words_of
from extraction.candidates import Candidate
from extraction.verbs import base_form, past_tense, third_singular
from memories.facets import facets_read
from memories.values import lacks_value

# The years a bare four-digit number can name ("since 2019"; "2000 steps" is no time).
_YEARS = range(1900, 2101)
# Words that say a time is counted back from, or on from, when it was said.
_RELATIVE = frozenset({"ago", "last", "next", "this", "past"})


@dataclass(frozen=True)
class TimePhrase:
    """One time phrase of a clause: its words, what it does to the fact, and what it names."""

    words: tuple[str, ...]  # as the clause says it, its role words included ("since", "2019")
    role: str  # from, to, past, at or for (`core/lexicons/time_roles.txt`)
    start: datetime.date  # the first day of the time it names (a point: that day)
    end: datetime.date  # its last day
    relative: bool  # it names a time only from when it was said ("last month", "in March")
    point: bool  # a point counted from when it was said ("two years ago"), not a period
    period: str = "day"  # what it names: a day, a month or a year


def candidates_timed(candidates: list[Candidate]) -> list[Candidate]:
    """Each candidate with the time its clause states (`candidate_timed`)."""
    return [candidate_timed(candidate) for candidate in candidates]


def candidate_timed(candidate: Candidate) -> Candidate:
    """The candidate with `valid_from`/`valid_to` from the time phrases of the clause it came
    from, and those phrases out of its caption (a relative one out of its full text too). A
    candidate whose clause names no time comes back as it is."""
    clause = candidate.said or candidate.caption
    past = has_phrase(clause, "time_past")
    if not past and not _cued(words_of(clause)):
        return candidate
    said_at = candidate.said_at or timezone.now()
    future = has_phrase(clause, "time_future")
    told_past = _told_in_past(candidate.caption)
    # A month said with a present verb is the next one ("starts school in September", "is
    # moving to Berlin in January"); with a past one the last ("started in March").
    phrases = time_phrases(clause, said_at, future=future or not told_past)
    if not has_phrase(clause, "time_perfect"):
        # "lived in Rome for 5 years" is how long, in the past: not since when.
        phrases = tuple(phrase for phrase in phrases if phrase.role != "for")
    caption, full_text = candidate.caption, candidate.full_text
    valid_from, valid_to = candidate.valid_from, candidate.valid_to
    held = _held_in_past(candidate.caption, told_past)
    for phrase in phrases:
        if _is_value(caption, phrase):
            # "User's son was born two years ago": the time is the fact; written as a date.
            caption, full_text = _dated(caption, phrase), _dated(full_text, phrase)
            continue
        if _bare(_stripped(caption, phrase.words)):
            # "User retired in 2018", "User only started in January": without its time the
            # caption says next to nothing, so it keeps it, written as a date.
            caption, full_text = _dated(caption, phrase, True), _dated(full_text, phrase, True)
        else:
            caption = _stripped(caption, phrase.words)
            if phrase.relative:
                full_text = _stripped(full_text, phrase.words)
        # A time after the message is ahead of it, whatever the verb ("moving to Porto next
        # year").
        ahead = future or phrase.start > said_at.date()
        begins, ends = _holds(phrase, future=ahead, held=held)
        valid_from = valid_from or begins
        valid_to = valid_to or ends
    if past and valid_to is None:
        # "I used to live in Paris": over by the time it was said, whenever it began.
        valid_to = said_at.date()
    if valid_from and valid_to and valid_from > valid_to:
        valid_from = None
    return replace(
        candidate,
        caption=caption,
        full_text=full_text,
        valid_from=valid_from,
        valid_to=valid_to,
    )


def _holds(
    phrase: TimePhrase, *, future: bool, held: bool
) -> tuple[datetime.date | None, datetime.date | None]:
    """When the fact holds, from one phrase: its role, whether the clause looks ahead, and
    whether the caption states a state of the past ("User was vegan")."""
    if phrase.role == "from" or phrase.role == "for":
        return phrase.start, None
    if phrase.role == "to":
        return None, phrase.start
    if phrase.role == "past" or (held and not future):
        return phrase.start, phrase.end
    if future:
        # "expecting a baby in March": an expectation, until the end of the time it names.
        return None, phrase.end
    return phrase.start, None  # "moved to Lisbon last month": since then


def time_phrases(
    clause: str, said_at: datetime.datetime, *, future: bool = False
) -> tuple[TimePhrase, ...]:
    """The time phrases of a clause, resolved against `said_at`: dateparser finds them, the
    closed classes keep those that name a time in the user's life ("we" is not Wednesday, nor
    "May" a month in "a cat called May") and read the role of each."""
    written = words_of(clause)
    tokens, origin = _normalised(written)
    if not tokens:
        return ()
    base = said_at.astimezone(datetime.UTC).replace(tzinfo=None) if said_at.tzinfo else said_at
    found = _search(" ".join(tokens), base)
    phrases: list[TimePhrase] = []
    at = 0
    for text, _when in found:
        hit = words_of(text)
        where = _find(tokens, hit, at)
        if where is None:
            continue
        at = where + len(hit)
        phrase = _phrase(tokens, origin, written, where, at, base, future)
        if phrase is not None:
            phrases.append(phrase)
    return tuple(phrases)


def _phrase(
    tokens: list[str],
    origin: list[tuple[int, int]],
    written: list[str],
    first: int,
    last: int,
    base: datetime.datetime,
    future: bool,
) -> TimePhrase | None:
    """The phrase dateparser found at tokens[first:last], its role read before it, if it names
    a time; else None."""
    skip = _skipped()
    while last > first and tokens[last - 1] in lexicon("conjunctions"):
        last -= 1  # "last month and": the phrase ends before the conjunction
    core = first
    while core < last and tokens[core] in skip and not _is_time_word(tokens[core]):
        core += 1
    if core >= last:
        return None
    begin, role = _role_before(tokens, core)
    kept = _kept(tokens[core:last], role)
    if kept is None:
        return None
    relative, point = kept
    if point and role in ("at", "") and not future and "ago" not in tokens[core:last]:
        return None  # "3 days a week" is how often, not when
    if role == "for" and not point:
        return None
    # "since March" began before it was said, whatever the verb.
    ahead = future and role not in ("from", "for", "past")
    resolved = _resolve(" ".join(tokens[core:last]), base, ahead)
    if resolved is None:
        return None
    day, period = resolved
    start, end = _span(day, "day" if point else period)
    first_word, last_word = origin[begin][0], origin[last - 1][1]
    return TimePhrase(
        words=tuple(written[first_word:last_word]),
        role=role or "at",
        start=start,
        end=end,
        relative=relative,
        point=point,
        period="month" if point else period,
    )


def _kept(core: list[str], role: str) -> tuple[bool, bool] | None:
    """Whether the words dateparser read as a time name one in the user's life, and if so
    whether it is relative to when it was said and a point counted from then; else None."""
    years = [word for word in core if word.isdigit() and int(word) in _YEARS]
    units = [word for word in core if word in lexicon("durations")]
    counted = any(
        word.isdigit() or word in lexicon("numerals") or word in {"a", "an"} for word in core
    )
    if "ago" in core or (role == "for" and units and counted):
        return True, True  # "two years ago", "for 5 years"
    if core[0] in _RELATIVE and (units or any(word in lexicon("months") for word in core)):
        return True, False  # "last month", "this year", "next March"
    if years:
        return False, False  # "2019", "june 2018"
    if any(word in lexicon("months") for word in core) and role:
        return True, False  # "in March": which March, from when it was said
    if units and counted and role == "at":
        return True, True  # "in two weeks"
    return None


def _resolve(text: str, base: datetime.datetime, future: bool) -> tuple[datetime.date, str] | None:
    """The date dateparser reads in `text` and the period it names (day, week, month, year)."""
    from dateparser.date import DateDataParser

    parser = DateDataParser(languages=["en"], settings=_settings(base, future))
    data = parser.get_date_data(text)
    if data.date_obj is None:
        return None
    return data.date_obj.date(), data.period or "day"


def _search(text: str, base: datetime.datetime) -> list[tuple[str, datetime.datetime]]:
    """The phrases dateparser reads as times in `text` (each resolved again with its role)."""
    from dateparser.search import search_dates

    return search_dates(text, languages=["en"], settings=_settings(base, False)) or []


def _settings(base: datetime.datetime, future: bool) -> dict:
    return {
        "RELATIVE_BASE": base,
        "PREFER_DATES_FROM": "future" if future else "past",
        "RETURN_TIME_AS_PERIOD": True,
    }


def _span(day: datetime.date, period: str) -> tuple[datetime.date, datetime.date]:
    """The first and last day of the period dateparser named around `day` (a month is enough:
    "last month" said on 10 November is October)."""
    if period == "year":
        return datetime.date(day.year, 1, 1), datetime.date(day.year, 12, 31)
    if period == "month":
        last = calendar.monthrange(day.year, day.month)[1]
        return day.replace(day=1), day.replace(day=last)
    return day, day


def _role_before(tokens: list[str], at: int) -> tuple[int, str]:
    """Where the phrase starting at `at` begins once its role words and modifiers are taken in
    ("in the spring of 2021", "back in 2015"), and its role ("" when none is said)."""
    roles = _roles()
    longest = max(len(phrase) for phrase in roles)
    start = at
    while start > 0:
        for size in range(min(longest, start), 0, -1):
            role = roles.get(tuple(tokens[start - size : start]))
            if role:
                return start - size, role
        if tokens[start - 1] not in lexicon("time_modifiers"):
            break
        start -= 1
    return at, ""


@cache
def _roles() -> dict[tuple[str, ...], str]:
    """The role phrases (`time_roles.txt`: "role phrase" per line), by their words."""
    found = {}
    for line in lexicon("time_roles"):
        role, phrase = line.split(maxsplit=1)
        found[tuple(phrase.split())] = role
    return found


@cache
def _counts() -> dict[tuple[str, ...], str]:
    """The counts said in words dateparser does not read (`vague_counts.txt`), by their words."""
    found = {}
    for line in lexicon("vague_counts"):
        number, phrase = line.split(maxsplit=1)
        found[tuple(phrase.split())] = number
    return found


def _normalised(words: list[str]) -> tuple[list[str], list[tuple[int, int]]]:
    """The words as dateparser reads them ("a couple of years ago" is "2 years ago"), and for
    each the span of written words it stands for."""
    counts = _counts()
    longest = max(len(phrase) for phrase in counts)
    tokens: list[str] = []
    origin: list[tuple[int, int]] = []
    at = 0
    while at < len(words):
        for size in range(longest, 0, -1):
            number = counts.get(tuple(words[at : at + size]))
            if number:
                tokens.append(number)
                origin.append((at, at + size))
                at += size
                break
        else:
            tokens.append(words[at])
            origin.append((at, at + 1))
            at += 1
    return tokens, origin


def _find(tokens: list[str], hit: list[str], start: int) -> int | None:
    """Where the words `hit` stand in `tokens`, from `start` on."""
    for at in range(start, len(tokens) - len(hit) + 1):
        if tokens[at : at + len(hit)] == hit:
            return at
    return None


def _is_time_word(word: str) -> bool:
    return word in lexicon("months") or (word.isdigit() and int(word) in _YEARS)


def _cued(words: list[str]) -> bool:
    """Whether a clause names a time dateparser may read: a month, a year, a unit of time or a
    word that counts one ("ago", "last", "since"). A clause without one is never parsed."""
    cues = _cues()
    return any(word in cues or (word.isdigit() and int(word) in _YEARS) for word in words)


@cache
def _cues() -> frozenset[str]:
    return lexicon("months") | lexicon("durations") | _RELATIVE | {"since", "until", "till"}


@cache
def _skipped() -> frozenset[str]:
    """The words a phrase dateparser found may open with before its time: role words and
    modifiers ("in", "from", "the spring of"), not the words that count it ("last")."""
    roles = {word for phrase in _roles() for word in phrase}
    return (lexicon("time_modifiers") | roles) - _RELATIVE


def _told_in_past(caption: str) -> bool:
    """Whether the caption's verb is a past ("User moved", "User's sister got married") or a
    perfect ("User has been ..."), read by `extraction.verbs` from its closed list of verbs."""
    words = words_of(caption)
    for at, word in enumerate(words[1:], start=1):
        after = words[at + 1] if at + 1 < len(words) else ""
        if word in {"has", "have"}:
            return after == "been" or past_tense(after)
        if past_tense(word) or word in {"was", "were", "used"}:
            return True
        if third_singular(word) or word in lexicon("copulas") | lexicon("auxiliaries"):
            return False
        if base_form(word):
            return words[0] == "user"  # "User quit": a base form after "User" is a past
    return False


def _held_in_past(caption: str, told_past: bool) -> bool:
    """Whether the caption states a state of the past ("User was vegan", "User used to ...",
    "User lived in Rome": a past of a state the registry knows), not an event ("User moved to
    Rome", "User adopted a cat")."""
    words = words_of(caption)
    if len(words) > 1 and words[1] in {"was", "were", "had"}:
        return True
    facets = facets_read(caption)
    if any(facet.past for facet in facets):
        return True
    return told_past and any(
        not facet.change and ":" not in facet.attribute and not _perfect(words) for facet in facets
    )


def _perfect(words: list[str]) -> bool:
    return any(word in {"has", "have"} for word in words[1:3])


def _is_value(caption: str, phrase: TimePhrase) -> bool:
    """Whether the time is the fact itself ("User's son was born two years ago", "User's
    birthday is in March"): said right after a word of `time_values`, or the caption says
    nothing without it."""
    at = _locate(caption, phrase.words)
    if at is None:
        return False
    before = [word.group().lower() for word in word_spans(caption[: at[0]])][-3:]
    if any(word in lexicon("time_values") for word in before):
        return True
    return lacks_value(_stripped(caption, phrase.words))


def _locate(text: str, words: tuple[str, ...]) -> tuple[int, int] | None:
    """Where the words stand in `text`, as characters, if they do."""
    spans = word_spans(text)
    said = [span.group().lower().replace("\u2019", "'") for span in spans]
    for at in range(len(said) - len(words) + 1):
        if tuple(said[at : at + len(words)]) == words:
            return spans[at].start(), spans[at + len(words) - 1].end()
    return None


def _stripped(text: str, words: tuple[str, ...]) -> str:
    """`text` without the phrase, tidied: no doubled space, no comma left hanging ("Last month,
    User moved ..." is "User moved ...")."""
    at = _locate(text, words)
    if at is None:
        return text
    head, tail = text[: at[0]].rstrip(), text[at[1] :].lstrip()
    if not head.strip(" ,"):
        head, tail = "", tail.lstrip(" ,")
    if tail[:1] in {",", ".", "!", "?", ";", ""}:
        head = head.rstrip(" ,")
    joined = f"{head} {tail}" if head and tail and tail[0] not in ",.!?;" else head + tail
    joined = " ".join(joined.split())
    return joined[:1].upper() + joined[1:] if joined and not head else joined


def _dated(text: str, phrase: TimePhrase, yearly: bool = False) -> str:
    """A relative phrase written as its date ("two years ago" is "in November 2024", "since
    last year" "since 2025"), so the caption stays true; an absolute one as it is. A month
    alone ("birthday is in March") comes back every year: written with its year only when
    `yearly` (it happened in one)."""
    recurring = phrase.words[-1] in lexicon("months") and not set(phrase.words) & _RELATIVE
    if not phrase.relative or (recurring and not yearly):
        return text
    at = _locate(text, phrase.words)
    if at is None:
        return text
    return text[: at[0]] + _written(phrase) + text[at[1] :]


# How a time is written back into a caption, by its role: "since 2025", "until March 2027".
_ROLE_WORDS = {"from": "since", "for": "since", "to": "until", "past": "back in"}


def _written(phrase: TimePhrase) -> str:
    day = phrase.start
    if phrase.period == "year":
        when = str(day.year)
    elif phrase.period == "month":
        when = f"{day:%B} {day.year}"
    else:
        when = f"{day.day} {day:%B} {day.year}"
    lead = _ROLE_WORDS.get(phrase.role) or ("on" if phrase.period == "day" else "in")
    return f"{lead} {when}"


def _bare(caption: str) -> bool:
    """Whether a caption says one word about its subject, adverbs, auxiliaries and copulas
    aside ("User retired", "User only started", "User has been coeliac")."""
    words = words_of(caption)
    words = words[2:] if words[:1] == ["user's"] else words[1:]
    light = lexicon("adverbs") | lexicon("auxiliaries") | lexicon("copulas")
    return len([word for word in words if word not in light]) < 2
