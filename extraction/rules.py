"""Offline extractor: the user's own durable statements, found by rules, in the third person.

One concept in one module, hence its length: a table of clause rules (one small function per
kind of statement) and the one loop that applies them. Splitting it would scatter the table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from extraction.candidates import Candidate
from extraction.restate import passing_facts, restated_fact, tighten
from extraction.statements import announces_change
from extraction.vocabulary import (
    COUNT,
    DEMONYMS,
    JOB_SUFFIX,
    JOB_WORDS,
    LANGUAGES,
    NOT_A_JOB,
    RELATION,
    RELATION_PLURAL,
    TECH_PHRASES,
    TECH_TERMS,
    third_person,
)
from memories.text import CAPTION_MAX_LENGTH, FULL_TEXT_MAX_LENGTH, content_hash

# Precision over recall: every rule is anchored at the start of a clause whose subject is the
# user ("I ..." or "my ..."), so reported speech, third parties and the assistant never match.


@dataclass(frozen=True)
class _Fact:
    """One rewritten statement before it is cut to the caption and full_text limits."""

    text: str
    category: str
    confidence: float
    detail: str = ""


_Rule = Callable[[re.Match[str]], _Fact | None]


def _words(text: str) -> frozenset[str]:
    """A vocabulary written as whitespace-separated words."""
    return frozenset(text.split())


# --- normalisation ---------------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_CONTRACTIONS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), replacement)
    for pattern, replacement in (
        (r"\bi'm\b|\bim\b", "I am"),
        (r"\bi've\b", "I have"),
        (r"\bi'd\b", "I would"),
        (r"\bi'll\b", "I will"),
        (r"\bcan't\b|\bcant\b", "cannot"),
        (r"\bwon't\b", "will not"),
        (r"\b(do|does|did|is|are|was|were|have|has|had|would|should|could)n'?t\b", r"\1 not"),
        (r"\b(it|he|she|that|there|what|who|where|how)'s\b", r"\1 is"),
        (r"\b(we|you|they)'re\b", r"\1 are"),
        (r"\b(we|you|they)'ve\b", r"\1 have"),
        (r"\bi\b", "I"),
    )
)
_SPACES = re.compile(r"\s+")


def _normalise(text: str) -> str:
    """Straighten quotes, expand the contractions the rules rely on and collapse whitespace."""
    text = _SPACES.sub(" ", text.translate(_QUOTES)).strip()
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return text


# --- sentences and clauses -------------------------------------------------------------------

# Emoji end a thought as surely as a full stop ("got married on saturday 🥹 thank you notes").
_SENTENCE_END = re.compile(
    r"[.!?]+[\"')\]]*(?=\s|$)|\n+|\s*[\U0001F000-\U0001FFFF\u2600-\u27BF\u2B00-\u2BFF]+\s*"
)
_ABBREVIATIONS = frozenset(
    {"e.g.", "i.e.", "etc.", "dr.", "mr.", "mrs.", "ms.", "st.", "vs.", "approx.", "no.", "jr."}
)


def _sentences(text: str) -> Iterator[str]:
    """Split a message into sentences without breaking on common abbreviations or decimals."""
    start = 0
    for match in _SENTENCE_END.finditer(text):
        last_word = text[start : match.end()].split()[-1:] or [""]
        if last_word[0].lower() in _ABBREVIATIONS:
            continue
        sentence = text[start : match.end()].strip()
        if sentence:
            yield sentence
        start = match.end()
    if text[start:].strip():
        yield text[start:].strip()


_SUBJECT_AHEAD = r"(?=(?:I|[Mm]y|we|he|she|they|it|that|this|there|you|keep|please|also I)\b)"
_CLAUSE_SPLIT = re.compile(
    r"\s*(?:;|\s[-\u2013\u2014]\s|\s\(|\)"
    r"|,\s*(?:but|so|because|though|although|which|whereas|cause|cuz|since|as)\b"
    rf"|(?:,\s*|\s+)(?:and|but|so|plus|while|whereas|although|though|because|since|as)\s+"
    rf"(?:now |then |also |finally |honestly )?{_SUBJECT_AHEAD}"
    r"|\s+and\s+(?=(?:just |recently |also |finally )?(?:got|started|took|picked|switched|moved|"
    r"quit|gave|stopped|turned|thinking|trying|planning|hoping|wondering|looking|"
    # "I live in Porto and work as a nurse": a second fact whose "I" is left out.
    r"live|work|study|teach|own|speak|play|love|like|prefer|hate|enjoy|drive|volunteer|"
    r"am (?:a|an|allergic|vegetarian|vegan)\b|have (?:a|an|two|three|\d)\b)\b)"
    rf"|,\s*{_SUBJECT_AHEAD})\s*"
)


_ELIDED = re.compile(
    r"(?:just |recently |also |finally )?(?:got|started|took|picked|switched|moved|quit|gave|"
    r"stopped|turned|live|work|study|teach|own|speak|play|love|like|prefer|hate|enjoy|drive|"
    r"volunteer|am|have)\b"
)


def _clauses(sentence: str) -> list[tuple[str, str]]:
    """Split a sentence where a new subject starts: (connecting word, clause) pairs."""
    pieces: list[tuple[str, str]] = []
    connector, start = "", 0
    for match in _CLAUSE_SPLIT.finditer(sentence):
        pieces.append((connector, sentence[start : match.start()]))
        connector = match.group().strip(" ,;()-\u2013\u2014").lower()
        start = match.end()
    pieces.append((connector, sentence[start:]))
    return [
        # A clause split off at "and" + verb has no subject of its own: it is still the user's.
        (word, f"I {clause.strip(' ,')}" if word == "and" and _ELIDED.match(clause) else clause)
        for word, clause in ((w, c.strip(" ,")) for w, c in pieces)
        if clause
    ]


# A clause joined by one of these words qualifies the fact before it ("I'm vegetarian but I eat
# fish"), so it goes into that fact's full text; "so ..." is usually an instruction to the
# assistant and is left out.
_DETAIL_CONNECTORS = _words("which but because since though although whereas as especially")


_PREFIX = re.compile(
    r"^(?:(?:hi|hello|hey|ok|okay|oh|ah|well|also|honestly|actually|anyway|anyways|btw|"
    r"by the way|for context|fyi|so|and|but|yeah|yes|no(?=[,.!:])|nope|sure|plus|ps|p\.s\.|um|"
    r"umm|hmm|"
    r"thanks|thank you|cool|great|right|oh and|just so you know|to be honest|tbh|fun fact|"
    r"as you know|as I said|as I mentioned|like I said|in fact|then|otherwise)\b[\s,:!.\u2014-]*)+",
    re.IGNORECASE,
)
_REMEMBER_PREFIX = re.compile(
    r"^(?:please\s+)?(?:do\s+)?(?:remember|note|keep in mind|do not forget|never forget|"
    r"for the record|just so you know|fyi|for your information|make a note)\b"
    r"(?:\s+(?:that|this))?\s*[:,\u2014-]?\s*",
    re.IGNORECASE,
)
_REMEMBER_QUESTION = re.compile(
    r"^(?:could|can|would|will) you (?:please )?(?:remember|note|keep in mind|make a note)"
    r"(?: of)?(?: that)?[:,]?\s+(?P<body>.+?)[?.!]*$",
    re.IGNORECASE,
)
_INTERROGATIVES = _words(
    "what why how who whom whose where when which is are am was were do does did can could "
    "would should will shall may might have has any anything anyone"
)
_QUESTION_TAIL = re.compile(
    r"(?:[,;:]|\s[\u2014\u2013-])\s+(?P<word>[A-Za-z]+)\b(?=[^,;:]*\?[\"')\s]*$)", re.IGNORECASE
)
_CONFIRMATION_TAGS = frozenset({"right", "correct", "ok", "okay", "yeah", "yes", "no", "eh"})

# Whole sentences that are hypothetical: nothing in them is a fact about the user.
_HYPOTHETICAL = re.compile(
    r"\b(?:if|suppose|supposing|imagine|imagining|assuming|hypothetically|pretend|pretending|"
    r"what if|let us say|let's say|were I|had I|in theory|unless)\b",
    re.IGNORECASE,
)
# Clauses that are uncertain, intended or wished for rather than stated as true.
_UNCERTAIN = re.compile(
    r"\b(?:would|could|might|should|maybe|perhaps|probably|possibly|wish|hope to|hoping|"
    r"thinking about|thinking of|considering|planning to|plan to|going to|gonna|want to|"
    r"wanna|trying to decide|not sure)\b|\bmay\b",
    re.IGNORECASE,
)
# Clauses about the moment rather than the person.
_TEMPORARY = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|right now|at the moment|just now|atm|for now|"
    r"for the moment|this (?:morning|afternoon|evening|week|weekend)|next week|later today|"
    r"in a (?:minute|moment|bit|sec|second)|in (?:a few|\d+|two|five|ten|twenty) minutes)\b",
    re.IGNORECASE,
)


def _is_question_start(text: str) -> bool:
    """Whether a sentence opens like a question (an interrogative or an auxiliary)."""
    first = text.split(maxsplit=1)[:1]
    return bool(first) and first[0].strip(",").lower() in _INTERROGATIVES


# A request to the assistant run on after a statement without a comma ("I started at Stripe
# this week 🎉 can you help me prep?").
_ASK_TAIL = re.compile(
    r"\s+(?:[^\w\s]+\s*)?(?:(?:can|could|would|will) you|any (?:tips|ideas|advice|recs|"
    r"recommendations|suggestions|good)|what (?:is|are|do|does|should|would|can|could)|"
    r"how (?:do|does|can|could|should|would)|where (?:can|should|do)|should I|do you|"
    r"is (?:it|that|this) (?:too|bad|normal|ok|okay|realistic|weird|possible|worth)|"
    r"so (?:what|how|which|where|can|could|should|do))\b.*$",
    re.IGNORECASE,
)


def _declarative_part(sentence: str) -> str | None:
    """The statement in front of a trailing question ("My dog is Rex, is he allowed?"), if any."""
    for match in _QUESTION_TAIL.finditer(sentence):
        word = match.group("word").lower()
        if word in _CONFIRMATION_TAGS:
            return None
        if word in _INTERROGATIVES:
            head = sentence[: match.start()].strip()
            return None if "?" in head else head
    tail = _ASK_TAIL.search(sentence)
    if tail and tail.start() > 0:
        head = sentence[: tail.start()].strip(" ,")
        return None if "?" in head or not head else head
    return None


# --- rewriting -------------------------------------------------------------------------------

_PRONOUNS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\b[Mm]yself\b", "themselves"),
        (r"\b[Mm]ine\b", "theirs"),
        (r"\b[Mm]y\b", "their"),
        (r"\b[Mm]e\b", "them"),
        (r"\bI am\b", "they are"),
        (r"\bI was\b", "they were"),
        (r"\bI\b", "they"),
        (r"\bours\b", "theirs"),
        (r"\bour\b", "their"),
        (r"\bwe are\b", "they are"),
        (r"\bwe\b", "they"),
        (r"\bus\b", "them"),
    )
)
_QUOTED = re.compile(r"\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)")
_TRAILING_FILLER = re.compile(
    r"(?:[\s,]+(?:now|originally|too|as well|also|anymore|any more|though|btw|lol|haha|"
    r"actually|honestly|tbh|by the way|I guess|I think|you know|really|please))+$",
    re.IGNORECASE,
)
_REJECTED_OBJECT_START = _words(
    "it that this these those them him her you your what how which one some both all "
    "everything nothing anything something so too very much to-do"
)
_CONTEXTUAL_OBJECT = re.compile(
    r"^(?:(?:the|that|this|these|those) (?:(?:first|second|third|last|latter|former|other|"
    r"previous|next|new|original|shorter|longer|above|same) )*(?:options?|ones?|versions?|"
    r"answers?|suggestions?|examples?|approach|ideas?|drafts?|solutions?|choices?|way|list|"
    r"response|reply|explanation)\b|options? [A-Z0-9]\b|to (?:think|say|believe|know|imagine|"
    r"admit|ask|bother|hear|see|interrupt|be honest)\b|not to (?:say|answer|share|disclose|tell)\b|"
    r"where\b|why\b|whoever\b)",
    re.IGNORECASE,
)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself|u)\b", re.IGNORECASE)


def _third_person(text: str) -> str:
    """Rewrite first-person words as third person, leaving quoted words as the user wrote them."""
    parts: list[str] = []
    last = 0
    for quoted in _QUOTED.finditer(text):
        parts.append(_swap_pronouns(text[last : quoted.start()]))
        parts.append(quoted.group())
        last = quoted.end()
    parts.append(_swap_pronouns(text[last:]))
    return "".join(parts)


def _swap_pronouns(text: str) -> str:
    """Replace first-person pronouns in unquoted text."""
    for pattern, replacement in _PRONOUNS:
        text = pattern.sub(replacement, text)
    return text


def _strip_unbalanced_quotes(text: str) -> str:
    """Drop a quote mark at either end unless it closes a quotation inside the text."""
    for mark in "\"'":
        if text.count(mark) % 2 == 1:
            text = text.strip(mark)
    return text


def _clean_object(raw: str | None, *, max_words: int = 30, check_start: bool = True) -> str | None:
    """The object of a statement, trimmed and in the third person; None if it is unusable."""
    if raw is None:
        return None
    text = _TRAILING_FILLER.sub("", _strip_unbalanced_quotes(raw.strip(" ,.;:!")))
    text = text.strip(" ,.;:!")
    words = text.split()
    if not words or len(words) > max_words:
        return None
    # "I love it", "I prefer the second option": the thing itself is elsewhere in the chat.
    if check_start and (
        words[0].lower().strip(",") in _REJECTED_OBJECT_START or _CONTEXTUAL_OBJECT.match(text)
    ):
        return None
    # Objects that mention the assistant are usually about this chat, not the user.
    if _SECOND_PERSON.search(text):
        return None
    return _third_person(text)


def _name(raw: str, clause: str) -> str | None:
    """A name: capitalised words, or any words when the user writes in lower case."""
    words = raw.strip(" ,.!").split()[:3]
    if not words:
        return None
    if clause == clause.lower():
        return " ".join(word.capitalize() for word in words)
    kept = []
    for word in words:
        if not word[:1].isupper():
            break
        kept.append(word)
    return " ".join(kept) or None


# --- vocabularies ----------------------------------------------------------------------------


def _is_technical(text: str) -> bool:
    """Whether a statement is about programming, tools or computers."""
    lower = text.lower()
    tokens = set(re.findall(r"[a-z0-9+#.]+", lower))
    tokens |= {token.strip(".") for token in tokens}
    return bool(tokens & TECH_TERMS) or any(phrase in lower for phrase in TECH_PHRASES)


def _has_proper_noun(text: str) -> bool:
    """Whether a phrase names something (a capitalised word such as a product or a language)."""
    return any(word[:1].isupper() for word in text.split())


_NEEDS_DOMAIN = _words("beginner newbie noob novice expert pro learner")
_NP_STOP = _words("at in for with from on by who that and but of which where since to as")

# --- the rules -------------------------------------------------------------------------------

_ADVERBS = (
    r"(?P<adv>(?:(?:really|also|actually|still|currently|now|just|honestly|totally|truly|"
    r"genuinely|basically|personally|absolutely|definitely|do|always|usually|mostly|mainly|"
    r"generally|normally|typically|primarily|often|sometimes|kind of|sort of|very much|"
    r"so much|recently|originally|pretty much|mostly just|only)\s+)*)"
)
_ANY_ADVERBS = _ADVERBS.replace("(?P<adv>", "(?:", 1)
_KEPT_ADVERBS = _words(
    "always usually mostly mainly generally normally typically primarily often sometimes only"
)


def _adverbs(match: re.Match[str]) -> str:
    """The frequency adverbs worth keeping in the caption, with a trailing space."""
    kept = [word for word in (match.group("adv") or "").lower().split() if word in _KEPT_ADVERBS]
    return " ".join(kept) + " " if kept else ""


_RULES: list[tuple[re.Pattern[str], _Rule]] = []


def _rule(pattern: str) -> Callable[[_Rule], _Rule]:
    """Register a rule: an anchored pattern over one clause and the rewrite it triggers."""

    def register(function: _Rule) -> _Rule:
        _RULES.append((re.compile(rf"^{pattern}$", re.IGNORECASE), function))
        return function

    return register


@_rule(
    r"my (?:full |first |real )?name is (?P<name>.+)"
    r"|(?:please )?call me (?P<nick>[\w'-]+(?: [\w'-]+)?)"
)
def _name_rule(match: re.Match[str]) -> _Fact | None:
    """My name is Priya. / Call me Sam."""
    clause = match.group(0)
    if match.group("name"):
        name = _name(match.group("name"), clause)
        return _Fact(f"User's name is {name}", "personal", 0.9) if name else None
    nick = _name(match.group("nick"), clause)
    return _Fact(f"User likes to be called {nick}", "personal", 0.8) if nick else None


_MONTH_OR_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b|\d", re.IGNORECASE
)


@_rule(rf"my (?:(?P<rel>{RELATION})'s )?birthday is (?P<on>on |in )?(?P<date>.+)")
def _birthday_rule(match: re.Match[str]) -> _Fact | None:
    """My birthday is on March 3rd. / My daughter's birthday is June 12."""
    date = _clean_object(match.group("date"), max_words=6)
    if not date or not _MONTH_OR_DATE.search(date):
        return None
    owner = f"User's {match.group('rel').lower()}'s" if match.group("rel") else "User's"
    return _Fact(f"{owner} birthday is {match.group('on') or ''}{date}", "personal", 0.9)


