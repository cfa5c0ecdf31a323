"""The grounding check: a candidate an LLM proposes is stored only if the user said it.

It runs after the model's reply is parsed and before anything is decided (pipeline step 3). A
candidate is repaired where a closed-class rewrite is enough, else refused with a reason:
- `first_person`: a caption in the user's own words ("I'm lactose intolerant", "my partner
  is a nurse") is turned to the third person ("User is lactose intolerant", "User's partner is
  a nurse"); one that cannot be is refused;
- `no_value`: a caption that names a topic and not its value ("User's vegan lifestyle",
  "User's dog's name"), or ends before it ("User loves", `memories.values.lacks_value`),
  takes the full text when that is a whole statement, else is refused;
- `not_about_user`: general knowledge or an answer to the user's question ("The capital of
  France is Paris.");
- `not_durable`: a request, a question or a passing state ("User wants to know how a mortgage
  works", "User is tired today");
- `ungrounded`: a value the user never wrote: not in the user's own messages (the assistant's
  turns, the prompt's examples and messages that instruct the extractor do not count);
- `misattributed`: a fact "about the user" whose value the user said only of someone else
  ("my gf priya ... shes vegan" is not "User is vegan"): it becomes the clause reader's
  caption of that person's fact where the reader has one, else it is refused.

Every word list is a lexicon file (`core/lexicons/`). The check is pure: the caller counts
the refusals (the job's `candidates_refused`, the metric `memory_candidates_refused`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from functools import cache

from core.lexicon import has_phrase, lexicon
from core.words import stem, words_of
from extraction.candidates import Candidate
from extraction.clauses import (
    clauses_read,
    first_person_in,
    opens_without_i,
    without_fillers,
)
from extraction.people import mention_at, third_person_verb, together
from extraction.reader import read_statements
from extraction.wording import (
    hyphen_parts,
    names_written,
    passing,
    text_tidied,
    third_person,
    tidy_caption,
    verb_agreed,
)
from memories.comparison import Verdict, compare
from memories.facets import facets_read
from memories.text import CAPTION_MAX_LENGTH, names_the_user, states_a_fact, text_clean
from memories.values import lacks_value

# A capitalised word after the first: a name the user must have written ("Tom", "McDonald's",
# "PhD", "YouTube").
_NAME = re.compile(r"(?<!^)\b[A-Z][\w'\u2019-]*")


@dataclass(frozen=True)
class Grounded:
    """The candidate to keep (possibly repaired), or None and why it was refused."""

    candidate: Candidate | None
    reason: str = ""


def _same(word: str) -> frozenset[str]:
    """The stems a word grounds: its own, and those of the words that mean the same."""
    return _same_stems().get(word, frozenset({stem(word, loose=True)}))


@cache
def _same_stems() -> dict[str, frozenset[str]]:
    """Each word of a same-words group to the stems of its whole group."""
    stems: dict[str, frozenset[str]] = {}
    for group in lexicon("same_words"):
        members = group.split()
        for member in members:
            stems[member] = stems.get(member, frozenset()) | {stem(m, loose=True) for m in members}
    return stems


def _negative(text: str) -> bool:
    return has_phrase(text, "negations") or "n't" in text.lower().replace("\u2019", "'")


@dataclass(frozen=True)
class Evidence:
    """What the user stated: the stems of their statements, and the negative statements."""

    stems: frozenset[str]
    # The words of each negative clause, in order.
    negative: tuple[tuple[str, ...], ...] = ()
    # People the user named with their relation ("my colleague Tom"): name -> relation.
    relations: tuple[tuple[str, str], ...] = ()
    # Whether the user speaks of themselves or their people at all ("I", "my", "we", "my
    # sister", "moved to Lisbon!"): "octopuses have three hearts" grounds no fact about them.
    personal: bool = True
    # The statements the user corrected right after ("I live in Hamburg" in "I live in
    # Hamburg. Actually no, Bremen").
    withdrawn: tuple[str, ...] = ()
    # The words the user wrote with a capital ("Anna"): a caption keeps their capital.
    written: tuple[tuple[str, str], ...] = ()
    # The parts of the user's hyphenated words they never wrote alone ("full" of "full-time"):
    # a caption with one has cut a word at its hyphen ("User is a full").
    cut: frozenset[str] = frozenset()
    # The user's statements as they said them: each kept candidate carries the one that
    # grounds it best (`Candidate.said`), for the change cues its caption may have lost.
    statements: tuple[str, ...] = ()
    # Each statement's words, and the captions the clause reader read in it (whom it is about).
    readings: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()

    def __contains__(self, stem: str) -> bool:
        return stem in self.stems


def user_evidence(
    messages: Iterable[dict], read: list[tuple[str, list[str]]] | None = None
) -> Evidence:
    """The evidence of the user's own messages: their statements, not their questions,
    requests or hypotheticals, nor messages that instruct the extractor. `read`: what the
    clause reader read in them (`read_statements(readings=...)`), when the caller has read them
    already; else they are read here."""
    messages = list(messages)
    clauses, withdrawn = clauses_read(messages)
    statements = [statement for _, statement in clauses if statement]
    stems = frozenset(
        same for clause in statements for word in words_of(clause) for same in _same(word)
    )
    negative = tuple(tuple(words_of(clause)) for clause in statements if _negative(clause))
    relations = []
    for clause in statements:
        for match in _NAMED.finditer(clause):
            relation = match.group(1).lower()
            if relation in lexicon("people"):
                relations.append((match.group(2), relation))
    personal = any(_personal(clause) for clause in statements)
    written, cut = tuple(names_written(statements).items()), hyphen_parts(statements)
    if read is None:
        read = []
        read_statements(messages, readings=read)
    readings = tuple(
        (tuple(words_of(statement)), tuple(captions)) for statement, captions in read if statement
    )
    return Evidence(
        stems,
        negative,
        tuple(relations),
        personal,
        tuple(withdrawn),
        written,
        cut,
        statements=tuple(statements),
        readings=readings,
    )


def _personal(clause: str) -> bool:
    """Whether a clause is about the user: a first-person word, one of the people in their
    life, or an opening that leaves out "I" ("moved to Lisbon!", "not a fan of ...")."""
    words = words_of(clause)
    if any(word in lexicon("first_person") or word in lexicon("people") for word in words):
        return True
    return opens_without_i(without_fillers(words))


# "my colleague Tom", "my best friend, Sam", "our dog called Rex".
_NAMED = re.compile(
    r"\b(?:[Mm]y|[Oo]ur)\s+([a-z]+(?:[ -][a-z]+)?),?\s+(?:(?:who is |named |called )\s*)?"
    r"([A-Z][a-z\u00c0-\u017f]+)\b"
)


def _theirs(caption: str, evidence: Evidence) -> str | None:
    """A caption about someone the user named with their relation, as theirs ("Tom loves
    sushi" after "my colleague Tom": "User's colleague Tom loves sushi"); None if none."""
    first = caption.split(" ", 1)[0].strip(",.")
    for name, relation in evidence.relations:
        if first == name:
            return f"User's {relation} {caption}"
    return None


def _negation_lost(caption: str, evidence: Evidence) -> bool:
    """A positive caption whose predicate the user said in the negative ("I don't like spicy
    food" read as "User likes spicy food")."""
    if _negative(caption):
        return False
    content = [stem(w, loose=True) for w in words_of(caption) if w not in lexicon("generic_words")]
    if not content:
        return False
    head, then = content[0], content[1:2]
    # The negation must come shortly before what it negates: "I don't like spicy food", not
    # "went vegan in january, never going back"; and what it negates is the caption's, its
    # next word following ("i hate the weekend shifts" does not negate "a shift manager").
    return any(
        _negated(clause, at)
        and (
            not then
            or any(stem(w, loose=True) in then for w in clause[at + 1 : at + 1 + _NEGATION_REACH])
        )
        for clause in evidence.negative
        for at, word in enumerate(clause)
        if stem(word, loose=True) == head
    )


_NEGATION_REACH = 4


def _negated(words: tuple[str, ...], at: int) -> bool:
    before = " ".join(words[max(0, at - _NEGATION_REACH) : at])
    return "n't" in before or has_phrase(before, "negations")


def _about_user(caption: str) -> bool:
    return names_the_user(caption)


def _repaired_caption(candidate: Candidate, evidence: Evidence) -> tuple[str, str]:
    """The caption to check, and why it was refused if it cannot be repaired."""
    caption = candidate.caption.strip()
    if not _about_user(caption):
        caption = _theirs(caption, evidence) or caption
    if first_person_in(caption):
        caption = third_person(caption)
    caption = verb_agreed(caption)  # "User go climbing" says a fact once its verb agrees
    if (
        not _about_user(caption)
        or not states_a_fact(caption)
        or _topic_only(caption)
        or lacks_value(caption)
    ):
        # The full text may carry the statement the caption lost ("I'm vegan" behind "User's
        # vegan lifestyle", "User loves pizza" behind "User loves"), in either person.
        full = candidate.full_text.strip()
        restated = third_person(full) if first_person_in(full) else full
        if (
            _about_user(restated)
            and states_a_fact(restated)
            and not lacks_value(restated)
            and len(restated) <= CAPTION_MAX_LENGTH
        ):
            return restated, ""
        if not _about_user(caption):
            return caption, "not_about_user"
        return caption, "no_value"
    if first_person_in(caption):
        return caption, "first_person"
    return caption, ""


def _topic_only(caption: str) -> bool:
    """A possessive noun phrase that ends in the kind of fact (a lexicon of topic nouns) with no
    verb of its own: "User's vegan lifestyle", "User's partner's occupation"."""
    words = words_of(caption)
    if not words or words[0] not in {"user's", "user\u2019s"}:
        return False
    auxiliary = {"is", "are", "was", "were", "has", "have", "had", "does", "did", "can", "will"}
    return words[-1] in lexicon("topic_nouns") and not auxiliary & set(words)


def ground(candidate: Candidate, evidence: Evidence) -> Grounded:
    """Keep, repair or refuse one candidate against the stems of the user's own words."""
    # Read as it would be stored ("Ber\u200blin" is "Berlin"), as the user's words are read.
    candidate = replace(
        candidate,
        caption=text_clean(candidate.caption, lines=False),
        full_text=text_clean(candidate.full_text),
    )
    caption, reason = _repaired_caption(candidate, evidence)
    if reason:
        return Grounded(None, reason)
    caption = tidy_caption(caption, dict(evidence.written))
    if has_phrase(caption, "not_durable") or passing(caption):
        return Grounded(None, "not_durable")
    if set(words_of(caption)) & evidence.cut:
        return Grounded(None, "ungrounded")  # a word cut at its hyphen is not what was said
    content = [w for w in words_of(caption) if w not in lexicon("generic_words") and len(w) > 1]
    said = [w for w in content if stem(w, loose=True) in evidence]
    # Every name must be the user's (the prompt's "Rex" is not); the rest mostly.
    names = {stem(w, loose=True) for name in _NAME.findall(caption) for w in words_of(name)}
    names.discard("user")
    if not content or not said or any(name not in evidence for name in names):
        return Grounded(None, "ungrounded")
    if len(said) * 2 < len(content):
        return Grounded(None, "ungrounded")
    if not evidence.personal:
        return Grounded(None, "not_about_user")
    if _negation_lost(caption, evidence):
        return Grounded(None, "negation_lost")
    attributed, moved = _attributed(caption, evidence)
    if attributed is None:
        return Grounded(None, "misattributed")
    if moved:  # the model's full text is still about the user
        return Grounded(replace(candidate, caption=attributed, full_text=f"{attributed}."))
    full_text = candidate.full_text
    if first_person_in(full_text):
        full_text = third_person(full_text)
    # The full text without the chat the caption dropped: the facets read both.
    full_text = text_tidied(full_text, dict(evidence.written))
    return Grounded(
        replace(
            candidate,
            caption=caption,
            full_text=full_text or caption,
            said=candidate.said or _said_in(caption, evidence) or "",
        )
    )


def _said_in(caption: str, evidence: Evidence) -> str | None:
    """The user's statement that grounds the caption best (most stems in common), if any."""
    mine = {stem(w, loose=True) for w in words_of(caption) if w not in lexicon("generic_words")}
    best, shared = None, 0
    for statement in evidence.statements:
        found = len(mine & {stem(w, loose=True) for w in words_of(statement)})
        if found > shared:
            best, shared = statement, found
    return best


def _alone(caption: str) -> bool:
    """Whether a caption is about the user alone: "User ...", not "User's ..." (someone of
    theirs) nor "User and ..." (a fact of two)."""
    words = words_of(caption)
    return len(words) > 1 and words[0] == "user" and words[1] != "and"


def _third_person(word: str) -> bool:
    """ "she", "he", "they" and their contractions ("she's", "they're")."""
    return word.split("'")[0] in lexicon("subject_pronouns") - lexicon("user_subjects") - {"you"}


def _subject_before(words: tuple[str, ...], at: int) -> str | None:
    """Whom the words before `at` make the subject there, the nearest first: "user" ("i",
    "we"), "other" ("she", "my sister is"), "joint" ("me and my gf are", "tom and i"), or
    None when the clause names no subject (chat leaves the "I" out)."""
    text = " ".join(words)
    for back in range(at - 1, -1, -1):
        word = words[back]
        joined = back >= 2 and words[back - 1] == "and"
        if word in lexicon("user_subjects") or word == "me":
            return "joint" if joined else "user"
        if _third_person(word):
            return "other"
        if word in {"my", "our"}:
            mention = mention_at(text, back)
            follows = words[mention.end] if mention and mention.end < len(words) else ""
            if mention and follows and third_person_verb(follows):
                pair = words[max(0, back - 2) : back]
                return "joint" if pair[-1:] == ["and"] and pair[0] in {"i", "me"} else "other"
    if together(text) is not None:
        return "joint"
    return None


def _covers(caption: str, value: list[str]) -> float:
    """How much of a value a caption says, by stems."""
    said = {stem for word in words_of(caption) for stem in _same(word)}
    return sum(stem(word, loose=True) in said for word in value) / len(value)


# The words of a clause that echoes the fact before it for the user ("i am too", "like me",
# "so do i", "me as well"), besides the user.
_ECHO = frozenset(
    {"too", "also", "as", "well", "either", "same", "here", "so", "and", "but", "like"}
    | {"am", "is", "are", "do", "does", "have", "has", "can", "did", "was"}
)


def _echoes_user(words: Iterable[str]) -> bool:
    """Whether words say the user shares the fact just said ("my sister is vegan, i am too"):
    nothing but the user and the words of an echo."""
    words = [w for w in words if w not in lexicon("fillers")]
    mine = [w for w in words if w not in _ECHO]
    return bool(mine) and all(w in lexicon("user_subjects") or w == "me" for w in mine)


def _attributed(caption: str, evidence: Evidence) -> tuple[str | None, bool]:
    """The caption as the user's clauses attribute it, and whether it changed. A caption
    about the user alone whose value the user said only of someone else ("shes vegan" after
    "my gf priya", "my sister is a nurse", "me and my gf are planning a trip") is the clause
    reader's caption of that fact (`reader.read_statements`), or None when the reader read
    none: the model's "User is vegan" is advice, the clause says whose fact it is. The people
    a caption names are not its value ("User lives with their mum")."""
    if not _alone(caption):
        return caption, False
    value = [
        w
        for w in words_of(caption)
        if w not in lexicon("generic_words") and w not in lexicon("people") and len(w) > 1
    ]
    if not value:
        return caption, False
    stems = {stem(word, loose=True) for word in value}
    kinds: set[str | None] = set()
    best, best_cover = "", 0.0
    readings = evidence.readings
    for index, (words, captions) in enumerate(readings):
        found = [at for at, word in enumerate(words) if stems & _same(word)]
        if not found:
            continue
        readable = [c for c in captions if not any(_third_person(w) for w in words_of(c))]
        scored = sorted(((_covers(c, value), c) for c in readable), reverse=True)
        covering = [c for cover, c in scored if cover >= 0.5 and cover == scored[0][0]]
        covering.sort(key=_alone, reverse=True)  # the user's own reading first
        after = readings[index + 1][0] if index + 1 < len(readings) else ()
        for at in found:
            kind = _subject_before(words, at)
            if kind is None and covering:  # no subject written: whom the reader read it of
                kind = "user" if any(_alone(c) for c in covering) else "other"
            if _echoes_user(words[found[-1] + 1 :]) or _echoes_user(after):
                kind = "user"  # "my sister is vegan, like me"
            elif kind == "joint" and {"both", "each"} & set(words):
                kind = "user"  # "my husband and i are both teetotal": each of them is
            kinds.add(kind)
        if covering and scored[0][0] > best_cover:
            best, best_cover = covering[0], scored[0][0]
    if not kinds or kinds & {"user", None}:
        return caption, False
    if best and not _alone(best):
        return best, True
    if best or "joint" in kinds:
        return caption, False  # a state the user shares ("my partner and I are both vegan")
    return None, False


def candidates_ground(
    candidates: Iterable[Candidate],
    messages: Iterable[dict],
    *,
    read: list[tuple[str, list[str]]] | None = None,
) -> tuple[list[Candidate], dict[str, int]]:
    """The candidates the user's messages ground, and the refusals counted by reason (`read`:
    see `user_evidence`)."""
    evidence = user_evidence(messages, read)
    kept: list[Candidate] = []
    refused: dict[str, int] = {}
    for candidate in candidates:
        grounded = ground(candidate, evidence)
        if grounded.candidate is None:
            refused[grounded.reason] = refused.get(grounded.reason, 0) + 1
        else:
            kept.append(grounded.candidate)
    corrected = [c for c in kept if _taken_back(c, kept, evidence.withdrawn)]
    if corrected:
        refused["corrected"] = len(corrected)
    return [c for c in kept if c not in corrected], refused


def _taken_back(candidate: Candidate, kept: list[Candidate], withdrawn: tuple[str, ...]) -> bool:
    """Whether the user took the candidate's fact back in the same conversation: it
    contradicts another candidate, and its value is in a statement they corrected ("I live in
    Hamburg. Actually no, I live in Bremen") while the other's is not. A small model often
    keeps both; the correction wins."""
    if not withdrawn:
        return False
    facets = facets_read(candidate.caption)
    said = {word for statement in withdrawn for word in words_of(statement)}
    mine = {word for facet in facets for word in facet.value.split()}
    if not any(_in_words(word, said) for word in mine):
        return False
    for other in kept:
        if other is candidate:
            continue
        others = facets_read(other.caption)
        found = compare(facets, others)
        if found is None or found.verdict != Verdict.CONTRADICTS:
            continue
        if not any(_in_words(word, said) for facet in others for word in facet.value.split()):
            return True
    return False


def _in_words(value_word: str, words: set[str]) -> bool:
    return any(word.startswith(value_word) for word in words)
