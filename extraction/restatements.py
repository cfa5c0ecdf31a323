"""A restatement in other words: the new fact says nothing the stored one does not, read by the
linker (`extraction.updates.Reading`) when the facets cannot read both sides ("not a coffee
drinker" and "doesn't drink coffee", "my go-to breakfast is porridge" and "porridge for
breakfast every day").

It is evidence for a merge (`extraction.merge_evidence.same_fact`), so it keeps every fact: each
side holds each content word of the other (the words, or a broader kind of them), of the same
person and polarity, and the new one announces no change, correction or addition, nor either
a wish. Another person, pet, number or name is another word, so it never merges.
"""

from __future__ import annotations

import re
from functools import cache

from core.lexicon import lexicon
from core.words import words_of
from extraction.people import one_of_theirs
from extraction.updates import THEIRS, Reading, closure, lemma, link
from extraction.verbs import base_form, finite, gerund
from extraction.word_alignment import (
    WordSimilarity,
    counterparts,
    siblings,
    word_similarity,
)

# Cosine at or above which two wordings of one person's fact that differ in a word or two
# each are one fact (`reworded`; measured on the dev splits of bench/data/conflicts_*.jsonl:
# restatements in other words sit at 0.77-0.93, and the closest pair the rules do not read as
# a contradiction or keep apart at 0.76: see docs/benchmarks.md).
REWORDED_SIMILARITY = 0.77
# At most this many content words of either wording that the other does not say.
REWORDED_WORDS = 2
# Cosine at or above which an LLM's "same" may merge two wordings that `reworded` does not
# read as one fact, when the words bear it out (`advised_rewording`). On the labelled captions
# of the dev splits (dev, chat-dev, heldout2, heldout3), every pair answered "same", the gate
# merges 41 of 84 restatements against 37 without it, and no compatible pair or contradiction
# more (1 of 172 contradictions before and after; docs/benchmarks.md, session 39).
ADVISED_SIMILARITY = 0.5
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _holds(kept: Reading, other: Reading) -> bool:
    """Whether the kept wording says each content word of the other, or a broader kind of it,
    and each of its cue words: "User sells teapots" is not "User restores teapots", though
    "sell" (a change cue, as in "sold the car") is no word the linker links on."""
    return (
        bool(other.words)
        and other.words <= kept.concepts
        and other.people <= kept.people
        and other.cued <= kept.cued
    )


def restated_in_words(new: Reading, old: Reading, kept: Reading | None = None) -> bool:
    """Whether the two say the same in other words, so that merging them loses nothing: the
    same person and polarity, no cue on the new one, and each holds the other's content words.

    `kept` is the wording a merge keeps (the longer, as `memories.services.memories.memory_merge`
    does): when given, it alone must hold the other's content words, so a restatement that
    adds a detail ("User's cat Luna is a tabby" of "User's cat is Luna", "has banked with
    Lloyds since age 16" of "banks with Lloyds") merges into the wording that keeps the
    detail. The caller passes it for a new wording only: a new fact inside a longer stored
    one ("fully remote" in "a data analyst at a charity, fully remote") is its own."""
    if not same_one(new, old) or new.negative != old.negative:
        return False
    if new.ends or new.starts or new.corrects or new.additive or new.wish or old.wish:
        return False
    if new.scopes != old.scopes:
        return False  # "at work" and "at home" are two facts
    if kept is not None:
        return _holds(kept, old if kept is new else new)
    return _holds(new, old) and _holds(old, new)


def same_one(new: Reading, old: Reading) -> bool:
    """Whether the two are about one person or pet: the same subject, or a pet and a breed of
    it that one name names ("User's dog is called Biscuit" and "User's corgi Biscuit has ...":
    a corgi is a dog, `kinds.txt`), or the user's fact that names that one ("User has got a
    dog called Noodle"). Two pets of one kind and no name said are not one."""
    if new.subject == old.subject:
        return True
    if "user" in (new.subject, old.subject):
        # "User has got a dog called Noodle": the user's fact names the pet it is about.
        pet, own = (new, old) if old.subject == "user" else (old, new)
        if not pet.people & own.concepts:
            return False
    elif not (old.people <= new.concepts or new.people <= old.concepts):
        return False
    named = _named(new) | _named(old)
    return bool(named & new.words & old.words - new.people - old.people)


