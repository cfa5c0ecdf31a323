"""Life domains: how a memory can matter to a prompt that shares no word with it.

"Where should we eat on Friday?" needs "User is vegetarian"; "plan me a long weekend away"
needs "User is saving for a house" and "User is afraid of flying". Each domain of everyday
life (diet, health, family, pets, home, transport, work, money, sport, hobbies, travel, social
habits, tech, languages, events) says what its memories are *about* and what requests *need*
them. A memory belongs to the domains whose `about` words it uses or whose description its
vector is close to (computed at index build, from vectors already stored); a prompt needs the
domains whose `needed_for` words it uses or whose description or example requests
(`needs.toml`) its vector is close to. A request for personal help then reaches the memories
of the domains it needs.

Works offline: the descriptions are embedded by the configured embedder, once per process.
"""

from __future__ import annotations

import hashlib
import re
import threading
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from core.lexicon import lexicon
from core.lexicon import names as lexicon_names
from core.words import words_of
from integrations.embeddings import embed_texts
from memories.attributes import attribute
from memories.facets import facets_read
from recall import shaping
from recall.people import person_names


@dataclass(frozen=True)
class Domain:
    """A life domain: the facts that belong to it, and the requests that need those facts."""

    name: str
    about: str
    needed_for: str
    about_words: frozenset[str]
    needed_words: frozenset[str]


DOMAINS_FILE = Path(__file__).resolve().parent / "domains.toml"


def _domains() -> tuple[Domain, ...]:
    """The domains of `domains.toml`, in its order (the order of every (n, D) array)."""
    table = tomllib.loads(DOMAINS_FILE.read_text(encoding="utf-8"))
    return tuple(
        Domain(
            name,
            " ".join(entry["about"].split()),
            " ".join(entry["needed_for"].split()),
            frozenset(entry["about_words"].split()),
            frozenset(entry["needed_words"].split()),
        )
        for name, entry in table.items()
    )


DOMAINS = _domains()
NAMES = tuple(domain.name for domain in DOMAINS)
NEEDS_FILE = Path(__file__).resolve().parent / "needs.toml"


def _examples() -> tuple[tuple[str, ...], ...]:
    """The example requests of `needs.toml`, one tuple per domain in DOMAINS' order."""
    table = tomllib.loads(NEEDS_FILE.read_text(encoding="utf-8"))
    unknown = set(table) - set(NAMES)
    if unknown:
        raise ValueError(f"needs.toml names no domain {sorted(unknown)}")
    return tuple(tuple(table.get(name, ())) for name in NAMES)


EXAMPLES = _examples()
# The domain of the user's people (partner, children, parents, friends), and the need for it,
# by meaning, from which a prompt is about them rather than the user alone.
_PEOPLE = NAMES.index("family")
PEOPLE_NEED = 0.5
# Changes whenever a domain's words or descriptions do, so cached memberships are rebuilt.
FINGERPRINT = hashlib.sha256(
    repr(
        [
            (d.name, d.about, d.needed_for, sorted(d.about_words), sorted(d.needed_words))
            for d in DOMAINS
        ]
        + [EXAMPLES, shaping.FINGERPRINT]
    ).encode()
).hexdigest()[:12]

# Cosine to a domain's description from which a memory (or a prompt) starts to belong to it,
# and where it belongs fully (MiniLM scale; other embedders lean on the word lists).
MEMORY_COSINE = (0.30, 0.55)
PROMPT_COSINE = (0.30, 0.55)
# Cosine of a prompt to a domain's nearest example request from which it starts to need the
# domain, and where it needs it fully: two requests are closer than a request and a
# description, so the scale starts higher.
EXAMPLE_COSINE = (0.50, 0.75)
# What a domain's word makes of the need when the prompt's vector points to some domain
# (at least VECTOR_POINTS) but gives this one nothing: under the need floor (recall.ranking),
# so it ranks a memory but does not reach it on its own.
WORD_ALONE = 0.45
VECTOR_POINTS = 0.25
# A word of the domain in a memory's caption makes it a member; in its full text only, partly.
_FULL_TEXT_WORD = 0.6
# A single quote opens or closes a quotation only away from letters: "I'm" and "kid's" are
# contractions, not quotes.
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<![A-Za-z])'[^']{3,}'(?![A-Za-z])")


