"""A user's short answer to the assistant's question, read as the statement it makes.

Agents send whole conversations, and a fact is often said as an answer: "Where are you
based?" "Leeds". "How old is your daughter?" "she's 6". "Do you have any pets?" "no". Read
alone, "Leeds" is a name, "she's 6" nobody's and "no" nothing. The question says what the
answer is of: its form is a closed class of English syntax, whatever the topic, so a question
of a listed form is turned into the statement it asks for, with the answer in its place
("where are you based" + "Leeds" is "I'm based in Leeds"; "how old is your daughter" + "she's
6" is "my daughter is 6"; "do you have any pets" + "no" is "I have no pets"). Only an answer
that is a fragment (no verb of its own: `labels.plain`) or opens with "she", "he" or "they"
for the person the question named is framed; a sentence of the user's own is read as it is.
"""

from __future__ import annotations

import logging
import re

from core.lexicon import lexicon, tagged
from core.words import words_of
from extraction.fragments import kind_of_person
from extraction.kept import caption_of
from extraction.labels import labelled, plain
from extraction.people import closed_reading
from memories.facets import read as read_facets

logger = logging.getLogger(__name__)

# The most words an answer may have to be read in its question's frame.
_ANSWER_WORDS = 8
# "she's 6" after a question about "your daughter": the person the question named.
_PRONOUN = re.compile(r"^(?:she|he|they|it)(?:'s|'re| is| are)?\b\s*", re.I)

_WHERE = re.compile(r"^where (are|do) you (.+)$")
_HOW_OLD = re.compile(r"^how old (?:are you|(?:is|are) your (.+))$")
_CALLED = re.compile(r"^what(?:'s| is| are) your (.+?)(?:'s name| called| named)$")
_WHAT = re.compile(r"^what(?:'s| is| are) your (.+)$")
_ARE_YOU = re.compile(r"^are you (.+)$")
_HAVE = re.compile(r"^(?:do you have |have you got )?any (.+)$|^do you have (.+)$")
_DO_YOU = re.compile(r"^do you (\w+) (.+)$")


def answers_framed(messages: list[dict]) -> list[dict]:
    """The messages with each user's short answer to the assistant's question before it
    rewritten as the statement it makes (see the module); the others as they were. It never
    raises: on an error the messages are read as they came."""
    try:
        return _framed_all(messages)
    except Exception:  # the answers are still read as typed
        logger.exception("reader: the answers could not be framed")
        return messages


def _framed_all(messages: list[dict]) -> list[dict]:
    framed = []
    asked = ""
    for message in messages:
        role, content = str(message.get("role", "user")), str(message.get("content", ""))
        if role == "assistant":
            asked = _question(content)
        elif role == "user":
            statement = _framed(asked, content) if asked else None
            message = {**message, "content": statement} if statement else message
            asked = ""
        framed.append(message)
    return framed


def _question(content: str) -> str:
    """The assistant's last sentence when it is a question, lower-cased, without its mark and
    the words that lead into it ("Sure! And where are you flying from?" is "where are you
    flying from"); "" for any other message."""
    text = content.strip()
    if not text.endswith("?"):
        return ""
    last = re.split(r"(?<=[.!?])\s+", text.rstrip("?").strip())[-1]
    words = words_of(last)
    while words and words[0] in lexicon("fillers") | {"and", "so"}:
        words = words[1:]
    return " ".join(words)


def _framed(asked: str, answer: str) -> str | None:
    """The statement the answer makes in the frame of the question, else None."""
    said = words_of(answer)
    if not said or len(said) > _ANSWER_WORDS or answer.rstrip().endswith("?"):
        return None
    person = _person_asked(asked)
    if person and _PRONOUN.match(answer.strip()):
        return _PRONOUN.sub(f"my {person} {'are' if said[0] == 'they' else 'is'} ", answer, 1)
    reply, rest = _reply(answer)
    if rest and not plain(words_of(rest), most=_ANSWER_WORDS):
        # A sentence of its own ("yeah im vegetarian") is read as it is; an answer and more
        # after a comma ("Manchester, with my wife and kids") is framed up to the comma.
        head, comma, tail = answer.partition(",")
        framed = _framed(asked, head) if comma and plain(words_of(head), most=4) else None
        return f"{framed}, {tail.strip()}" if framed else None
    if reply:
        return _yes_no(asked, reply, rest)
    value = rest.strip(" ,.!")
    if not value:
        return None
    if (match := _WHERE.match(asked)) and not set(match.group(2).split()) & _words("plans"):
        verb = match.group(2).split()
        opening = "I'm" if match.group(1) == "are" else "I"
        if verb[-1] in _words("joins") or said[0] in _words("joins"):
            return f"{opening} {' '.join(verb)} {value}"  # "from Cork", "at a bakery"
        # The place after the verb, before what follows it ("living these days" is "living
        # in Tallinn these days"), an adverb before it kept there ("currently based").
        at = next((n for n, word in enumerate(verb) if word not in lexicon("adverbs")), 0) + 1
        return " ".join([opening, *verb[:at], "in", value, *verb[at:]])
    if match := _HOW_OLD.match(asked):
        return f"my {match.group(1)} is {value}" if match.group(1) else f"I'm {value}"
    if match := _CALLED.match(asked):
        return f"my {match.group(1)} is called {value}"
    if match := _WHAT.match(asked):
        thing = match.group(1)
        return f"my {thing} {'are' if asked.startswith('what are') else 'is'} {value}"
    if (match := _HAVE.match(asked)) and (thing := _head_noun(match.group(1) or "")):
        # "any allergies?" "penicillin": a thing of the user's, as a label and its value
        # would say it, plural after "any" as English counts it ("any pets", "any kids").
        if labelled(f"{thing}: {value}") == f"{thing}: {value}":
            return None  # not a thing a person has ("any questions?")
        return f"my {thing} are {value}"
    return None


