"""Time phrases in what the user said (issue 33): when a fact holds, and a caption that does not
go stale.

"We moved to Lisbon last month", said on 2026-11-10, is "User moved to Lisbon" from 2026-10-01:
the phrase is read from the clause the candidate came from (`Candidate.said`), resolved against
when it was said (`Candidate.said_at`, else now), and taken out of the caption (and, when it is
relative, out of the full text), so the caption is still true a year on.

The phrases and their dates come from `extraction.time_phrases` (dateparser, no date grammar of
our own). What each does to the fact is read here: its role ("since 2019": from then; "until
2020": to then; "back in 2015": then, not now), a clause about the past with no date of its own
("used to", "when I was a kid": over when it was said), one that looks ahead ("expecting a baby
in March": the next March, and only until its end), and the caption's verb (a month said with a
present verb is the next one; "lived in Rome in 2015" held that year only).
"""

from __future__ import annotations

import datetime
from dataclasses import replace
from itertools import pairwise

from django.utils import timezone

from core.lexicon import has_phrase, lexicon, pairs
from core.words import word_spans, words_of
from extraction.candidates import Candidate
from extraction.cues import cues_of
from extraction.time_phrases import RELATIVE, TimePhrase, cued, time_phrases
from extraction.time_unread import candidates_dated_unread
from extraction.verbs import base_form, base_of, past_tense, third_singular
from memories.attributes import registry
from memories.facets import facets_read
from memories.values import lacks_value


def candidates_timed(
    candidates: list[Candidate], messages: list[dict] | None = None
) -> list[Candidate]:
    """Each candidate with the time its clause states (`candidate_timed`), or, when it states
    none, since the start told right after it (`_started_after`), or, when it holds "now",
    since the change told beside it (`_since_the_change`), or by a time no candidate read in
    the `messages` it was said in (`extraction.time_unread`)."""
    timed = [candidate_timed(candidate) for candidate in candidates]
    starts = [_bare_start(candidate.caption) for candidate in candidates]
    timed = [_started_after(timed, starts, at) for at in range(len(timed))]
    timed = [_since_the_change(timed, at) for at in range(len(timed))]
    timed = candidates_dated_unread(timed, messages)
    return [_dated_beside(timed, at) for at in range(len(timed))]


def _dated_beside(timed: list[Candidate], at: int) -> Candidate:
    """ "Got my results last week, I passed N4": an event told in the past with no time of its
    own, in the same sentence right after a dated event in the past, happened then. Not a state
    of the past ("I moved here last year, I lived in Rome": `_held_in_past`), nor one in a
    sentence of its own ("I moved to Lisbon last month. I grew up in Porto") or told after it
    ("..., and then we rented a barge")."""
    candidate = timed[at]
    if candidate.valid_from or candidate.valid_to or not at:
        return candidate
    before = timed[at - 1]
    if not (
        before.valid_from
        and not before.valid_to
        and (before.said or "").rstrip().endswith(",")
        # Opening on the user, not on a word that orders it ("and then we rented a barge").
        and (words_of(candidate.said or "") or [""])[0] in lexicon("user_subjects")
        and _told_together(candidate, before)
        and _tense(before.caption) == "past"
        and _tense(candidate.caption) == "past"
        and not _held_in_past(candidate.caption, True)
        and not has_phrase(candidate.said or candidate.caption, "time_now")
    ):
        return candidate
    return replace(candidate, valid_from=before.valid_from)


def _started_after(timed: list[Candidate], starts: list[bool], at: int) -> Candidate:
    """ "I'm doing a degree in maths, I started it in October 2020": a fact with no time of its
    own holds since the start told right after it, said at the same time, when that start
    says nothing but its time ("User started it", "User started in August")."""
    candidate = timed[at]
    if candidate.valid_from or candidate.valid_to or starts[at] or at + 1 >= len(timed):
        return candidate
    start = timed[at + 1]
    if starts[at + 1] and _told_together(candidate, start) and start.valid_from:
        return replace(candidate, valid_from=start.valid_from)
    return candidate


def _told_together(candidate: Candidate, other: Candidate) -> bool:
    """Whether two candidates were said at the same time, in the same message when known."""
    return candidate.said_at == other.said_at and candidate.said_in == other.said_in


def _bare_start(caption: str) -> bool:
    """Whether a caption tells a start and nothing else but its time ("User started it",
    "User started two months ago"): its start verb (a `starts` cue) the one word of its own."""
    words = words_of(caption)
    # "User had the first round": the first of a habit is its start, the thing named after it
    # the habit's own (`first_times.txt`).
    first = next((at for at, word in enumerate(words) if word in lexicon("first_times")), None)
    if first is not None and _tense(caption) == "past":
        words = words[: first + 1]
    elif "starts" not in cues_of(caption):
        return False
    light = (
        lexicon("adverbs")
        | lexicon("auxiliaries")
        | lexicon("function_words")
        | lexicon("durations")
        | lexicon("numerals")
        | lexicon("months")
        | RELATIVE
        | {word for line in lexicon("time_roles") for word in line.split()[1:]}
        | {"ago"}
        | lexicon("first_times")
    )
    words = [word for word in words[1:] if word not in light and not word.isdigit()]
    return len(words) < 2