# Every need and membership array has a column per domain, then one per kind of fact that
# shapes answers (recall.shaping), which no word reaches: only vectors.
COLUMNS = len(DOMAINS) + len(shaping.KINDS)
COLUMN_NAMES = NAMES + shaping.NAMES


def _hits(text: str, vocabulary: str) -> np.ndarray:
    words = set(words_of(text, parts=True))
    if vocabulary == "needed_words":
        # A function word ("out", "going") or a verb that asks for help ("recommend", "pick")
        # is in any request: it says nothing of what the request is about, so it never makes
        # a prompt need a domain ("get a wine stain out of a rug" is no night out).
        words -= lexicon("function_words") | lexicon("request_verbs")
    found = np.zeros(COLUMNS, np.float32)
    found[: len(DOMAINS)] = [float(bool(words & getattr(d, vocabulary))) for d in DOMAINS]
    return found


_lock = threading.Lock()


@cache
def _prototypes(model_id: str, side: str) -> np.ndarray:
    return embed_texts([getattr(domain, side) for domain in DOMAINS])


def prototypes(model_id: str, side: str) -> np.ndarray:
    """The domains' `about` or `needed_for` descriptions embedded with `model_id`, once."""
    with _lock:
        return _prototypes(model_id, side)


@cache
def _example_vectors(model_id: str) -> tuple[np.ndarray, np.ndarray]:
    texts = [text for examples in EXAMPLES for text in examples]
    # Where each domain's examples start in the stacked matrix (for a per-domain maximum).
    starts = np.cumsum([0, *(len(examples) for examples in EXAMPLES[:-1])])
    return embed_texts(texts), starts


def _by_examples(vector: np.ndarray, model_id: str) -> np.ndarray | None:
    """How much a prompt needs each domain by its nearest example request, (D,) in [0, 1]."""
    with _lock:
        examples, starts = _example_vectors(model_id)
    if examples.shape[1] != vector.shape[0] or any(not e for e in EXAMPLES):
        return None
    nearest = np.maximum.reduceat(examples @ vector, starts)
    low, high = EXAMPLE_COSINE
    return np.clip((nearest - low) / (high - low), 0.0, 1.0).astype(np.float32)


def _by_vector(
    vectors: np.ndarray, model_id: str, side: str, scale: tuple[float, float]
) -> np.ndarray | None:
    proto = prototypes(model_id, side)
    if vectors.shape[1] != proto.shape[1]:
        return None
    low, high = scale
    return np.clip((vectors @ proto.T - low) / (high - low), 0.0, 1.0)


def membership(
    captions: list[str], texts: list[str], vectors: np.ndarray, model_id: str
) -> np.ndarray:
    """How much each memory belongs to each domain, (n, D) in [0, 1]: its words or its vector."""
    if not texts:
        return np.zeros((0, COLUMNS), dtype=np.float32)
    words = np.stack(
        [
            np.maximum(_hits(caption, "about_words"), _FULL_TEXT_WORD * _hits(text, "about_words"))
            for caption, text in zip(captions, texts, strict=True)
        ]
    )
    found = np.maximum(words, np.stack([_registered(caption) for caption in captions]))
    by_vector = _by_vector(vectors, model_id, "about", MEMORY_COSINE)
    if by_vector is not None:
        found[:, : len(DOMAINS)] = np.maximum(found[:, : len(DOMAINS)], by_vector)
    found[:, len(DOMAINS) :] = shaping.fact_kinds(vectors, model_id)
    return found


@cache
def _domain_index() -> dict[str, int]:
    return {domain.name: at for at, domain in enumerate(DOMAINS)}


def _registered(caption: str) -> np.ndarray:
    """The domains the registry of attributes gives the fact a caption states (a job is work,
    an allergy diet and health), whatever words it uses: "User is a paramedic" is work
    although no domain lists "paramedic"."""
    found = np.zeros(COLUMNS, dtype=np.float32)
    for facet in facets_read(caption):
        if ":" in facet.attribute:  # a practice of some verb, a noun's "about": no registry entry
            continue
        entry = attribute(facet.attribute)
        # A closed class (a job, a diet, an editor) or a health fact says what the fact is
        # about; an open one ("likes", "has", "lives in") does not: it tagged too much
        # (needs_dev 77% -> 67% hit@3 when every attribute counted).
        if not (entry.values or entry.safety):
            continue
        for name in entry.domains:
            found[_domain_index()[name]] = 1.0
    return found


