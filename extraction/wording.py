"""A user's own words as a caption: the third person by closed-class rewrites, and the chat
that goes on after the fact cut off. Shared by the offline reader, the grounding check's
repairs and `remember`; it builds no caption from a template."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Mapping

from core.lexicon import has_phrase, lexicon, names, pairs
from core.words import word_spans, words_of
from memories.facets import facets_read
from memories.text import states_a_fact
from memories.values import lacks_value, waits_for_value

# Where a first-person clause starts ("I'm vegan" -> "User is vegan").
_OPENINGS = (
    (re.compile(r"^(?:i am|i'm|im)\b", re.I), "User is"),
    (re.compile(r"^(?:i have|i've|ive)\b", re.I), "User has"),
    (re.compile(r"^(?:i'd)\b", re.I), "User would"),
    (re.compile(r"^(?:i'll)\b", re.I), "User will"),
    (re.compile(r"^i\b", re.I), "User"),
    (re.compile(r"^(?:my|our)\b", re.I), "User's"),
    # "we" is the user with their household: "we moved to Lisbon" is "User moved to Lisbon".
    (re.compile(r"^(?:we're|we are)\b", re.I), "User is"),
    (re.compile(r"^(?:we've|we have)\b", re.I), "User has"),
    (re.compile(r"^we\b", re.I), "User"),
)
# Inside a clause: the user's own possessives and objects (closed classes).
_INSIDE = (
    (re.compile(r"\b(?:my|our)\b", re.I), "their"),
    (re.compile(r"\b(?:me|us)\b", re.I), "them"),
    (re.compile(r"\bmyself\b", re.I), "themselves"),
    (re.compile(r"\b(?:mine|ours)\b", re.I), "theirs"),
    # "an allotment where we grow beans": the user with their household, as at the opening.
    (re.compile(r"\bwe(?=(?:'re|'ve|'d|'ll)?\b)", re.I), "they"),
)


def third_person(text: str) -> str:
    """A first-person statement in the third person, by closed-class rewrites only: "I live in
    Leeds" is "User lives in Leeds", "my partner is a nurse" is "User's partner is a nurse"."""
    text = text.strip().rstrip(".!")
    for pattern, replacement in _OPENINGS:
        if pattern.search(text):
            text = pattern.sub(replacement, text, count=1)
            if replacement == "User":
                text = "User " + _agree(text[5:])
            break
    for pattern, replacement in _INSIDE:
        text = pattern.sub(replacement, text)
    return text


def _agree(rest: str, *, regular: bool = True) -> str:
    """The words after "I" with their verb in the third person ("really like" is "really
    likes"; "don't" is "doesn't"); a past tense, a modal or "used to" stays. Without
    `regular`, only the forms of `verb_forms` change (the words after "User" may already
    agree: "likes" is not "likeses")."""
    words = rest.split(" ")
    at = 0
    while at < len(words):  # "really", "pretty much"
        if " ".join(words[at : at + 2]).lower() in lexicon("adverbs"):
            at += 2
        elif words[at].lower() in lexicon("adverbs"):
            at += 1
        else:
            break
    if at == len(words):
        return rest
    verb = words[at].rstrip(",;:")  # "I no longer smoke, I vape": the comma is no letter
    mark = words[at][len(verb) :]
    lowered = verb.lower().replace("\u2019", "'")
    forms = pairs("verb_forms")
    if lowered in forms:
        words[at] = forms[lowered] + mark
    elif regular and not lowered.endswith("ed") and lowered.isalpha():
        words[at] = _third_singular(verb) + mark
    return " ".join(words)


def _third_singular(verb: str) -> str:
    """The regular third person of a verb: "-es" after a hiss ("washes", "fixes"), "-ies"
    after a consonant's "y" ("flies"); the verbs that do otherwise ("goes", "quizzes") and the
    base forms that end in "ed" ("feeds") are in `verb_forms`."""
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        return verb + "es"
    if len(verb) > 2 and verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# What may stand at a caption's end around its last word: marks and dashes.