def _since_the_change(timed: list[Candidate], at: int) -> Candidate:
    """ "I got promoted last month, I'm now a senior accountant": a fact said to hold now
    (`core/lexicons/time_now.txt`) with no time of its own holds since the change told in the
    clause next to it, said at the same time (the candidate before, else after), when that
    one's own time began then and did not end. So does an ending with no time of its own ("I'm
    not in the choir anymore, I left in April": not in it since April)."""
    candidate = timed[at]
    if candidate.valid_from or candidate.valid_to:
        return candidate
    now = has_phrase(candidate.said or candidate.caption, "time_now")
    if not now and "ends" not in cues_of(candidate.caption):
        return candidate
    for other in (timed[at - 1] if at else None, timed[at + 1] if at + 1 < len(timed) else None):
        if (
            other is not None
            and _told_together(candidate, other)
            and other.said != candidate.said
            and other.valid_from
            and not other.valid_to
        ):
            return replace(candidate, valid_from=other.valid_from)
    return candidate


def ended_event(candidate: Candidate) -> Candidate:
    """An ending told as an event ("I quit pottery in the summer", "Tom and I broke up in June",
    "sold the van"), once it has closed the fact it ends, as a fact of that day: `valid_from`
    and `valid_to` both its date (its time phrase's, else when it was said). The closed fact
    holds the history ("pottery until July 2025"); the ending is answerable as a past event,
    never a current fact beside what holds now. An ending that states a state ("no longer
    eats meat", "is retired", "has been sober"), one that brings a new value ("left teaching
    and now ..."), or one already dated to an end comes back as it is."""
    if candidate.valid_to is not None:
        return candidate
    # The new value is read from the caption: the clause may go on to it ("cancelled Spotify
    # and moved to Apple Music" is two facts).
    own = cues_of(candidate.caption)
    facets = facets_read(candidate.caption)
    # An ending of the registry ("gave away", "moved out of": `ends` of an attribute) is one
    # whatever cue word it holds ("moved" announces a start only when nothing ends), unless
    # what is said beside it brings a new value ("left teaching and now works in sales").
    ending = [f for f in facets if f.change and not f.positive]
    spoken = _padded(candidate.caption)
    for facet in ending:
        known = registry().get(facet.attribute.split(":")[0])
        for phrase in known.ends if known else ():
            spoken = spoken.replace(_padded(phrase), " ")
    registered = bool(ending) and not any(f.change and f.positive for f in facets)
    registered = registered and not cues_of(spoken) & {"starts", "replaces"}
    cued_end = "ends" in own | cues_of(candidate.said or "") and not own & {"starts", "replaces"}
    if not (registered or cued_end):
        return candidate
    words = words_of(candidate.caption)
    negated = {word for phrase in lexicon("negators") for word in phrase.split()}
    # "was stolen" is an event done to it, "was retired" a state: a passive is read only with
    # an irregular participle (`participles.txt`), the one closed class of them.
    passive = {
        word
        for word, after in pairwise(words)
        if word in {"was", "were"} and after in pairs("participles")
    }
    tense = _tense(candidate.caption)
    # A verb the closed list does not know ("cashed in", "traded in") is read in the tense
    # the ending phrase is written in: the cue lexicon holds past forms.
    if (
        set(words) - passive & (negated | {"has", "have", "had", "was", "were"})
        or tense == "present"
        or (tense == "" and not ("ends" in own or registered))
    ):
        return candidate
    on = candidate.valid_from or (candidate.said_at or timezone.now()).date()
    return replace(candidate, valid_from=on, valid_to=on)


