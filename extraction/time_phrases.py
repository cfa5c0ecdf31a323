"""Time phrases in a clause, found and resolved by dateparser (issue 33): "last month", "since
2019", "two years ago", "in March", each with the role the word before it gives it.

dateparser (`search_dates` finds the phrases, `DateDataParser` resolves each with its period:
rules kept as data per locale) does the dates; this module writes no date grammar. Closed
classes (`core/lexicons/time_*.txt`, `months.txt`) keep the phrases that name a time in the
user's life ("we" is not Wednesday, nor "May" a month in "a cat called May") and read the role
of each ("since": from then; "until": to then; "back in": then, not now). dateparser takes about
0.1 s to load, so it is imported only when a clause names a time (`cued`).
"""

from __future__ import annotations

import calendar
import datetime
import logging
from dataclasses import dataclass
from functools import cache

from core.lexicon import has_phrase, lexicon
from core.words import names_a_year, word_spans, words_of

logger = logging.getLogger(__name__)

# A clause longer than this is a run-on whose times' scope is unclear, and dateparser's search
# grows faster than its length (about 175 ms at 400 words): its times are left unread.
MAX_CLAUSE_WORDS = 60
# Words that say a time is counted back from, or on from, when it was said
# (`core/lexicons/time_relative.txt`, which the store's audit reads too).
RELATIVE = lexicon("time_relative")


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


def time_fronted(part: str) -> str:
    """ "Last month we moved to Lisbon" as "we moved to Lisbon last month": a time phrase said
    before the user goes after their clause, where the offline reader reads the clause (and
    `candidate_timed` the time). Only words of time may come before the user ("two years
    ago", "since March", "in the spring of 2021"); anything else leaves the part as it is."""
    written = part.split()
    heads = [words_of(token)[:1] for token in written[:6]]
    subject = next((at for at, head in enumerate(heads) if head and head[0] in _subjects()), 0)
    lead = [word for token in written[:subject] for word in words_of(token)]
    if not lead or not all(_timely(word) for word in lead) or not _names_time(lead):
        return part
    rest = " ".join(written[subject:])
    body = rest.rstrip(".!?,;:")
    phrase = " ".join(written[:subject]).rstrip(",;:")
    if lead[0] not in lexicon("months"):
        phrase = phrase[0].lower() + phrase[1:]  # it no longer opens the sentence
    return f"{body} {phrase}{rest[len(body) :]}"


@cache
def _subjects() -> frozenset[str]:
    """The words a user's clause may open with after a time: "i", "we", and "my", "our"
    ("since last week my work laptop is a MacBook")."""
    return lexicon("user_subjects") | lexicon("first_person")


def _names_time(words: list[str]) -> bool:
    """Whether words name a time, not only a unit ("second: I live in ..."): a month, a year,
    or a unit counted back or on ("two years ago", "last summer")."""
    units = any(word in lexicon("durations") or word in lexicon("time_modifiers") for word in words)
    # A season or a feast names a time of its own ("since the spring", "last christmas").
    named = any(_is_time_word(word) or word in _seasons() for word in words)
    return named or (units and any(word in RELATIVE for word in words))


@cache
def _seasons() -> frozenset[str]:
    """The seasons and feasts of `seasons.txt`, which dateparser reads as their month."""
    return frozenset(line.split(maxsplit=1)[1] for line in lexicon("seasons"))


def timely_only(words: list[str]) -> bool:
    """Whether words are a time phrase and nothing else ("Since 2017", "back in the spring")."""
    return all(_timely(word) for word in words) and _names_time(words)


def _timely(word: str) -> bool:
    """Whether a word can be part of a time phrase (`time_fronted`)."""
    return (
        word.isdigit()
        or word in _cues()
        or word in _skipped()
        or word in lexicon("numerals")
        or word in {"a", "an", "ago"}
        or any(word in phrase for phrase in _counts())
    )