_NAMING_VERBS = {
    "'s name is": "is named",
    "'s called": "is called",
    "'s named": "is named",
    "is named": "is named",
    "is called": "is called",
    "goes by": "goes by",
    "is": "is called",
}


@_rule(
    rf"my (?P<rel>{RELATION})(?P<verb>'s name is|'s called|'s named| is called| is named| goes by|"
    rf" is(?= [A-Z]))"
    rf" (?P<name>[\w'-]+(?: [A-Z][\w'-]+)?)(?P<rest>.*)"
)
def _relation_name_rule(match: re.Match[str]) -> _Fact | None:
    """My dog is called Rex. / My wife's name is Sofia."""
    name = _name(match.group("name"), match.group(0))
    if not name or match.group("rest").strip(" ,.!"):
        return None
    relation = match.group("rel").lower()
    verb = _NAMING_VERBS[match.group("verb").strip().lower()]
    return _Fact(f"User's {relation} {verb} {name}", "personal", 0.9)


@_rule(
    rf"my (?P<rel>{RELATION}),? (?P<name>[A-Z][\w'-]+),? (?:is|was|has|loves|likes|hates|"
    rf"gets|turned|just|always|never|keeps|sleeps|eats)\b.*"
)
def _relation_with_name_rule(match: re.Match[str]) -> _Fact | None:
    """My cat Luna is 3 years old. (case-sensitive on the name, so "My dog always..." is not one)"""
    name = match.group("name")
    if not name[:1].isupper() or name.lower() in {"i", "is", "was", "has"}:
        return None
    relation = match.group("rel").lower()
    article = "an" if relation[:1] in "aeiou" else "a"
    return _Fact(f"User has {article} {relation} named {name}", "personal", 0.75)