_ENDS = " ,;:-.!?\u2013\u2014"


def tidy_caption(caption: str, written: Mapping[str, str] | None = None) -> str:
    """The caption up to where its fact ends and chat goes on (a lexicon of clause breaks),
    when what comes before is a statement of its own; without the chat around the fact
    (`_without_debris`), with its verb agreeing with "User" and the names of people and places
    capitalised (`names_capitalised`, `written`: the user's own capitals)."""
    lowered = caption.lower()
    cut = len(caption)
    for phrase in lexicon("clause_breaks"):
        pattern = re.escape(phrase) if phrase.startswith(",") else rf"\s{re.escape(phrase)}\b"
        match = re.search(pattern, lowered)
        if match and match.start() < cut:
            head = caption[: match.start()].rstrip(_ENDS)
            if len(head.split()) >= 3 and states_a_fact(head) and not lacks_value(head):
                cut = match.start()
    caption = _without_debris(_without_hedges(caption[:cut].rstrip(_ENDS)))
    return names_capitalised(verb_agreed(caption), written)


def _without_debris(caption: str) -> str:
    """The caption without the chat around its fact: the emoticons of a lexicon wherever they
    stand ("User broke up :("), and at its end the words of `chat_debris` ("User smokes tho",
    "User is lactose intolerant too"), which say how the user talks or echo another fact.
    "User" and its verb always stay."""
    # A closing aside without a number ("User hates cheese (yes really)") is the user's
    # comment on the fact; one with a number ("twin boys (9)") may hold part of it.
    caption = re.sub(r"\s*\([^()\d]*\)[\s.!]*$", "", caption)
    words = [_unglued(word) for word in caption.split()]
    words = [word for word in words if not _in(word, "emoticons")]
    while len(words) > 2:
        words[-1] = words[-1].rstrip(_ENDS)
        if not words[-1]:
            words.pop()
        elif len(words) > 3 and _in(" ".join(words[-2:]), "chat_debris"):
            del words[-2:]  # "as well", "for real"
        elif _in(words[-1], "chat_debris"):
            words.pop()
        else:
            break
    return " ".join(words).rstrip(_ENDS)


def _in(word: str, name: str) -> bool:
    """Whether a word is in lexicon `name` as typed, or with the letter it repeats at its end
    typed once or twice (":((" is ":(", "lolll" is "lol", "tooo" is "too")."""
    lowered = word.lower()
    once, twice = (re.sub(r"(.)\1+$", repeat, lowered) for repeat in (r"\1", r"\1\1"))
    return bool({lowered, once, twice} & lexicon(name))


def _unglued(word: str) -> str:
    """A word without the emoticon typed onto its end ("cats:)" is "cats", "up:((" is
    "up")."""
    lowered = re.sub(r"(\W)\1+$", r"\1", word.lower())
    for emoticon in lexicon("emoticons"):
        head = word[: len(lowered) - len(emoticon)]
        if not emoticon[0].isalnum() and lowered.endswith(emoticon) and head[-1:].isalnum():
            return head
    return word


def text_tidied(text: str, written: Mapping[str, str] | None = None) -> str:
    """A full text as its caption is tidied, sentence by sentence, each keeping its own end
    and the space after it: without the chat around its facts ("User smokes tho. They want to
    quit lol!" is "User smokes. They want to quit!"), its verbs agreeing, its names
    capitalised."""
    out = []
    for part in re.split(r"(?<=[.!?])(\s+)", text.strip()):
        if not part or part.isspace():
            out.append(part)
            continue
        mark = part[-1] if part[-1] in ".!?" else ""
        tidied = names_capitalised(verb_agreed(_without_debris(part)), written)
        out.append(f"{tidied}{mark}" if tidied else "")
    return "".join(out).strip()


def verb_agreed(caption: str) -> str:
    """A caption whose verb after "User", or after one of the user's people named in the
    singular, is in the first person or plural ("User are vegetarian", "User's brother have a
    band", a model's or a typist's slip) with the third-person form of `verb_forms`."""
    words = caption.split(" ")
    at = 1 if words[0] == "User" else _after_person(words)
    if at is None or at >= len(words):
        return caption
    return " ".join([*words[:at], _agree(" ".join(words[at:]), regular=False)])