def prompt_meaning(vector: np.ndarray | None, model_id: str) -> np.ndarray | None:
    """How much a prompt needs each domain by its vector alone: its nearest example request and
    the domains' descriptions; None without a vector or when the embedder matches neither.
    Read once per prompt: `needs_by` and `people_need` both take it."""
    if vector is None:
        return None
    by_vector = _by_vector(vector[None, :], model_id, "needed_for", PROMPT_COSINE)
    by_examples = _by_examples(vector, model_id)
    if by_vector is None and by_examples is None:
        return None
    by_meaning = np.zeros(COLUMNS, dtype=np.float32)
    for found in (by_vector[0] if by_vector is not None else None, by_examples):
        if found is not None:
            by_meaning[: len(DOMAINS)] = np.maximum(by_meaning[: len(DOMAINS)], found)
    kinds = shaping.request_kinds(vector, model_id)
    if kinds is not None:
        by_meaning[len(DOMAINS) :] = kinds
    return by_meaning


def people_need(meaning: np.ndarray | None) -> float:
    """How much a prompt needs the user's people by what it means (`prompt_meaning`: "what's a
    good anniversary gift idea?"), not by a word the family domain lists: "date", "weekend" or
    "half" name no one in "when's my due date?", "plan my weekend", "my half marathon"."""
    return 0.0 if meaning is None else float(meaning[_PEOPLE])


def needs(prompt: str, vector: np.ndarray | None, model_id: str) -> np.ndarray:
    """How much a prompt needs each domain's memories, (D,) in [0, 1]: its words or vector."""
    return needs_by(prompt, prompt_meaning(vector, model_id))


# The least product of a kind's fact and request matches that counts as a need at all.
SHAPED_MIN = 0.5
# How close (scaled, recall.shaping.REQUEST_COSINE) a prompt must come to a prototype request
# to be read as a request for help by its meaning alone.
ASKS_BY_MEANING = 0.6


def asks_by_meaning(meaning: np.ndarray | None) -> bool:
    """Whether a prompt reads as a request whose answer the user's facts shape, by what it
    means: close to one of `shaping.toml`'s prototype requests ("a nice pudding for Sunday
    lunch", "cheapest way to get to Lisbon for a long weekend"), though it says no "I" or "my"
    and is longer than a terse query."""
    return asked_by_meaning(meaning) >= ASKS_BY_MEANING


def asked_by_meaning(meaning: np.ndarray | None) -> float:
    """How much a prompt reads as a request whose answer the user's facts shape (0..1), the
    measure `asks_by_meaning` compares with ASKS_BY_MEANING."""
    return 0.0 if meaning is None else float(meaning[len(DOMAINS) :].max())


def needs_by(prompt: str, by_meaning: np.ndarray | None) -> np.ndarray:
    """`needs`, given the prompt's `prompt_meaning`.

    When the vector points to a domain, a word of a domain the vector gives nothing at all
    counts only `WORD_ALONE`: "project" in "set up my editor for a new project" is a word
    of hobbies, but the request is about code, and the user's band is not what it needs."""
    words = _hits(_QUOTED.sub(" ", prompt), "needed_words")
    if by_meaning is None:
        return words
    if by_meaning[: len(DOMAINS)].max() >= VECTOR_POINTS:
        # The vector points to what the request is about: a word of a domain it gives nothing
        # at all is a word used in another sense.
        words = np.where(by_meaning > 0, words, WORD_ALONE * words)
    return np.maximum(words, by_meaning).astype(np.float32)


def agreed(prompt_needs: np.ndarray | None, by_meaning: np.ndarray | None) -> np.ndarray | None:
    """The part of a prompt's `needs_by` its vector supports: a domain named by a word alone
    ("a limerick about a cat" uses a word of pets) counts only as far as the prompt's meaning
    needs it too. None without a vector (the words are all there is)."""
    if prompt_needs is None or by_meaning is None:
        return None
    return np.minimum(prompt_needs, by_meaning).astype(np.float32)


def need(prompt_needs: np.ndarray, memory_domains: np.ndarray) -> np.ndarray:
    """How much each memory matters to the prompt through its domains, (n,) in [0, 1]."""
    wanted = np.flatnonzero(prompt_needs)
    if not memory_domains.size or not wanted.size:
        return np.zeros(memory_domains.shape[0], dtype=np.float32)
    # Only the few domains the prompt needs: a quarter of the time of all fifteen.
    found = memory_domains[:, wanted] * prompt_needs[wanted]
    # A kind of fact counts only when it matches on both sides: every "User ..." sentence is
    # a little like every prototype fact, and a little of many kinds would lift half the
    # profile into what the request needs ("User's name is Priya" for a cover letter).
    found[:, wanted >= len(DOMAINS)] *= found[:, wanted >= len(DOMAINS)] >= SHAPED_MIN
    return found.max(axis=1)