@_rule(
    rf"I have (?:got )?(?P<what>{COUNT} (?:[a-z-]+ )?(?:{RELATION}|{RELATION_PLURAL})"
    rf"(?: and {COUNT} (?:[a-z-]+ )?(?:{RELATION}|{RELATION_PLURAL}))?)"
    rf"(?: (?:called|named) (?P<name>[\w'-]+(?: and [\w'-]+)?))?"
)
def _have_relation_rule(match: re.Match[str]) -> _Fact | None:
    """I have two kids. / I have a dog named Max."""
    what = _third_person(match.group("what")).lower()
    if match.group("name"):
        name = " and ".join(
            _name(part, match.group(0)) or part for part in match.group("name").split(" and ")
        )
        return _Fact(f"User has {what} named {name}", "personal", 0.85)
    return _Fact(f"User has {what}", "personal", 0.8)


@_rule(
    rf"my {_ADVERBS}(?:all-time |absolute )?favou?rite (?P<thing>[\w' -]{{2,30}}?) "
    rf"(?P<verb>is|are) (?P<obj>.+)"
)
def _favourite_rule(match: re.Match[str]) -> _Fact | None:
    """My favourite band is Radiohead."""
    obj = _clean_object(match.group("obj"), max_words=15)
    if not obj:
        return None
    thing = _third_person(match.group("thing").strip())
    text = f"User's favourite {thing} {match.group('verb').lower()} {obj}"
    category = "technical" if _is_technical(text) else "preference"
    return _Fact(text, category, 0.85)