def _named(reading: Reading) -> set[str]:
    """The lemmas of the names a reading says: capitalised, or right after whom it is about
    ("User's tabby luna ...")."""
    return _names(reading) | _after_subject(reading)


def _after_subject(reading: Reading) -> set[str]:
    """The content word right after whom a reading is about: their name ("luna" of "User's
    tabby luna is obsessed with boxes")."""
    said = words_of(reading.text)
    subject = reading.subject.split()
    after = {
        lemma(said[at + len(subject)])
        for at in range(len(said) - len(subject))
        if said[at : at + len(subject)] == subject
    }
    return {word for word in after if word in reading.words}


def _names(reading: Reading) -> set[str]:
    """The lemmas of the words a reading's text capitalises after its first: names."""
    return {lemma(w.lower()) for w in reading.text.split()[1:] if w[:1].isupper()
            and w.lower() != "user" and words_of(w)} - {"i"}  # fmt: skip


def _apart(words: frozenset[str], reading: Reading, other: Reading) -> bool:
    """Whether words one wording says and the other does not could state another fact: a
    number, a name, another value of a kind the other states, or a verb of its own ("rents"
    where the other "owns": the other's relation verb is no content word, so it is not said
    to differ)."""
    if len(words) > REWORDED_WORDS:
        return True
    if any(any(ch.isdigit() for ch in word) for word in words) or words & _names(reading):
        return True
    if any(_verb_of_its_own(word, reading) for word in words):
        return True
    return any((closure([word]) - {word}) & other.concepts for word in words)


@cache
def _relation_lemmas() -> frozenset[str]:
    """The lemmas of the verbs that only tie a person to a thing (`relation_verbs.txt`)."""
    return frozenset(lemma(verb) for verb in lexicon("relation_verbs"))


def _verb_of_its_own(word: str, reading: Reading) -> bool:
    """Whether a lemma is said as a verb in its wording, one that does more than tie the
    person to a thing (`core/lexicons/relation_verbs.txt`)."""
    if word in _relation_lemmas():
        return False
    return any(
        lemma(said) == word and (finite(said) or base_form(said) or gerund(said))
        for said in words_of(reading.text)
    )


def reworded(
    new: Reading, old: Reading, similarity: float, similar: WordSimilarity = word_similarity
) -> bool:
    """Whether the new wording restates the old one though their words differ in part (see
    the module docstring): the same person and polarity, no cue, the same scope, linked, at
    or above REWORDED_SIMILARITY, and no number, name or other value apart. A word each side
    says that has a counterpart of the same meaning on the other ("ads" and "adverts",
    `extraction.word_alignment`) is no word apart."""
    if similarity < REWORDED_SIMILARITY or new.subject != old.subject:
        return False
    if new.negative != old.negative or new.scopes != old.scopes:
        return False
    if new.ends or new.starts or new.corrects or new.additive or new.wish or old.wish:
        return False
    if link(new, old, similarity) in {"", THEIRS}:
        return False
    if new.values and old.values and new.values != old.values:
        return False  # another value of what holds one at a time ("vegetarian", "vegan")
    # One wording holds every word of the other: what differs is a detail one of them adds,
    # never a word each ("collects antique clocks" and "repairs antique clocks").
    extra_new, extra_old = new.words - old.concepts, old.words - new.concepts
    if extra_new and extra_old:
        # A verb that only ties the person to the thing ("uses" and "runs" Arch) is no word
        # apart when each side says one; "rents" against "owns" is another relation.
        relation = _relation_lemmas()
        if extra_new & relation and extra_old & relation:
            extra_new, extra_old = extra_new - relation, extra_old - relation
        # Words of one meaning, one on each side, are no word apart.
        extra_new, extra_old = (
            extra_new - counterparts(extra_new, new, extra_old, old, similar),
            extra_old - counterparts(extra_old, old, extra_new, new, similar),
        )
    if extra_new and extra_old:
        return False
    if extra_new:
        return old.cued <= new.cued and not _apart(extra_new, new, old)
    if not extra_old:
        return new.cued == old.cued  # "has the car" is not "sells the car"
    return new.cued <= old.cued and not _apart(extra_old, old, new)