def shaped_need(prompt_needs: np.ndarray, memory_domains: np.ndarray) -> np.ndarray:
    """`need` through the kinds of facts that shape answers alone (recall.shaping), (n,)."""
    at = len(DOMAINS)
    if not memory_domains.size:
        return np.zeros(memory_domains.shape[0], dtype=np.float32)
    found = (memory_domains[:, at:] * prompt_needs[at:]).max(axis=1)
    return np.where(found >= SHAPED_MIN, found, 0.0)


# A request for personal help, as opposed to a question anyone could ask.
_PERSONAL = re.compile(
    r"\b(?:i|i'm|im|i've|i'd|i'll|me|my|mine|we|we're|our|us|myself)\b"
    # A request to the assistant ("Plan a weekend away", "Suggest some activities").
    r"|^\s*(?:please |can you |could you |would you )?(?:recommend|suggest|plan|help|find|"
    r"give|book|organi[sz]e|arrange|pick|choose|any (?:ideas|tips|advice|suggestions))\b"
    r"|\b(?:weather|near|nearby|local|tonight|tomorrow|best way)\b"
    # Occasions that are always someone's own: "what's a good anniversary gift idea?"
    r"|\b(?:anniversary|date night|birthday party)\b"
    r"|\bthis (?:weekend|week|evening|afternoon|morning)\b",
    re.IGNORECASE,
)
_GENERAL = re.compile(
    r"^\s*(?:what (?:is|are|was|were|does|do|did)\b(?! (?:i|we|my|our)\b)|who\b|when (?:was|were|"
    r"did|is)\b|why (?:is|are|do|does|did)\b|how (?:does|do|did|is|are|many|much|long|far|old)\b"
    r"(?! (?:i|we)\b)|explain\b|define\b|translate\b|convert\b|calculate\b|is it true\b|"
    r"tell me about\b|what's the (?:difference|meaning|capital)\b|summari[sz]e\b)",
    re.IGNORECASE,
)
# At most this many words, not opening as a question does: a query, not a sentence.
TERSE_WORDS = 5
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|me|my|we|our|us)\b", re.IGNORECASE)
# "US" in capitals is the country ("Which US states..."), not the pronoun.
_COUNTRY = re.compile(r"\bUS\b")


def _own_words(prompt: str) -> str:
    """The prompt without quotations (not the asker's words) and without the country "US"."""
    return _COUNTRY.sub("U.S.", _QUOTED.sub(" ", prompt))


# A question word this early makes a question: "at what age...", "in Python, what is...".
QUESTION_WORD_WITHIN = 4


def given_names() -> dict[str, str]:
    """The given names of `core/lexicons/given_names.txt`, lower-cased: a person's name."""
    return lexicon_names("given_names")


def asked_as_question(own: str) -> bool:
    """Whether the prompt is asked as a question: a verb before its subject ("is coffee...",
    "can cats...") or a question word among its first words ("how long...", "at what age..."),
    not a noun phrase ("dinner ideas")."""
    words = [
        word.strip("\"'\u201c(\u00bf,:") for word in own.lower().replace("\u2019", "'").split()
    ]
    if not words:
        return False
    return words[0] in lexicon("question_verbs") or bool(
        set(words[:QUESTION_WORD_WITHIN]) & lexicon("question_words")
    )