@_rule(
    rf"my {_ADVERBS}(?P<kind>goal|main goal|aim|dream|ambition|plan|long-term plan|objective|"
    rf"resolution|new year's resolution)(?P<when> for [\w ]{{2,20}}?)? is (?:to )?(?P<obj>.+)"
)
def _goal_rule(match: re.Match[str]) -> _Fact | None:
    """My goal is to run a marathon next year."""
    obj = _clean_object(match.group("obj"))
    if not obj:
        return None
    when = match.group("when") or ""
    return _Fact(f"User's {match.group('kind').lower()}{when} is to {obj}", "project", 0.8)


@_rule(
    rf"I {_ADVERBS}(?:live|am living|am based|reside) (?P<prep>in|near|outside|just outside|"
    rf"around|on|close to|with) (?P<obj>.+)"
)
def _live_rule(match: re.Match[str]) -> _Fact | None:
    """I live in Berlin."""
    obj = _clean_object(match.group("obj"), max_words=12)
    if not obj:
        return None
    return _Fact(f"User lives {match.group('prep').lower()} {obj}", "personal", 0.85)


_RECENT = re.compile(
    r"\s*(?:\b(?:last|this) (?:week|month|year|spring|summer|autumn|fall|winter)\b"
    r"|\b(?:a|one|two|three|a few|\d+) (?:days?|weeks?|months?) ago\b|\brecently\b)",
    re.IGNORECASE,
)


@_rule(rf"I {_ADVERBS}(?:moved|relocated) (?:back )?(?P<prep>to|here to) (?P<obj>.+)")
def _moved_rule(match: re.Match[str]) -> _Fact | None:
    """I moved to Melbourne in 2019. / I just moved to Berlin last month."""
    raw = match.group("obj")
    recent = bool(_RECENT.search(raw)) or bool(
        re.search(r"\b(?:just|recently)\b", match.group("adv") or "", re.IGNORECASE)
    )
    obj = _clean_object(_RECENT.sub("", raw), max_words=12)
    if not obj:
        return None
    return _Fact(f"User {'recently ' if recent else ''}moved to {obj}", "personal", 0.8)


@_rule(r"I (?:am|come) (?:originally )?from (?P<obj>.+)")
def _from_rule(match: re.Match[str]) -> _Fact | None:
    """I'm from Lagos originally."""
    obj = _clean_object(match.group("obj"), max_words=8)
    if not obj or not _has_proper_noun(obj):
        return None
    return _Fact(f"User is from {obj}", "personal", 0.8)


@_rule(r"I (?P<verb>grew up|was born and raised|was raised|was born) (?P<prep>in|on) (?P<obj>.+)")
def _origin_rule(match: re.Match[str]) -> _Fact | None:
    """I grew up in Leeds. / I was born in 1990."""
    obj = _clean_object(match.group("obj"), max_words=10)
    if not obj:
        return None
    verb = match.group("verb").lower()
    return _Fact(f"User {verb} {match.group('prep').lower()} {obj}", "personal", 0.8)