def _head_noun(asked: str) -> str:
    """What "any ..." asks about, before a clause that follows it ("allergies" of "allergies
    i should know about")."""
    words = asked.split()
    for at, word in enumerate(words):
        if word in lexicon("subject_pronouns") | lexicon("first_person") | {"that", "to", "for"}:
            return " ".join(words[:at])
    return " ".join(words)


def _person_asked(asked: str) -> str | None:
    """The person or pet "your" names in the question ("daughter" of "how old is your
    daughter"), else None."""
    words = asked.split()
    for at, word in enumerate(words[:-1]):
        if word == "your" and words[at + 1].removesuffix("'s") in lexicon("people"):
            return words[at + 1].removesuffix("'s")
    return None


def _reply(answer: str) -> tuple[str, str]:
    """ "yes" or "no" the answer opens with, if any, and the rest of it."""
    said = words_of(answer)
    for size in (2, 1):
        opening = " ".join(said[:size])
        if len(said) >= size and opening in _words("yes") | _words("no"):
            cut = answer.lower().find(said[size - 1]) + len(said[size - 1])
            return ("yes" if opening in _words("yes") else "no"), answer[cut:].strip(" ,.!-")
    return "", answer


def _yes_no(asked: str, reply: str, rest: str) -> str | None:
    """A yes or a no to "are you ...", "do you have ..." or "do you <verb> ...", as the
    statement ("are you vegetarian" + "yes" is "I'm vegetarian", "do you have any pets" +
    "no" "I have no pets", + "yes, two cats" "I have two cats"). Only a fact the registry
    reads of a person, or people and pets had, never the conversation's own things ("any
    questions?", "do you like the first option?", "are you ready?")."""
    if match := _ARE_YOU.match(asked):
        stated = f"I'm {match.group(1)}" if reply == "yes" else f"I'm not {match.group(1)}"
        return stated if closed_reading(caption_of(f"I'm {match.group(1)}")) else None
    if match := _HAVE.match(asked):
        thing = _head_noun(match.group(1) or match.group(2) or "")
        thing = " ".join(word for word in thing.split() if word not in {"any", "a", "an"})
        if reply == "no":
            stated = f"I have no {thing}"
        elif rest:
            stated = f"I have {rest}"  # "yes, two cats"; a bare "yes" says not how many
        else:
            return None
        return stated if _of_a_person(stated, thing) else None
    if match := _DO_YOU.match(asked):
        verb, thing = match.groups()
        if words_of(thing)[:1] and words_of(thing)[0] in _words("pointers"):
            return None  # "do you like the first option", "do you know what time it is"
        stated = f"I {verb} {thing}" if reply == "yes" else f"I don't {verb} {thing}"
        return stated if closed_reading(caption_of(stated)) else None
    return None


def _of_a_person(stated: str, thing: str) -> bool:
    """Whether "I have ..." states a fact of the user's life: the registry reads it, or it
    names people or pets ("no kids", "two cats")."""
    owned = {"practice", "about", "owns"}  # "has no questions": owning anything at all
    facets = read_facets(caption_of(stated))
    return any(f.attribute.split(":")[0] not in owned for f in facets) or kind_of_person(thing)


def _words(tag: str) -> frozenset[str]:
    """The words of one closed class of `answer_words.txt` ("yes", "no", "joins", "plans",
    "pointers")."""
    return tagged("answer_words", ("yes", "no", "joins", "plans", "pointers"))[tag]
