"""Whom a clause that leaves out its subject is about, read from its verb's form.

Chat drops the subject more often than any other word. The verb that opens such a clause
says whose it is, by grammar alone (`extraction.verbs`, a closed list of verbs and the regular
rules of their forms), whatever the topic:
- the third person singular cannot be the user's own: "my cat miso is diabetic, needs insulin
  twice a day" is the cat's, and "my dad is 70. still works full time" the dad's. It goes on
  about the person the clause before was about, and with nobody before it, says nothing;
- the past tense with an object after it is the user's ("broke my wrist last month", "passed
  my test 🎉", "had him since i was a kid"), and so is "can't" with a verb ("cant really work
  outside the house"), and so is a verb's base form with how often it happens
  (`core/lexicons/habitual.txt`: "go to the gym 4 times a week", "cook for my grandma on
  sundays"): a habit, where a request would ask the assistant ("remind me every day" is
  none);
- right after a clause about someone else, a past could be either of them ("my mum is 70.
  sold her car"), so it says nothing: a fact left out is better than a fact pinned on the
  wrong person;
- after "and", a verb's base form goes on about the user when the clause opened with them ("i
  work from home and cook most nights");
- an "-ing" form that is the subject of its clause ("renting in london is a joke") states
  only what it heads ("renting in london"); alone ("moving is hard") it states nothing.
"""

from __future__ import annotations

import re

from core.lexicon import has_phrase, lexicon, pairs
from core.words import words_of
from extraction.cues import cues_of
from extraction.kept import caption_of
from extraction.people import last_person
from extraction.time_phrases import says_how_long, time_fronted
from extraction.updates import content_lemmas
from extraction.verbs import base_form, gerund, past_tense, third_singular
from memories.attributes import PRACTICE
from memories.facets import read as read_facets

# What may follow a past tense for the user to be its subject: the verb's object or its count
# ("broke my wrist", "sold the car", "had him", "ran 2 marathons").
_OBJECTS = frozenset({"him", "her", "them", "it", "one", "up", "out", "off", "back", "down"})
# A word after an "-ing" form that makes it the subject of its own clause ("cycling is my
# thing", "moving house was a nightmare").
_VERBS_OF_A_SUBJECT = frozenset({"is", "was", "has", "can", "will", "makes", "keeps", "gets"})


def _without_adverbs(words: list[str]) -> list[str]:
    while words[:1] and words[0] in lexicon("adverbs"):
        words = words[1:]
    return words


def continued(said: str, about: str) -> str | None:
    """The clause as a statement of `about` (one of the user's people, "cat miso"), when it
    opens with a verb in the third person singular ("needs insulin"); else None."""
    words = _without_adverbs(words_of(said))
    if not about or about.split()[0] in lexicon("people_plural") or len(words) < 2:
        return None
    return f"my {about} {said.strip()}" if third_singular(words[0]) else None


def user_dropped(said: str, *, about: str = "") -> str | None:
    """The clause with the user's "I" put back, when its verb's form says it is theirs ("broke
    my wrist" is "I broke my wrist", "cant really work" "I cant really work"); None for any
    other, and for a past right after a clause `about` one of the user's people, or with
    "his", "her" or "their" after it."""
    text = said.strip()
    words = words_of(text)
    plain = _without_adverbs(words)
    if len(plain) < 2:
        return None
    verb, after = plain[0], plain[1]
    if set(words) & {"you", "your"}:
        return None  # "wondering if you could ...": a request to the assistant
    if words[0] in {"can't", "cant", "cannot"} and base_form(
        (_without_adverbs(words[1:]) or [""])[0]
    ):
        return f"I {text}"  # never a request: "can't" asks nothing of the assistant
    several = about.split()[:1] and about.split()[0] in lexicon("people_plural")
    if (
        base_form(verb)
        and verb not in lexicon("hedges")  # "like 5 a day": chat's "like", no verb
        and has_phrase(text, "habitual")
        and not set(words) & {"me", "us"}
    ):
        # "go to the gym 4 times a week": a habit, not a request; after "my kids ..." theirs
        # or the user's.
        return None if several else f"I {text}"
    if about or set(words) & {"his", "her", "their"}:
        return None
    if past_tense(verb) and after == "to" and base_form((plain[2:3] or [""])[0]):
        return f"I {text}"  # "had to switch to aldi": what the user had to do
    if verb == "not" and gerund(after):
        return f"I'm {text}"  # "not getting on planes these days"
    if verb == "was" and (past_tense(after) or after in pairs("participles")):
        return f"I {text}"  # "was made redundant in october", "was diagnosed with asthma"
    if (
        past_tense(verb)
        and not base_form(verb)
        and (_counted_or_determined(after) or after in _OBJECTS or _placed(plain[1:]))
    ):
        return f"I {text}"
    return None