@_rule(r"I (?P<verb>lived|used to live) (?P<prep>in|near) (?P<obj>.+)")
def _lived_rule(match: re.Match[str]) -> _Fact | None:
    """I lived in Paris for two years."""
    obj = _clean_object(match.group("obj"), max_words=14)
    if not obj:
        return None
    verb = match.group("verb").lower()
    return _Fact(f"User {verb} {match.group('prep').lower()} {obj}", "personal", 0.7)


_WORK_TIME = re.compile(
    r"^(?:the )?(?:morning|mornings|evening|evenings|afternoon|afternoons|night|nights|"
    r"weekend|weekends|a bit|a minute|shifts)\b",
    re.IGNORECASE,
)


# "I've been a nurse" may be over; "I've been a nurse for ten years" still holds.
_STILL_HOLDS = re.compile(r"\b(?:for (?:the (?:last|past) )?\S+ (?:years?|months?)|since)\b", re.I)


@_rule(
    rf"I {_ADVERBS}(?P<past>used to )?(?P<perfect>have been working |have worked )?"
    rf"(?(perfect)|work)(?P<how> remotely| from home| part-time| full-time|"
    rf" freelance| part time| full time)? ?(?P<prep>at|for|as|in) (?P<obj>.+)"
)
def _work_rule(match: re.Match[str]) -> _Fact | None:
    """I work at Acme. / I work as a nurse. / I've worked in marketing since 2019."""
    if match.group("perfect") and not _STILL_HOLDS.search(match.group("obj")):
        return None
    obj = _clean_object(match.group("obj"), max_words=16)
    if not obj or _WORK_TIME.match(obj) or obj.lower().startswith("a while"):
        return None
    perfect = (match.group("perfect") or "").strip()
    verb = "used to work" if match.group("past") else ("has " + perfect[5:] if perfect else "works")
    how = (match.group("how") or "").lower()
    return _Fact(f"User {verb}{how} {match.group('prep').lower()} {obj}", "personal", 0.85)


@_rule(rf"I {_ADVERBS}work (?P<prep>with|on) (?P<obj>.+)")
def _work_with_rule(match: re.Match[str]) -> _Fact | None:
    """I work with Kubernetes every day (technical objects only)."""
    obj = _clean_object(match.group("obj"), max_words=12)
    if not obj or not _is_technical(obj):
        return None
    return _Fact(f"User works {match.group('prep').lower()} {obj}", "technical", 0.75)


@_rule(
    r"I am (?:not )?(?:a |an )?(?P<size>big |huge |massive |great |total |die-hard |lifelong )?"
    r"fan of (?P<obj>.+)"
)
def _fan_rule(match: re.Match[str]) -> _Fact | None:
    """I'm a huge fan of jazz. / I'm not a fan of cilantro."""
    obj = _clean_object(match.group("obj"), max_words=15)
    if not obj:
        return None
    category = "technical" if _is_technical(obj) else "preference"
    if re.match(r"I am not", match.group(0), re.IGNORECASE):
        return _Fact(f"User dislikes {obj}", category, 0.75)
    size = (match.group("size") or "").lower()
    return _Fact(f"User is a {size}fan of {obj}", category, 0.8)


@_rule(
    r"I am (?P<adv>(?:strictly |fully |mostly |a )*)(?P<diet>vegetarian|vegan|pescatarian|"
    r"pescetarian|flexitarian|teetotal|teetotaller|teetotaler|plant-based)(?P<rest>.*)"
)
def _diet_rule(match: re.Match[str]) -> _Fact | None:
    """I'm vegetarian. / I'm a vegan."""
    if match.group("rest").strip(" ,.!"):
        return None
    qualifier = "mostly " if "mostly" in match.group("adv").lower() else ""
    return _Fact(f"User is {qualifier}{match.group('diet').lower()}", "preference", 0.9)


@_rule(
    r"I am (?P<degree>severely |very |mildly |deathly |highly |seriously |really )?"
    r"(?P<state>allergic|intolerant|sensitive) to (?P<obj>.+)"
)
def _allergy_rule(match: re.Match[str]) -> _Fact | None:
    """I'm allergic to peanuts."""
    obj = _clean_object(match.group("obj"), max_words=12)
    if not obj:
        return None
    degree = (match.group("degree") or "").lower()
    degree = "" if degree == "really " else degree
    return _Fact(f"User is {degree}{match.group('state').lower()} to {obj}", "personal", 0.9)


@_rule(r"I have (?:a |an )?(?P<degree>severe |mild |serious )?(?P<obj>[\w -]{2,30}?) allergy")
def _have_allergy_rule(match: re.Match[str]) -> _Fact | None:
    """I have a severe peanut allergy."""
    obj = _clean_object(match.group("obj"), max_words=4)
    if not obj:
        return None
    degree = (match.group("degree") or "").lower()
    return _Fact(f"User has a {degree}{obj} allergy", "personal", 0.85)


@_rule(
    r"I am (?P<state>lactose intolerant|gluten intolerant|coeliac|celiac|diabetic|type 1 diabetic|"
    r"type 2 diabetic|colou?r[ -]?blind|dyslexic|asthmatic|epileptic|deaf|hard of hearing|"
    r"autistic|left-handed|right-handed|visually impaired|hearing impaired|vision impaired|"
    r"married|single|divorced|engaged|widowed|retired|self-employed|unemployed|a freelancer|"
    r"freelance|a night owl|an early bird|a morning person|a night person|an introvert|"
    r"an extrovert|introverted|extroverted|a dog person|a cat person)"
    r"(?P<rest> to [A-Z][\w'-]+(?: [A-Z][\w'-]+)?)?"
)
def _state_rule(match: re.Match[str]) -> _Fact | None:
    """I'm colour blind. / I'm retired. / I'm a night owl."""
    state = match.group("state").lower()
    category = "preference" if state in {"a dog person", "a cat person"} else "personal"
    return _Fact(f"User is {state}{match.group('rest') or ''}", category, 0.8)