def _numbers(text: str) -> set[str]:
    return {number.replace(",", "") for number in _NUMBER.findall(text)}


def _values_kept(kept: Reading, dropped: Reading) -> bool:
    """Whether each number and name of the wording a merge drops is in the one it keeps."""
    return _numbers(dropped.text) <= _numbers(kept.text) and _names(dropped) <= (
        _names(kept) | kept.words
    )


def _one_fact_said(new: Reading, old: Reading, similarity: float, floor: float) -> bool:
    """What every reading of one fact said twice needs: at or above `floor`, the same polarity
    and scope, no cue on the new wording (an end, a start, a correction, a replacement, "also")
    and no wish on either."""
    return not (
        similarity < floor
        or new.negative != old.negative
        or new.scopes != old.scopes
        or new.ends
        or new.starts
        or new.corrects
        or new.replaces
        or new.additive
        or new.wish
        or old.wish
    )


def advised_rewording(
    new: Reading,
    old: Reading,
    similarity: float,
    *,
    new_kept: bool,
    similar: WordSimilarity = word_similarity,
) -> bool:
    """Whether the words bear out an LLM's "same" for two wordings that `reworded` does not
    read as one ("User uses Ubuntu on their laptop" and "User mentioned their laptop runs
    Ubuntu"): evidence the model's word alone never gives. The same person, polarity and scope,
    no cue on the new one, linked, at or above ADVISED_SIMILARITY; each number and name of the
    wording a merge drops is in the one it keeps (`new_kept`: the longer), and so is each of
    its content words, or a counterpart of one meaning (`word_alignment.counterparts`); what
    the kept one adds is a detail, never a verb of its own, another member of a kind the other
    states or another point of its scale. Two facts or two values of one thing never merge."""
    if not _one_fact_said(new, old, similarity, ADVISED_SIMILARITY) or new.subject != old.subject:
        return False
    if link(new, old, similarity) in {"", THEIRS}:
        return False
    if new.values and old.values and new.values != old.values:
        return False
    kept, dropped = (new, old) if new_kept else (old, new)
    if not _values_kept(kept, dropped):
        return False
    relation = _relation_lemmas()
    extra_new, extra_old = new.words - old.concepts - relation, old.words - new.concepts - relation
    extra_new, extra_old = (
        extra_new - counterparts(extra_new, new, extra_old, old, similar),
        extra_old - counterparts(extra_old, old, extra_new, new, similar),
    )
    if extra_old if new_kept else extra_new:
        return False  # a word the merge would drop: another fact, or a value of this one
    for words, mine, other in ((extra_new, new, old), (extra_old, old, new)):
        for word in words:
            if _verb_of_its_own(word, mine) or (closure([word]) - {word}) & other.concepts:
                return False
            if any(siblings(word, theirs) for theirs in other.words):
                return False
    return True


# Cosine at or above which a fact said as a slot ("User's usual spot is whitby pier") restates
# one that says its value with a verb ("User goes sea fishing off the pier at whitby"), when
# every word of the value is said in the other (`slot_restated`; measured on the dev splits of
# bench/data/conflicts_*.jsonl, dev5 included: the restatements sit at 0.66-0.86, and no
# compatible pair or contradiction of that shape reaches it: docs/benchmarks.md, session 40).
SLOT_RESTATED_SIMILARITY = 0.6