def _counted_or_determined(word: str) -> bool:
    return word in lexicon("determiners") or word.isdigit() or word in lexicon("numerals")


def _placed(words: list[str]) -> bool:
    """Whether words open with a preposition and a thing counted or determined ("to three
    days a week", "into a smaller flat", "in the old car"): what a past tense with no subject
    did, never "to me" ("happened to me")."""
    return words[:1] in _PLACING and _counted_or_determined((words[1:2] or [""])[0])


_PLACING = (["to"], ["into"], ["from"], ["for"], ["in"])


def gerund_cut(said: str) -> str | None:
    """A clause opening with an "-ing" form of `pro_drop_states` ("renting in london is a
    joke"): when the form is the subject, the phrase it heads ("renting in london", which says
    the user rents there), None when that is the form alone ("moving is hard"); else the
    clause as it is."""
    tokens = said.split()
    for at, token in enumerate(tokens[1:5], start=1):
        said_here = words_of(token)
        verb = set(said_here) & (_VERBS_OF_A_SUBJECT | lexicon("copulas")) or (
            # "renting costs me 1100 a month": any verb a subject takes, not a relative's
            # ("working at a place that pays well")
            said_here[:1]
            and third_singular(said_here[0])
            and words_of(tokens[at - 1])[-1:] not in (["that"], ["who"], ["which"])
        )
        if verb:
            return " ".join(tokens[:at]) if at >= 2 else None
    return said


def user_goes_on(piece: str, before: str) -> str | None:
    """The words after "and" as the user's own clause, when the words before it open with the
    user and the piece with a verb's base form ("i work from home and cook most nights" is "I
    cook most nights"): the base form agrees with "I", never with one of their people."""
    said = words_of(before)
    words = _without_adverbs(words_of(piece))
    if not said or said[0] not in lexicon("user_subjects") or len(words) < 2:
        return None
    if not base_form(words[0]) or words[0] in lexicon("hedges") | {"be"}:
        return None
    return f"I {piece.strip()}"


def adverb_moved(part: str) -> str:
    """ "now im a product manager" as "im now a product manager": an adverb before the user
    goes after them, where the reader and the registry read it ("is now" a change); a time
    phrase after their clause ("last month we moved ...", `timing.time_fronted`)."""
    part = time_fronted(part)
    words = part.split(" ")
    said = words_of(" ".join(words[:2]))
    if len(said) == 2 and said[0] in lexicon("adverbs") and said[1] in lexicon("user_subjects"):
        return " ".join([words[1], words[0], *words[2:]])
    return part


_OWNER = re.compile(r"\b(?:my|our) [\w-]+'s\b", re.I)


def owner_named(part: str, person: str) -> str:
    """Whom a later "she" or "he" means after a clause that names one of the user's people as
    an owner ("moved for my wife's job. shes a professor"), though the clause itself states
    nothing of the user's; else `person`."""
    return last_person(part, person) if _OWNER.search(part) else person