@_rule(r"I am (?P<half>half[- ])?(?P<first>[A-Z][a-z]+)(?: and (?P<second>[A-Z][a-z]+))?")
def _nationality_rule(match: re.Match[str]) -> _Fact | None:
    """I'm Dutch. (only known demonyms, so "I'm Brian" or "I'm Sorry" are not nationalities)"""
    first, second = match.group("first"), match.group("second")
    if first not in DEMONYMS or (second and second not in DEMONYMS):
        return None
    half = "half " if match.group("half") else ""
    return _Fact(f"User is {half}{first}{f' and {second}' if second else ''}", "personal", 0.75)


@_rule(r"I am (?P<age>\d{1,3}) (?:years old|years of age|yo|y/o)")
def _age_rule(match: re.Match[str]) -> _Fact | None:
    """I'm 34 years old."""
    age = int(match.group("age"))
    return _Fact(f"User is {age} years old", "personal", 0.7) if 5 <= age <= 110 else None


@_rule(r"I (?P<perfect>have been|am) (?P<article>a|an|the) (?P<rest>.+)")
def _job_rule(match: re.Match[str]) -> _Fact | None:
    """I'm a high school chemistry teacher. / I've been a nurse in Leeds for ten years."""
    if match.group("perfect") != "am" and not _STILL_HOLDS.search(match.group("rest")):
        return None
    words = match.group("rest").split()
    noun_phrase: list[str] = []
    for word in words:
        if word.lower().strip(",") in _NP_STOP or word.endswith(","):
            if word.endswith(",") and word.lower().strip(",") not in _NP_STOP:
                noun_phrase.append(word.rstrip(","))
            break
        noun_phrase.append(word)
    if not noun_phrase or len(noun_phrase) > 5:
        return None
    head = noun_phrase[-1].lower().strip(".!")
    lowered = {word.lower() for word in noun_phrase}
    if lowered & NOT_A_JOB or head in NOT_A_JOB:
        return None
    is_job = head in JOB_WORDS or (
        match.group("article").lower() != "the" and bool(JOB_SUFFIX.search(head))
    )
    # "I'm a complete beginner" says nothing until it says at what.
    if not is_job or (head in _NEEDS_DOMAIN and len(words) == len(noun_phrase)):
        return None
    obj = _clean_object(match.group("rest"), max_words=16)
    if not obj:
        return None
    verb = "is" if match.group("perfect") == "am" else "has been"
    return _Fact(f"User {verb} {match.group('article').lower()} {obj}", "personal", 0.8)


@_rule(
    rf"I {_ADVERBS}(?P<verb>prefer|like|love|hate|dislike|want|do not like) (?:it )?"
    rf"(?P<form>you to|when you) (?P<action>[a-z]+)\b(?P<obj>.*)"
)
def _assistant_preference_rule(match: re.Match[str]) -> _Fact | None:
    """I prefer you to keep answers short. / I like it when you use examples."""
    raw = match.group("obj").strip()
    obj = _clean_object(raw, check_start=False) if raw else ""
    if obj is None:
        return None
    verb = {**_PREFERENCE_VERBS, "want": "wants"}[match.group("verb").lower()]
    action = match.group("action").lower()
    if match.group("form").lower() == "you to":
        text = f"User {verb} the assistant to {action} {obj}"
    else:
        text = f"User {verb} it when the assistant {third_person(action)} {obj}"
    return _Fact(text.strip(), "preference", 0.75)


_PREFERENCE_VERBS = {
    "prefer": "prefers",
    "like": "likes",
    "love": "loves",
    "enjoy": "enjoys",
    "adore": "adores",
    "hate": "hates",
    "dislike": "dislikes",
    "detest": "detests",
    "loathe": "loathes",
    "cannot stand": "can't stand",
    "can not stand": "can't stand",
    "do not like": "doesn't like",
    "do not enjoy": "doesn't enjoy",
    "do not love": "doesn't love",
    "am into": "is into",
    "am obsessed with": "is obsessed with",
    "am passionate about": "is passionate about",
    "am interested in": "is interested in",
    "am not into": "isn't into",
}


@_rule(rf"I {_ADVERBS}(?P<verb>{'|'.join(_PREFERENCE_VERBS)}) (?P<obj>.+)")
def _preference_rule(match: re.Match[str]) -> _Fact | None:
    """I prefer dark mode. / I hate flying. / I don't like spicy food."""
    obj = _clean_object(match.group("obj"), max_words=20)
    if not obj:
        return None
    verb = _PREFERENCE_VERBS[re.sub(r"\s+", " ", match.group("verb").lower())]
    text = f"User {_adverbs(match)}{verb} {obj}"
    return _Fact(text, "technical" if _is_technical(obj) else "preference", 0.8)


_NEGATED_HABIT_VERBS = "eat|drink|smoke|drive|fly|watch|use|own|wear|drink alcohol|eat meat"


@_rule(rf"I (?P<neg>do not|never) (?P<verb>{_NEGATED_HABIT_VERBS})\b(?P<obj>.*)")
def _negated_habit_rule(match: re.Match[str]) -> _Fact | None:
    """I don't eat pork. / I never drink coffee."""
    raw = match.group("obj").strip()
    obj = _clean_object(raw, max_words=15) if raw else ""
    if obj is None:
        return None
    verb = match.group("verb").lower()
    if match.group("neg").lower() == "never":
        phrase = f"never {third_person(verb.split()[0])}{verb[len(verb.split()[0]) :]}"
    else:
        phrase = f"doesn't {verb}"
    text = f"User {phrase} {obj}".strip()
    category = "technical" if _is_technical(text) else "preference"
    return _Fact(text, category, 0.75)


_USE_VERBS = {
    "use": "uses",
    "am using": "is using",
    "have been using": "has been using",
    "have used": "has used",
    "run": "runs",
    "am running": "is running",
    "rely on": "relies on",
    "develop on": "develops on",
    "swear by": "swears by",
}


@_rule(rf"I {_ADVERBS}(?P<verb>{'|'.join(_USE_VERBS)}) (?P<obj>.+)")
def _use_rule(match: re.Match[str]) -> _Fact | None:
    """I use Neovim. / I mostly use Go and Kubernetes (tools and technology only)."""
    obj = _clean_object(match.group("obj"), max_words=16)
    if not obj or not (_is_technical(obj) or _has_proper_noun(obj)):
        return None
    verb = _USE_VERBS[re.sub(r"\s+", " ", match.group("verb").lower())]
    return _Fact(f"User {_adverbs(match)}{verb} {obj}", "technical", 0.8)