def candidate_timed(candidate: Candidate) -> Candidate:
    """The candidate with `valid_from`/`valid_to` from the time phrases of the clause it came
    from, and those phrases out of its caption (a relative one out of its full text too). A
    candidate whose clause names no time comes back as it is."""
    clause = candidate.said or candidate.caption
    past = has_phrase(clause, "time_past")
    if not past and not cued(words_of(clause)):
        return candidate
    said_at = candidate.said_at or timezone.now()
    future = has_phrase(clause, "time_future")
    tense = _tense(candidate.caption)
    # A month said with a present verb is the next one ("starts school in September", "is
    # moving to Berlin in January"); with a past one, or a verb not known, the last ("started
    # in March").
    phrases = time_phrases(clause, said_at, future=future or tense == "present")
    lasted = False
    if not has_phrase(clause, "time_perfect"):
        # "lived in Rome for 5 years" is how long, in the past: not since when.
        lasted = any(phrase.role == "for" for phrase in phrases)
        phrases = tuple(phrase for phrase in phrases if phrase.role != "for")
    caption, full_text = candidate.caption, candidate.full_text
    valid_from, valid_to = candidate.valid_from, candidate.valid_to
    held = _held_in_past(candidate.caption, tense == "past")
    starts = has_phrase(candidate.caption, "time_starts")
    told: tuple[TimePhrase, ...] | None = None
    for phrase in phrases:
        if _locate(caption, phrase.words) is None and has_phrase(candidate.caption, "time_now"):
            # "I sat the last exam in June and I'm now fully qualified": the time is the
            # change's, told beside a fact that holds now; the fact holds since then, read as
            # a past time whatever the fact's verb.
            if told is None:
                told = time_phrases(clause, said_at, future=future)
            since = next((p.start for p in told if p.words == phrase.words), None)
            valid_from = valid_from or since
            continue
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
        # "dropped to a four-day week back in january" is an event of then, which goes on;
        # "worked as a lifeguard back in 2015" a state held then only.
        # An ending ("ditched Tesco Mobile back in march") is an event of then likewise.
        event = (
            tense == "past"
            and not held
            and (_entered(candidate.caption) or "ends" in cues_of(candidate.caption))
        )
        begins, ends = _holds(phrase, future=ahead, held=held, starts=starts, event=event)
        valid_from = valid_from or begins
        valid_to = valid_to or ends
    # A length told in the simple past ("lived in Rome for 5 years", "did Spanish at school
    # for five years") is over by the time it was said; a start told with one holds on
    # ("signed up to the gym for a year").
    over = lasted and tense == "past" and not starts and "starts" not in cues_of(caption)
    over = over and not has_phrase(caption, "time_terms")
    if (past or over) and valid_to is None:
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
    phrase: TimePhrase, *, future: bool, held: bool, starts: bool = False, event: bool = False
) -> tuple[datetime.date | None, datetime.date | None]:
    """When the fact holds, from one phrase: its role, whether the clause looks ahead, whether
    the caption states a state of the past ("User was vegan"), whether it tells a start
    (`time_starts`: "is starting an MSc in September" holds from then on), and whether it
    tells an event in the past ("back in" dates it, as "in" does: it happened then)."""
    if phrase.role == "from" or phrase.role == "for":
        return phrase.start, None
    if phrase.role == "to":
        return None, phrase.start
    if (phrase.role == "past" and not event) or (held and not future):
        return phrase.start, phrase.end
    if future and starts:
        return phrase.start, None
    if future:
        # "expecting a baby in March": an expectation, until the end of the time it names.
        return None, phrase.end
    return phrase.start, None  # "moved to Lisbon last month": since then


def _tense(caption: str) -> str:
    """The tense of the caption's verb, "past" ("User moved", "User's sister got married", a
    perfect: "User has been ...") or "present" ("User starts", "User is moving"), read by
    `extraction.verbs` from its closed list of verbs; "" when no verb it knows is there."""
    words = words_of(caption)
    # The verb comes within a few words of the caption's start ("User's older sister got ...");
    # later words are its object or a time ("... diet in May" is no modal).
    bare = ""
    for at, word in enumerate(words[1:5], start=1):
        after = words[at + 1] if at + 1 < len(words) else ""
        if word in {"has", "have"}:
            return "past" if after == "been" or past_tense(after) else "present"
        if past_tense(word) or word in {"was", "were", "used", "did", "didn't", "didnt"}:
            return "past"
        if third_singular(word) or word in lexicon("copulas") | lexicon("auxiliaries"):
            return "present"
        if base_form(word) and words[0] == "user" and at == 1:
            return "past"  # "User quit": right after "User", a base form is a past
        if base_form(word) and not bare:
            # After several people a base form is a present ("User's kids start school"), but
            # a form that follows is the verb and the base form a noun of the subject ("User's
            # radio show moved"): it is kept only when no other comes.
            bare = "present"
    return bare


def _entered(caption: str) -> bool:
    """Whether the caption's verb tells an event by which a state begins and goes on ("User
    moved to Leeds", "User dropped down to a four-day week": `entry_verbs.txt`)."""
    verb = next((word for word in words_of(caption)[1:5] if past_tense(word)), "")
    return bool(verb) and base_of(verb) in lexicon("entry_verbs")


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
    # Only the past of a phrase the registry states a state with ("lived in" of "lives in",
    # "worked at" of "works at"): anything else said in the past is an event, which goes on
    # ("moved to", "bought a house", "adopted a cat").
    verb = next((word for word in words[1:] if past_tense(word)), "")
    perfect = any(word in {"has", "have"} for word in words[1:3])  # "has lived": still does
    return (
        told_past
        and not perfect
        and any(
            base_of(phrase.split()[0]) == base_of(verb)
            for facet in facets
            if not facet.change and facet.attribute in registry()
            for phrase in registry()[facet.attribute].says
        )
    )


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
    recurring = phrase.words[-1] in lexicon("months") and not set(phrase.words) & RELATIVE
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
    elif phrase.period == "week":
        when = f"the week of {day.day} {day:%B} {day.year}"  # "last week": not one day
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


def _padded(text: str) -> str:
    """A text's words between spaces, so a phrase is found only as whole words."""
    return f" {' '.join(words_of(text))} "