def slot_restated(new: Reading, old: Reading, similarity: float) -> bool:
    """Whether one of the two says the other's value again as a slot of the user's ("User's
    favourite thing is hiking" of "User loves hiking", "User's everyday uniform is dresses" of
    "User wears dresses pretty much every day"): the same person and polarity, no cue, the
    same scope, linked, at or above SLOT_RESTATED_SIMILARITY, every content word of the slot's
    value said by the other, and no number or name of the other left out of the slot's side.
    The slot's own words say how the value is the user's, not another value of it."""
    if not _one_fact_said(new, old, similarity, SLOT_RESTATED_SIMILARITY):
        return False
    if new.subject != old.subject or link(new, old, similarity) in {"", THEIRS}:
        return False
    if bool(new.slot) == bool(old.slot):
        return False  # two slots are one slot or two values of it (`cued_changes`)
    slotted, other = (new, old) if new.slot else (old, new)
    if not slotted.slot_value or not slotted.slot_value <= other.words:
        return False
    if not _numbers(other.text) <= _numbers(slotted.text):
        return False
    return _names(other) <= _names(slotted) | slotted.words


# Cosine at or above which a wording that names the same thing as a stored fact and says more
# about it is that fact told again (`named_again`; measured on the dev splits of
# bench/data/conflicts_*.jsonl, dev5 included: docs/benchmarks.md, session 40).
NAMED_AGAIN_SIMILARITY = 0.6


def named_again(new: Reading, old: Reading, similarity: float, *, new_kept: bool) -> bool:
    """Whether the new wording names what the old one names and says more about it ("User's
    bank is Lloyds" and "User has been with lloyds since they were 16", "User's favourite book
    is Dune" and "User's all-time fav novel has to be Dune by Frank Herbert"): an elaboration,
    merged into the wording a merge keeps (`new_kept`: the longer). The caller asks only of a
    fact stored before this conversation (`merge_evidence.said_before`). The name is what the
    fact is about, not whom: "User's cat Miso is diabetic" and "User's cat Miso needs insulin"
    are two facts of Miso. The same person or pet,
    polarity and scope, no cue, linked, at or above NAMED_AGAIN_SIMILARITY, a name both say;
    each number and name of the wording the merge drops is in the one it keeps, and so is
    each of its verbs ("lives in Leeds" is not "works in Leeds") and whom or what it says the
    name is ("a cat called Mochi", `people.one_of_theirs`); no other value of what
    holds one at a time, no other member of a kind or point of a scale the other states."""
    if not _one_fact_said(new, old, similarity, NAMED_AGAIN_SIMILARITY):
        return False
    if not same_one(new, old) or link(new, old, similarity) == "":
        return False
    if new.values and old.values and new.values != old.values:
        return False
    # A name the fact is about, not whom it is about: "User's cat Miso is diabetic" and
    # "User's cat Miso needs insulin" are two facts of Miso.
    about = _after_subject(new) | _after_subject(old) | new.people | old.people
    if not (_names(new) | _names(old)) & new.words & old.words - about:
        return False
    kept, dropped = (new, old) if new_kept else (old, new)
    if not _values_kept(kept, dropped):
        return False
    if not dropped.cued <= kept.cued:
        return False  # "has the car" is not "sells the car"
    extra = dropped.words - kept.concepts - _relation_lemmas()
    if any(_verb_of_its_own(word, dropped) or word == _lead_verb(dropped) for word in extra):
        return False
    if any(one_of_theirs(word) for word in extra):
        return False  # who or what the name is ("a cat called Mochi") is never folded away
    # A fact of a verb ("repairs antique teapots from Lisbon") folds in only what the kept
    # wording says in other words: its objects are values, and another is another fact. A
    # slot ("User's supermarket is Booths") may leave out the kind of thing the name is.
    if _lead_verb(dropped) and extra - counterparts(extra, dropped, kept.words, kept):
        return False
    # Two verbs that tie the person to it ("owns" and "rents", "goes to" and "works at").
    verbs = (_lead_verb(new), _lead_verb(old))
    if all(verbs) and not (verbs[0] in old.concepts or verbs[1] in new.concepts):
        return False
    for word in dropped.words ^ kept.words:
        other = kept if word in dropped.words else dropped
        if (closure([word]) - {word}) & other.concepts:
            return False
        if any(siblings(word, theirs) for theirs in other.words):
            return False
    return True