def reading(prompt: str) -> tuple[bool, bool]:
    """How the prompt reads, in one pass: (a request for personal help, a general question).

    A general question is one anyone could ask ("how long do cats live?"), with nothing of the
    person asking in it; a personal request asks for help with the user's own life. Quoted
    text is left out: "Translate 'I would like a tea' into German" is not about the user.
    A question mark changes nothing: assistants pass the user's message on as they got it, and
    "dinner ideas?" asks for the same help as "dinner ideas". What makes a general question is
    how it opens (an interrogative or an inverted verb), never its last character.
    """
    own = _own_words(prompt).strip().rstrip("?!. ").strip()
    question = asked_as_question(own)
    # A question asking for a judgement ("what's a good password manager", "is it ok to take
    # ibuprofen") is answered for the one who asks: advice, not knowledge. Not when it names
    # someone ("what does Jon think the ideal studio looks like"): then it asks about them.
    advice = (
        question
        and not any(name.lower() in given_names() for name in _NAME.findall(own))
        and bool(set(words_of(own)) & lexicon("judgements"))
    )
    # A terse query ("dinner ideas", "gift for mum", "editor config": what a tool-calling
    # model writes) is a request about this user, not a question anyone could ask.
    terse = 0 < len(words_of(own)) <= TERSE_WORDS and not question
    asks = bool(_PERSONAL.search(own)) or terse or advice
    if _FIRST_PERSON.search(own) or advice:
        general = False
    else:
        general = bool(_GENERAL.search(own)) or (question and not asks)
    return (not general and asks), general


def asks_judgement(prompt: str) -> bool:
    """Whether the prompt asks for a judgement of something for the one asking ("is it safe
    for me to use the sauna", "is the new phone worth it"): a question using a word of
    `judgements`. Its answer turns on the user's standing facts, whatever words it uses."""
    own = _own_words(prompt).strip().rstrip("?!. ").strip()
    return asked_as_question(own) and bool(set(words_of(own)) & lexicon("judgements"))


def episodic(prompt: str) -> bool:
    """Whether a question asks about an event without naming any: what happened ("what was
    discussed in the workshop?", "what area was hit by a flood?") or when something happens
    ("when's choir practice?"), by a word of `event_cues` among its first words, and no name
    past its start. The event may be one of the user's life; one naming a place or a person
    of history ("when did the Berlin Wall fall?", "who was Cleopatra?") is the world's."""
    own = _own_words(prompt)
    words = [word.strip("\"'\u201c(,:") for word in own.lower().replace("\u2019", "'").split()]
    return bool(set(words[:QUESTION_WORD_WITHIN]) & lexicon("event_cues")) and not names(own)


def about_self(prompt: str, people: frozenset[str] = frozenset(), people_need: float = 0.0) -> bool:
    """Whether the prompt asks about the user themself ("where do i live?", "help me write a
    cover letter", "good gloves for outdoor jobs?", "User's current place of employment"):
    it names none of their people and speaks of no one else. No relation ("mum", "sister's",
    "dog": `people`; "my other half": `relation_idioms`), no pronoun of another or of a group
    with the user (`others_pronouns`: "get her", "should we"), no name (a capitalised word
    that is not a day or a month, or one of `people`, the names the user's memories give their
    people), and not needing their people by what it means (`people_need`, "what's a good
    anniversary gift idea?"). Such a prompt is answered by the user's own facts first. A word
    of the family domain does not decide it: "when's my due date?" or "plan my weekend" use
    "date" and "weekend" and still ask about the user."""
    if people_need >= PEOPLE_NEED:
        return False
    words = [word.removesuffix("'s").removesuffix("'") for word in words_of(_own_words(prompt))]
    if people & set(words) or set(words) & lexicon("others_pronouns"):
        return False
    if person_names(_QUOTED.sub(" ", prompt)):
        return False
    padded = f" {' '.join(words)} "
    return not any(
        f" {person} " in padded for person in lexicon("people") | lexicon("relation_idioms")
    )


def is_general(prompt: str) -> bool:
    """Whether the prompt is a question anyone could ask (see `reading`)."""
    return reading(prompt)[1]


def is_personal(prompt: str) -> bool:
    """Whether the prompt asks for help with the user's own life (see `reading`)."""
    return reading(prompt)[0]


_NAME = re.compile(r"(?<=[^.!?]\s)[A-Z][a-z]+")
# A name followed by a surname ("Terry Pratchett", "Oscar Peterson"): someone the world knows
# by full name, where the user's own people go by their first name.
_FULL_NAME = re.compile(r"\b([A-Z][a-z]+) (?=[A-Z][a-z]+)")


def names(prompt: str) -> list[str]:
    """Capitalised words past a sentence's start: names ("When did Caroline move?")."""
    return _NAME.findall(_QUOTED.sub(" ", prompt))


def full_name_firsts(prompt: str) -> set[str]:
    """The first names of the full names a prompt uses ("Terry" of "Terry Pratchett")."""
    return set(_FULL_NAME.findall(_QUOTED.sub(" ", prompt)))