@_rule(
    rf"I {_ADVERBS}(?P<verb>code|program|write code|develop|write software|build things)"
    rf" (?P<adv2>mostly |mainly |only |primarily )?(?:in|with) (?P<obj>.+)"
)
def _code_rule(match: re.Match[str]) -> _Fact | None:
    """I code in Rust mostly."""
    obj = _clean_object(match.group("obj"), max_words=14)
    if not obj:
        return None
    adverbs = _adverbs(match) + (match.group("adv2") or "").lower()
    return _Fact(f"User {adverbs}codes in {obj}", "technical", 0.85)


@_rule(rf"I {_ADVERBS}speak (?P<obj>.+)")
def _speak_rule(match: re.Match[str]) -> _Fact | None:
    """I speak English, German and a little Italian."""
    obj = _clean_object(match.group("obj"), max_words=14)
    if not obj or not set(re.findall(r"[a-z]+", obj.lower())) & LANGUAGES:
        return None
    return _Fact(f"User speaks {obj}", "personal", 0.8)


_PROJECT_NOUNS = re.compile(
    r"\b(?:book|novel|memoir|thesis|dissertation|paper|blog|app|application|game|website|site|"
    r"startup|company|business|library|tool|podcast|newsletter|course|album|film|documentary|"
    r"project|platform|service|plugin|extension|bot|framework|api|compiler|engine|shop|store|"
    r"channel|garden|house|boat|car|robot|keyboard|series|comic|screenplay|phd|degree|research|"
    r"study|model|system|pipeline|product|portfolio|collection|lab|mod|script|dashboard)s?\b",
    re.IGNORECASE,
)


@_rule(
    rf"I am {_ADVERBS}(?P<verb>working on|building|developing|creating|designing|writing|"
    rf"making|starting|launching|running|researching)(?P<obj> .+)"
    rf"|I have been {_ANY_ADVERBS}(?P<verb2>working on|building|developing|writing)(?P<obj2> .+)"
)
def _project_rule(match: re.Match[str]) -> _Fact | None:
    """I'm building a budgeting app. / I'm working on a thesis about coral reefs."""
    verb = (match.group("verb") or match.group("verb2")).lower()
    obj = _clean_object(match.group("obj") or match.group("obj2"))
    if not obj:
        return None
    first = obj.split()[0].lower()
    if first in {"on", "late", "out", "away", "around", "for", "from", "with", "to", "up"}:
        return None
    # "working on a fix" is today's task; a project names what is being made.
    named = first in {"a", "an", "their", "the"} and _has_proper_noun(obj)
    if not (_PROJECT_NOUNS.search(obj) or named):
        return None
    auxiliary = "has been" if match.group("verb2") else "is"
    return _Fact(f"User {auxiliary} {verb} {obj}", "project", 0.75)


@_rule(
    rf"I am {_ADVERBS}(?P<verb>learning|studying|teaching myself|taking (?:a )?(?:course|class"
    rf"|classes|lessons) in|practising|practicing|training for|preparing for) (?P<obj>.+)"
)
def _learning_rule(match: re.Match[str]) -> _Fact | None:
    """I'm learning Spanish. / I'm studying computer science at UCL."""
    obj = _clean_object(match.group("obj"), max_words=16)
    if not obj or re.match(r"(?:that|how|about|a lot|lots|so much|so many)\b", obj, re.I):
        return None
    verb = _third_person(match.group("verb").lower())
    return _Fact(f"User is {verb} {obj}", "project", 0.8)


_HABIT_ADVERBS = "always|usually|never|normally|generally|typically|often|rarely|mostly|only"
_PAST_TENSES = _words(
    """said went got had did made took thought knew saw came told gave found felt left ran wrote
    ate drank bought brought kept met paid sent spent stood taught understood won lost"""
)
_HABIT_BLOCKLIST = _words(
    """know forget remember get feel think wonder understand mean say seem see find have need
    want ask try struggle end manage hear worry make wish hope guess tell am was do did can
    will would could should might must"""
)


@_rule(rf"I (?P<freq>{_HABIT_ADVERBS}) (?P<verb>[a-z]+) (?P<obj>.+)")
def _habit_rule(match: re.Match[str]) -> _Fact | None:
    """I usually drink tea, never coffee."""
    verb = match.group("verb").lower()
    # Past tenses ("I never said that") tell a story, not a habit.
    if verb in _HABIT_BLOCKLIST or verb in _PAST_TENSES or verb.endswith("ed"):
        return None
    obj = _clean_object(match.group("obj"), max_words=15)
    if not obj:
        return None
    text = f"User {match.group('freq').lower()} {third_person(verb)} {obj}"
    category = "technical" if _is_technical(text) else "preference"
    return _Fact(text, category, 0.65)


def _remembered(clause: str) -> _Fact | None:
    """A statement the user explicitly asked to be remembered, rewritten word for word."""
    if _UNCERTAIN.search(clause) or _TEMPORARY.search(clause):
        return None
    mine = re.match(r"^my (?P<rest>.+)$", clause, re.IGNORECASE)
    if mine:
        rest = _clean_object(mine.group("rest"), check_start=False)
        return _Fact(f"User's {rest}", "other", 0.85) if rest else None
    statement = re.match(
        rf"^I {_ADVERBS}(?P<neg>do not |never )?(?P<verb>[a-z]+)\b(?P<rest>.*)$",
        clause,
        re.IGNORECASE,
    )
    if not statement:
        return _remembered_note(clause)
    if statement.group("verb").lower() in {"would", "could", "should", "might"}:
        return None
    raw_rest = statement.group("rest")
    rest = _clean_object(raw_rest, max_words=25, check_start=False) if raw_rest.strip() else ""
    if rest is None:
        return None
    verb = statement.group("verb").lower()
    negation = (statement.group("neg") or "").lower()
    phrase = f"doesn't {verb}" if negation == "do not " else f"{negation}{third_person(verb)}"
    text = f"User {_adverbs(statement)}{phrase} {rest}".strip()
    return _Fact(text, "technical" if _is_technical(text) else "other", 0.8)