def _after_person(words: list[str]) -> int | None:
    """Where the verb may stand after "User's <person> [name]", for one person ("brother",
    "best friend"; not "kids"); None for any other caption."""
    if words[0] not in {"User's", "User\u2019s"}:
        return None
    for size in (2, 1):
        if 1 + size > len(words):  # "User's mum": no two-word person to read
            continue
        person = " ".join(words[1 : 1 + size]).lower()
        if person in lexicon("people") and person not in lexicon("people_plural"):
            at = 1 + size
            if at == len(words):
                return at
            # A name the data or the user's capital says ("User's gf priya are ...").
            name = words[at].lower()
            named = name in names("given_names") or words[at][:1].isupper()
            return at + 1 if named and name not in pairs("verb_forms") else at
    return None


def passing(caption: str) -> bool:
    """Whether a caption records a passing state: one of `passing_states` ("is sick"), or a
    time of `passing_times` ("since tuesday", "this week") unless the caption announces a
    change the registry reads ("User moved to Leeds this week")."""
    if has_phrase(caption, "passing_states"):
        return True
    return has_phrase(caption, "passing_times") and not any(
        facet.change for facet in facets_read(caption)
    )


_LONGEST_PLACE = 4


def names_capitalised(caption: str, written: Mapping[str, str] | None = None) -> str:
    """The caption with the people and places the user named capitalised, as data or the user
    says: a name the user wrote with a capital (`written`), a given name (`given_names`) after
    one of `people` or a naming word ("User's sister anna", "a greyhound called luna"), a place
    (`place_names`) after a word that says a place comes ("a nurse in turin", "moved to new
    york"). Nothing is capitalised for its shape."""
    spans = word_spans(caption)
    keys = [m.group(0).lower().replace("\u2019", "'").removesuffix("'s") for m in spans]
    found: dict[int, str] = {}
    at = 1
    while at < len(spans):
        form = _name_at(keys, at, found, written or {})
        for offset, part in enumerate(form.split(" ") if form else ()):
            found[at + offset] = part
        at += len(form.split(" ")) if form else 1
    out, last = [], 0
    for index, written_as in sorted(found.items()):
        match = spans[index]
        out += [caption[last : match.start()], written_as, match.group(0)[len(written_as) :]]
        last = match.end()
    return "".join(out) + caption[last:]


def _name_at(
    keys: list[str], at: int, found: dict[int, str], written: Mapping[str, str]
) -> str | None:
    """The written form of the person or place the words from `at` name ("New York"), one
    word for each of theirs; None when they name none."""
    before = keys[at - 1]
    if before in lexicon("place_words"):
        places = names("place_names")
        for size in range(min(_LONGEST_PLACE, len(keys) - at), 0, -1):
            phrase = " ".join(keys[at : at + size])
            if phrase in places:
                return places[phrase]
    if keys[at] in written:
        return written[keys[at]]
    naming = (
        before in lexicon("people")
        or before in lexicon("naming_words")
        or " ".join(keys[max(0, at - 2) : at]) in lexicon("naming_words")
        or (before in {"and", "&"} and at - 2 in found)  # "kids tom and anna"
        or (keys[:2] == ["user", "is"] and at == 2 == len(keys) - 1)  # "User is marco"
    )
    given = names("given_names")
    return given[keys[at]] if naming and keys[at] in given else None