def time_phrases(
    clause: str, said_at: datetime.datetime, *, future: bool = False
) -> tuple[TimePhrase, ...]:
    """The time phrases of a clause, resolved against `said_at`: dateparser finds them, the
    closed classes keep those that name a time in the user's life ("we" is not Wednesday, nor
    "May" a month in "a cat called May") and read the role of each."""
    written = words_of(clause)
    tokens, origin = _normalised(written)
    if not tokens or len(tokens) > MAX_CLAUSE_WORDS:
        return ()
    base = said_at.astimezone(datetime.UTC).replace(tzinfo=None) if said_at.tzinfo else said_at
    phrases: list[TimePhrase] = []
    try:
        found = _search(" ".join(tokens), base)
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
    except Exception:  # any failure of the parser: the facts are kept, without their times
        logger.warning("dateparser failed on a clause; its times are left unread", exc_info=True)
        return ()
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
    while last > first and not _ends_time(tokens[last - 1]):
        last -= 1  # "last month and", "in 2019 we", "in may and the": it ends on a time
    core = first
    while core < last and tokens[core] in skip and not _is_time_word(tokens[core]):
        core += 1
    if core >= last:
        return None
    core = _counted_from(tokens, core, last)
    begin, role = _role_before(tokens, core)
    future = future or "next" in tokens[begin:core]  # "next June"
    kept = _kept(tokens[core:last], role)
    if kept is None:
        return None
    relative, point = kept
    if point and role in ("at", "") and not future and "ago" not in tokens[core:last]:
        return None  # "3 days a week" is how often, not when
    if role == "for" and not point:
        return None
    # "since March" began before it was said, whatever the verb; "from January" with a future
    # verb is the next one.
    since = has_phrase(" ".join(tokens[begin:core]), "time_since")
    ahead = future and role not in ("for", "past") and not (role == "from" and since)
    resolved = _resolve(" ".join(tokens[core:last]), base, ahead)
    if resolved is None:
        return None
    day, period = resolved
    if period == "month":
        day, last = _before_last(tokens, last, day, ahead)
    part = next((_parts()[w] for w in tokens[begin:core] if w in _parts()), None)
    if part and period == "year" and not point:
        # "at the end of last year" is its December, "in mid 2021" its July.
        day, period = datetime.date(day.year, part, 1), "month"
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


def _before_last(
    tokens: list[str], last: int, day: datetime.date, ahead: bool
) -> tuple[datetime.date, int]:
    """A month, season or feast followed by "before last" ("the summer before last"): the one a
    year before the last, the phrase taken on to its end."""
    for phrase in lexicon("time_before_last"):
        said = phrase.split()
        if not ahead and tokens[last : last + len(said)] == said:
            return day.replace(year=day.year - 1, day=1), last + len(said)
    return day, last


def _ends_time(word: str) -> bool:
    """Whether a time phrase may end on `word`: a word of time, not a role word or modifier
    that only leads into one ("the", "of", "in": "in may and the rent" ends on "may")."""
    lead = word in _skipped() or word in {"a", "an"}
    return _timely(word) and not (lead and not (_is_time_word(word) or word in _seasons()))


def _counted_from(tokens: list[str], core: int, last: int) -> int:
    """Where the time starts when dateparser took in a number of the thing before it ("a
    pixel 8 last month", "an iphone 15 two weeks ago" find "8 last month"): at the word that
    counts it from when it was said, when what comes before names no unit nor month."""
    for at in range(core + 1, last):
        if tokens[at] in RELATIVE or tokens[at] in lexicon("numerals") or tokens[at].isdigit():
            before = tokens[core:at]
            if not any(w in lexicon("durations") or w in lexicon("months") for w in before):
                return at
            break
    return core


def _kept(core: list[str], role: str) -> tuple[bool, bool] | None:
    """Whether the words dateparser read as a time name one in the user's life, and if so
    whether it is relative to when it was said and a point counted from then; else None."""
    years = [word for word in core if names_a_year(word)]
    units = [word for word in core if word in lexicon("durations")]
    counted = any(
        word.isdigit() or word in lexicon("numerals") or word in {"a", "an"} for word in core
    )
    if "ago" in core or (role == "for" and units and counted):
        return True, True  # "two years ago", "for 5 years"
    if core[0] in RELATIVE and (units or any(word in lexicon("months") for word in core)):
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
    if period == "week":  # "last week": its Monday to its Sunday
        monday = day - datetime.timedelta(days=day.weekday())
        return monday, monday + datetime.timedelta(days=6)
    return day, day


def _role_before(tokens: list[str], at: int) -> tuple[int, str]:
    """Where the phrase starting at `at` begins once its role words and modifiers are taken in
    ("in the spring of 2021", "back in 2015"), and its role ("" when none is said)."""
    roles = _roles()
    longest = max(len(phrase) for phrase in roles)
    start = at
    counted: tuple[int, str] | None = None
    while start > 0:
        for size in range(min(longest, start), 0, -1):
            said = tuple(tokens[start - size : start])
            role = roles.get(said)
            if role and counted is None and set(said) <= RELATIVE:
                # "since last summer": "last" counts the time; the role may come before it.
                counted = (start - size, role)
                start -= size
                break
            if role:
                return _outer_role(tokens, start - size, role, said)
        else:
            if tokens[start - 1] not in lexicon("time_modifiers"):
                break
            start -= 1
    return counted or (at, "")