_NOTE_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|lives|works|goes|uses)\b", re.I)
_LOWERED_OPENERS = _words("the a an this that these those our we it there")


def _remembered_note(clause: str) -> _Fact | None:
    """Something the user asked to remember that is not phrased about themselves."""
    note = _clean_object(clause, max_words=25, check_start=False)
    if not note or len(note.split()) < 3 or not _NOTE_VERB.search(note):
        return None
    first, _, rest = note.partition(" ")
    if first.lower() in _LOWERED_OPENERS:
        note = f"{first.lower()} {rest}"
    return _Fact(f"User asked to remember that {note}", "other", 0.7)


# --- assembly --------------------------------------------------------------------------------


def _clause_fact(clause: str, *, remembered: bool) -> _Fact | None:
    """The fact stated by one clause, or None when it states nothing durable about the user."""
    clause = _PREFIX.sub("", clause).strip(" ,.!;:")
    if not clause or clause[:1] in "\"'":
        return None
    uncertain = _UNCERTAIN.search(clause)
    # "as of today" marks a state that holds from now on, not a passing one.
    temporary = _TEMPORARY.search(re.sub(r"\bas of (?:today|now)\b", "", clause, flags=re.I))
    if not uncertain and not temporary:
        for pattern, rule in _RULES:
            match = pattern.match(clause)
            if match:
                fact = rule(match)
                if fact:
                    boost = 0.05 if remembered else 0.0
                    return _Fact(fact.text, fact.category, min(0.95, fact.confidence + boost))
        if remembered and (fact := _remembered(clause)):
            return fact
    if uncertain:
        return None
    return _restated(clause, temporary=bool(temporary))


# States that "at the moment" does not make passing ("I'm single at the moment").
_LASTING = frozenset({"relationship", "employer", "job", "diet", "living_with", "children"})


def _lasting(statements: tuple) -> bool:
    return any(s.attribute.split(":", 1)[0] in _LASTING for s in statements)


def _restated(clause: str, *, temporary: bool) -> _Fact | None:
    """The clause restated about the user, when the statement reader knows what it states.

    A clause about the moment ("yesterday", "this week") counts only when it announces a
    change ("just turned 35 yesterday", "started at Stripe this week").
    """
    found = restated_fact(clause)
    if found is None:
        return None
    text, category, statements = found
    if temporary and not announces_change(clause) and not _lasting(statements):
        return None
    caption, detail = tighten(text, statements)
    caption = _TRAILING_FILLER.sub("", caption.strip(" ,.!;:")).strip(" ,.!;:")
    return _Fact(caption, category, 0.7, detail=_TRAILING_FILLER.sub("", detail.rstrip(" ,.!;:")))


def _sentence_facts(sentence: str) -> Iterator[_Fact]:
    """Facts stated by the user in one sentence."""
    text = _PREFIX.sub("", _normalise(sentence)).strip()
    for fact in passing_facts(text):
        yield _Fact(fact, "personal", 0.7)
    remembered = False
    request = _REMEMBER_QUESTION.match(text)
    if request:
        text, remembered = request.group("body"), True
    elif "?" in text[-3:]:
        head = None if _is_question_start(text) else _declarative_part(text)
        if head is None:
            return
        text = head
    if _is_question_start(text) or _HYPOTHETICAL.search(text):
        return
    prefix = _REMEMBER_PREFIX.match(text)
    if prefix and prefix.end() < len(text):
        text, remembered = text[prefix.end() :], True

    pending: _Fact | None = None
    for connector, clause in _clauses(text):
        fact = _clause_fact(clause, remembered=remembered)
        if fact:
            if pending:
                yield pending
            pending = fact
        elif pending and connector in _DETAIL_CONNECTORS:
            detail = _detail(clause)
            if detail:
                pending = replace(pending, detail=f"{pending.detail}, {connector} {detail}")
    if pending:
        yield pending


def _detail(clause: str) -> str | None:
    """A qualifying clause in the third person, or None if it is not about the user's fact."""
    clause = _PREFIX.sub("", clause).strip(" ,.!;:")
    if not clause or "?" in clause or _SECOND_PERSON.search(clause) or _TEMPORARY.search(clause):
        return None
    return _third_person(clause)


def _shorten(text: str, limit: int) -> str:
    """Cut text to a limit at a natural break (a comma or a relative clause) or a word boundary."""
    if len(text) <= limit:
        return text
    window = text[: limit + 1]
    for marker in (", ", " because ", " which ", " who ", " where ", " so ", " and "):
        cut = window.rfind(marker)
        if cut >= limit // 2:
            return text[:cut].rstrip(" ,")
    cut = window.rfind(" ")
    return text[: cut if cut > 0 else limit].rstrip(" ,")


def _candidate(fact: _Fact) -> Candidate:
    """Turn a fact into a candidate within the caption and full_text limits."""
    text = re.sub(r"\s+", " ", fact.text).strip(" ,.;:")
    caption = _shorten(text, CAPTION_MAX_LENGTH)
    detailed = re.sub(r"\s+", " ", text + fact.detail).strip(" ,.;:")
    full_text = _shorten(detailed, FULL_TEXT_MAX_LENGTH - 1)
    full_text += "."
    return Candidate(
        caption=caption,
        full_text=full_text,
        category=fact.category,
        confidence=round(fact.confidence, 2),
    )


def extract_candidates(messages: list[dict[str, str]]) -> list[Candidate]:
    """Durable facts the user states about themselves, as third-person candidates, in order."""
    seen: set[str] = set()
    candidates: list[Candidate] = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "user":
            continue
        content = message.get("content")
        if not isinstance(content, str):
            continue
        for sentence in _sentences(content):
            for fact in _sentence_facts(sentence):
                candidate = _candidate(fact)
                key = content_hash(candidate.caption)
                if key not in seen:
                    seen.add(key)
                    candidates.append(candidate)
    return candidates