def _lead_verb(reading: Reading) -> str:
    """The lemma of the word after "User" and its adverbs ("host" of "User always hosts
    christmas at theirs"): the caption's verb, though no verb lexicon lists it; none for a
    copula or an auxiliary ("User is ...", "User has been ...")."""
    said = words_of(reading.text)
    at = 1
    while at < len(said) and said[at] in lexicon("adverbs"):
        at += 1
    if said[:1] != ["user"] or at == len(said):
        return ""
    tied = lexicon("copulas") | lexicon("auxiliaries") | {"has", "got", "does"}
    return "" if said[at] in tied else lemma(said[at])


# Cosine at or above which two wordings of one person's fact, with no cue, no other polarity,
# scope, value or verb and no number or name of the dropped wording left out of the kept one,
# are one fact said again whatever their words (`restated_close`). Measured on the dev splits
# of bench/data/conflicts_*.jsonl (dev, chat-dev, heldout2, heldout3, dev5): the restatements
# it merges sit at 0.70-0.85; at 0.65 and 0.6 it merges a contradiction each and no more
# restatements (docs/benchmarks.md, session 41).
RESTATED_SIMILARITY = 0.7


def restated_close(new: Reading, old: Reading, similarity: float, *, new_kept: bool) -> bool:
    """Whether the embedder puts two wordings of one person's fact so close that the new one
    is the old one said again ("User doesn't drink coffee" and "User is not a coffee person at
    all", "User is a Halloween baby" and "User's birthday falls on halloween every year"):
    learned similarity rather than a rule for each phrasing, so it carries to topics no rule
    was written for. The caller asks only of a fact stored before this conversation
    (`merge_evidence.said_before`): two facts said together were said apart. Only the user's
    own facts: of a person of theirs, whom both are about brings the wordings close by itself.
    What structure says is another fact keeps both: another polarity or scope, a cue (an end,
    a start, a correction, "also"), a wish, another value of what holds one at a time, a word
    one side negates, another verb tying the person to it, a number or name of the wording
    the merge drops (`new_kept`: the longer) missing from the one it keeps, or a cue word of
    the dropped one ("sells")."""
    if not _one_fact_said(new, old, similarity, RESTATED_SIMILARITY):
        return False
    # Of a person of the user's, whom both are about brings the wordings close by itself
    # ("User's father has Parkinson's", "User's father uses a wheelchair": two facts).
    if new.subject != "user" or old.subject != "user" or link(new, old, similarity) in {"", THEIRS}:
        return False
    if new.values and old.values and new.values != old.values:
        return False
    # A word one wording says and the other negates ("burns pasta" and "ideas that aren't
    # pasta"): the same polarity overall, but not the same fact.
    denied_new, denied_old = _negated_words(new), _negated_words(old)
    if (denied_new - denied_old) & old.words or (denied_old - denied_new) & new.words:
        return False
    # A verb of its own on either side ("spends Christmas at their parents'" and "hosts
    # christmas at theirs", "has a full beard" and "shaved off their beard"): another fact
    # or a change, however close the wordings.
    for mine, other in ((new, old), (old, new)):
        verb = _lead_verb(mine)
        if verb and verb not in other.concepts:
            return False
    kept, dropped = (new, old) if new_kept else (old, new)
    return _values_kept(kept, dropped) and dropped.cued <= kept.cued


def _negated_words(said: Reading) -> set[str]:
    """The lemmas of the few words after a negator of its caption ("pasta" of "ideas that
    aren't pasta"; `core/lexicons/negators.txt`)."""
    words = words_of(said.text)
    negators = lexicon("negators")
    return {
        lemma(word)
        for at, negator in enumerate(words)
        if negator in negators
        for word in words[at + 1 : at + 4]
    } & said.words