def names_written(texts: Iterable[str]) -> dict[str, str]:
    """The words the user wrote with a capital where no sentence begins ("my sister Anna"),
    and never in lower case ("Apple" is not a name in "I work at Apple and eat an apple a
    day"): lower-cased, to the form they wrote. "I" and its forms aside; a word in capitals
    throughout is shouting, and a text with most of its words capitalised is Title Case, not
    names."""
    found: dict[str, str] = {}
    lowered: set[str] = set()
    for text in texts:
        spans = word_spans(text)
        if len(spans) >= 4 and sum(m.group(0)[:1].isupper() for m in spans) * 2 > len(spans):
            continue
        for match in spans:
            word = match.group(0).replace("\u2019", "'").removesuffix("'s")
            before = text[: match.start()].rstrip()
            if not word[:1].isupper():
                lowered.add(word.lower())
            elif (
                before
                and before[-1] not in ".!?:\n"
                and not word.isupper()
                and word.lower() not in lexicon("first_person")
            ):
                found.setdefault(word.lower(), word)
    return {key: word for key, word in found.items() if key not in lowered}


def hyphen_parts(texts: Iterable[str]) -> frozenset[str]:
    """The parts of the hyphenated words of `texts` that they never hold alone ("full" and
    "time" of "a full-time carer"): a caption with one has cut a word at its hyphen."""
    said = {word for text in texts for word in words_of(text)}
    return frozenset(part for word in said if "-" in word for part in word.split("-")) - said


def _without_hedges(caption: str) -> str:
    """The caption without the chat hedges of a lexicon ("like 50k a week" is "50k a week");
    "like" goes only before a number, where it cannot be the verb."""
    words = caption.split(" ")
    kept: list[str] = []
    for at, word in enumerate(words):
        after = words[at + 1] if at + 1 < len(words) else ""
        hedge = at > 0 and word.lower() in lexicon("hedges")
        if hedge and (word.lower() != "like" or after[:1].isdigit()):
            if word.lower() == "like" and kept[-1:] == ["more"]:
                kept[-1] = "about"  # "more like 150": about 150, never "more 150"
            continue
        kept.append(word)
    return " ".join(kept)


# Characters that join or vary an emoji ("👨\u200d👩", "❤\ufe0f", a keycap, a flag's tags).
_EMOJI_PARTS = frozenset("\u200d\ufe0e\ufe0f\u20e3")


def _symbol(char: str) -> bool:
    """An emoji or other symbol (a pictograph, a flag, a skin tone, a joiner): not a word."""
    if char in _EMOJI_PARTS or "\U000e0020" <= char <= "\U000e007f":
        return True
    category = unicodedata.category(char)
    return category == "So" or (category == "Sk" and not char.isascii())


def symbols_read(text: str) -> str:
    """The text with its emoji and other symbols read as the reader reads them: a symbol says
    nothing and ends a clause ("punk band 🤘 we're called ...", "moved to Leeds 🎉 boxes
    everywhere"), unless the words before it still wait for their value ("I love 🍕 pizza",
    "my dog is called 🐶Rex": `values.waits_for_value`), or it is written onto the word after
    it ("I collect ✨vinyl"). There it is dropped, so that the value after it stays whole."""
    out: list[str] = []
    at = 0
    while at < len(text):
        if not _symbol(text[at]):
            out.append(text[at])
            at += 1
            continue
        end = at
        while end < len(text) and _symbol(text[end]):
            end += 1
        before = text[max(0, at - 64) : at]
        said = words_of(before)
        waits = said and waits_for_value(said[-1]) and before.rstrip()[-1:].isalnum()
        # A symbol written onto the word after it, a space before ("collect ✨vinyl", "our
        # 🐶Rex"), decorates that word: it ends nothing.
        # A subject after it opens a clause of its own ("so happy 😊i got the job").
        after = words_of(text[end : end + 16])[:1]
        decorates = (
            text[end : end + 1].isalnum()
            and (not before or before[-1:].isspace())
            and not set(after) & lexicon("first_person")
        )
        if decorates and not waits:
            at = end
            continue
        if not waits:
            out.append(". ")
        elif before[-1:].isspace() and text[end : end + 1].isspace():
            end += 1  # "love 🍕 pizza" is "love pizza"
        elif not before[-1:].isspace() and not text[end : end + 1].isspace():
            out.append(" ")  # "called🐶Rex" is "called Rex"
        at = end
    return "".join(out)