# The most words a verbless change may say ("down to 3 shifts a week now"), as a fragment.
_VERBLESS_WORDS = 8


def verbless_change(part: str) -> str | None:
    """A fragment with no verb and no subject that announces a change in the closed class of
    `core/lexicons/change_cues.txt` ("down to 84kg now", "finally debt free", "now a grandma")
    as the user's own ("I'm down to 84kg now"): chat states what the user now is without "I'm",
    and the cue is the evidence it is said of them. Not a fragment that names someone or asks
    something of the assistant ("now you try"), nor one with a verb in it ("now explain it"),
    which is a clause of its own."""
    words = words_of(part)
    if not 2 <= len(words) <= _VERBLESS_WORDS or "?" in part:
        return None
    if set(words) & (lexicon("first_person") | lexicon("people") | {"you", "your", "it", "this"}):
        return None
    if says_how_long(words):
        # "6 weeks smoke free today": how long the user has been free of it.
        counted, unit, *rest = part.split()
        freed = _freed(rest)
        return f"I've been {freed} for {counted} {unit}" if freed else None  # "4 yrs now"
    if words[0] in lexicon("determiners") or any(
        (base_form(w) or past_tense(w) or third_singular(w) or gerund(w))
        and words[at + 1 : at + 2] != ["free"]  # "smoke free": what the user is free of
        for at, w in enumerate(words)
    ):
        return None
    # A cue that only starts something needs "now": "since march" dates a lasting state
    # ("mid-level since march"), it announces no change.
    cues = cues_of(part)
    if not (cues - {"starts"} or (cues and "now" in words)) or not content_lemmas(part):
        return None  # no cue, or nothing but the cue ("now what", "ok now the next one")
    return f"I'm {part.strip()}"


def their_person(words: list[str]) -> bool:
    """Whether a clause opens with one of the user's people and states a closed fact of
    them, the "my" left out ("mum's a GP", "hubby is vegan", "sister has coeliac"): the
    registry must read a closed attribute, so "dad jokes are the best" is not one."""
    if not words:
        return False
    person = words[0].removesuffix("'s")
    if person not in lexicon("people") or person in lexicon("generic_people"):
        return False
    if words[1:2] and (third_singular(words[1]) or past_tense(words[1])):
        # "mum passed away in march", "hubby works nights": a verb of one person after it,
        # never a noun's plural before a verb ("dad jokes are") nor what they said.
        return not (
            words[1] in lexicon("reporting")
            or (words[2:3] and words[2] in lexicon("copulas") | lexicon("auxiliaries"))
        )
    if not (words[0].endswith("'s") or words[1:2] in (["is"], ["has"], ["was"])):
        return False
    caption = caption_of(f"my {' '.join(words)}")
    return any(
        facet.subject != "user" and facet.attribute.split(":")[0] not in {PRACTICE, "about"}
        for facet in read_facets(caption)
    )


# "both my kids", "all three of our dogs": a quantifier before one of the user's groups.
_QUANTIFIED = re.compile(r"^(?:both|all)(?: [\w-]+)?(?: of)? (?=(?:my|our) )", re.I)


def quantifier_dropped(part: str) -> str:
    """ "both my kids have ADHD" as "my kids have ADHD": the clause's subject is the group,
    whatever the quantifier before it says of its size."""
    return _QUANTIFIED.sub("", part.lstrip(), count=1)


def _freed(words: list[str]) -> str | None:
    """What words say one is free of, up to "free" with nothing after it but a time ("smoke
    free today", "alcohol-free"); None for any other words."""
    said = [w.strip("!.,").lower() for w in words]
    ends = [at for at, w in enumerate(said) if w == "free" or w.endswith("-free")]
    if not ends or (ends[0] == 0 and said[0] == "free"):
        return None
    after = said[ends[0] + 1 :]
    if not all(w in lexicon("time_now") or w == "today" for w in after):
        return None
    return " ".join(words[: ends[0] + 1]).strip("!., ")