def _outer_role(tokens: list[str], begin: int, role: str, said: tuple[str, ...]) -> tuple[int, str]:
    """A role said only by modifiers ("early", "late") gives way to one said just before them:
    "since early last year" is from then, not at then."""
    if not set(said) <= lexicon("time_modifiers"):
        return begin, role
    roles = _roles()
    for size in range(min(max(len(p) for p in roles), begin), 0, -1):
        outer = roles.get(tuple(tokens[begin - size : begin]))
        if outer:
            return begin - size, outer
    return begin, role


@cache
def _roles() -> dict[tuple[str, ...], str]:
    """The role phrases (`time_roles.txt`: "role phrase" per line), by their words."""
    found = {}
    for line in lexicon("time_roles"):
        role, phrase = line.split(maxsplit=1)
        found[tuple(phrase.split())] = role
    return found


@cache
def _parts() -> dict[str, int]:
    """The month of a year each modifier names (`time_parts.txt`: "end" is December)."""
    return {word: int(month) for month, word in (line.split() for line in lexicon("time_parts"))}


@cache
def _counts() -> dict[tuple[str, ...], str]:
    """The words dateparser does not read, by their words, and what it reads instead: counts
    (`vague_counts.txt`: "a couple of" is 2), seasons (`seasons.txt`: "summer" is July) and
    phrases (`time_aliases.txt`: "the start of the month" is "this month")."""
    found = {}
    for name in ("vague_counts", "seasons"):
        for line in lexicon(name):
            instead, phrase = line.split(maxsplit=1)
            found[tuple(phrase.split())] = instead
    for line in lexicon("time_aliases"):
        phrase, instead = line.split("=")
        found[tuple(phrase.split())] = instead.strip()
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
        parts = words[at].split("-")
        if len(parts) == 2 and parts[0] in lexicon("time_modifiers") and _ends_time(parts[1]):
            # "mid-january", "late-2023": the modifier and the time, as two words.
            tokens += parts
            origin += [(at, at + 1)] * 2
            at += 1
            continue
        for size in range(longest, 0, -1):
            number = counts.get(tuple(words[at : at + size]))
            if number:
                for token in number.split():
                    tokens.append(token)
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
    return word in lexicon("months") or names_a_year(word)


def cued(words: list[str]) -> bool:
    """Whether a clause names a time dateparser may read: a month, a year, a unit of time or a
    word that counts one ("ago", "last", "since"). A clause without one is never parsed."""
    cues = _cues()
    parts = [part for word in words for part in word.split("-")]  # "mid-january"
    if any(word in cues or names_a_year(word) for word in parts):
        return True
    # A time named by a phrase of its own ("since lockdown"): the alias, said whole.
    return any(
        tuple(words[at : at + len(phrase)]) == phrase
        for phrase in _aliases()
        for at in range(len(words))
    )


@cache
def _aliases() -> tuple[tuple[str, ...], ...]:
    """The phrases of `time_aliases.txt`, by their words."""
    return tuple(tuple(line.split("=")[0].split()) for line in lexicon("time_aliases"))


@cache
def _cues() -> frozenset[str]:
    return lexicon("months") | lexicon("durations") | RELATIVE | _seasons() | {"since", "until"}


@cache
def _skipped() -> frozenset[str]:
    """The words a phrase dateparser found may open with before its time: role words and
    modifiers ("in", "from", "the spring of"), not the words that count it ("last")."""
    roles = {word for phrase in _roles() for word in phrase}
    return (lexicon("time_modifiers") | roles) - RELATIVE


def time_tail(words: list[str]) -> int:
    """Where the time phrase a run of words ends on starts ("my surgery | in may", "my divorce
    | last year"); len(words) when it ends on none."""
    at = len(words)
    while at > 0 and _timely(words[at - 1]):
        at -= 1
    return at if at < len(words) and _names_time(words[at:]) else len(words)


def untimed_length(caption: str) -> int:
    """The length of a caption without the time phrase it ends on ("... before work since
    March"): `extraction.timing` takes that phrase out once it is read, so a caption is judged
    long or short without it."""
    spans = word_spans(caption)
    at = time_tail([span.group().lower().replace("\u2019", "'") for span in spans])
    if at >= len(spans):
        return len(caption)
    return len(caption[: spans[at].start()].rstrip(" ,"))


def says_how_long(words: list[str]) -> bool:
    """Whether words open with a count of a unit of time ("4 yrs now", "ten years a midwife"):
    how long something has gone on, never what the user is or has become."""
    return (
        len(words) > 1
        and (words[0].isdigit() or words[0] in lexicon("numerals"))
        and words[1] in lexicon("durations")
    )
