"""Reading a memory's text as statements: whose fact, which attribute, what value, which way.

"User lives in Munich", "User said they recently relocated to Munich" and "The user mentioned
living in Munich" all read as (user, residence, munich). The offline judge compares such
readings instead of strings, so it follows the words people and LLMs really use:

- `subject`: "user", or the other person the fact is about ("sister", "friend", "anna");
  facts about different people never conflict.
- `attribute` and `value`: a catalogue entry. Single-valued attributes (where the user lives,
  employer, role, relationship status, partner, age, diet, a pet's name, a favourite thing of
  a kind, editor, theme...) hold one value at a time; polar ones ("practice" of a habit, tool
  or goal, "sentiment" about a thing, an allergy, having children) conflict by polarity.
- `positive`: False for "no longer", "quit", "stopped", "does not", "has no"...
- cues: `change` (moved, switched, quit, just turned, now...), `past` (used to, grew up,
  previously) and `additive` (also, another, a second...).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from extraction.catalogue import CATALOGUE, SINGLE_VALUED, pet_kind
from extraction.vocabulary import FAMILY, PETS

USER = "user"


@dataclass(frozen=True)
class Statement:
    """One reading of a clause; see the module docstring."""

    subject: str
    attribute: str
    value: str = ""
    positive: bool = True
    change: bool = False
    past: bool = False
    additive: bool = False

    @property
    def single_valued(self) -> bool:
        """Whether the attribute holds one value at a time (else it conflicts by polarity)."""
        return self.attribute.split(":", 1)[0] in SINGLE_VALUED


# Attribute families that hold one value at a time, with how an operator reads them.
# --- text normalisation ------------------------------------------------------------------

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_EXPANSIONS = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\bcan't\b|\bcannot\b", "can not"),
        (r"\bwon't\b", "will not"),
        (r"\b(do|does|did|is|are|was|were|have|has|had)n'?t\b", r"\1 not"),
        (r"\b(they|we|you)'re\b", r"\1 are"),
        (r"\b(they|we|you|i)'ve\b", r"\1 have"),
        (r"\bi'm\b", "i am"),
        (r"\b(he|she|it|that)'s\b", r"\1 is"),
    )
)
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[.;!?]+(?:\s+|$)|,?\s+but\s+|,\s+and\s+(?=(?:they|he|she|the user|user|their|his|her)"
    r"\b)|,\s+(?:while|whereas|although|though)\s+|\s+and\s+(?=(?:they|he|she)\s)"
    r"|,\s+(?=(?:she|he|they|it) (?:is|was|has|are)\b)"
    r"|\s*\b(?:and )?(?:it )?turn(?:s|ed) out(?: that)?\s+)"
)
_SUBJECT = re.compile(r"^(?:(?:the\s+)?user(?:'s)?|they|he|she|their|his|her)\b", re.IGNORECASE)
_REPORTING = re.compile(
    r"^(?:(?:has|had|also|recently|previously|just|once|repeatedly|again|further)\s+)*"
    r"(?:(?:mentioned|mentions|said|says|stated|states|noted|notes|explained|"
    r"explains|revealed|reveals|indicated|indicates|reported|reports|confirmed|confirms|"
    r"clarified|clarifies|expressed|expresses|disclosed|discloses|announced|"
    r"announces|told the assistant|tells the assistant|informed the assistant|admitted|"
    r"admits|described|describes|emphasi[sz]ed|emphasi[sz]es|"
    r"claimed|claims|specified|specifies|pointed out|points out|learned|learnt|"
    r"found out|finds out|realized|realised|realizes|realises|discovered|discovers|"
    r"is happy to report|was happy to report|is excited to share|was excited to share)"
    r"(?:\s+that)?"
    # Verbs that are also facts ("shares a flat", "adds sugar") report only with "that".
    r"|(?:shared|shares|added|adds|wrote|writes|identified|identifies)\s+that)"
    r"\s*(?:(?:they|he|she)\s+)?",
)
_PRONOUN_VERB = (
    (re.compile(r"^(?:are|is|am)\b"), "is"),
    (re.compile(r"^(?:have|has)\b"), "has"),
    (re.compile(r"^do not\b"), "does not"),
)
# A leading gerund reads as the present tense ("User mentioned living in Berlin").
_GERUNDS = {
    "being": "is",
    "having": "has",
    "living": "lives",
    "working": "works",
    "using": "uses",
    "drinking": "drinks",
    "smoking": "smokes",
    "eating": "eats",
    "loving": "loves",
    "hating": "hates",
    "enjoying": "enjoys",
    "playing": "plays",
    "owning": "owns",
    "preferring": "prefers",
    "moving": "moved",
    "switching": "switched",
    "quitting": "quit",
    "training": "is training",
    "learning": "is learning",
    "studying": "is studying",
    "getting": "got",
    "turning": "turned",
    "starting": "started",
}

_CHANGE = re.compile(
    r"\b(?:now|moved|moving|relocated|relocating|switched|switching|changed|changing|"
    r"quit|quitting|stopped|stopping|gave up|given up|giving up|no longer|not anymore|"
    r"anymore|any more|started|starting|began|begun|became|become|turned|new|newly|"
    r"recently|just|got (?:married|engaged|divorced|a new)|has since|these days|"
    r"nowadays|finally|converted|dropped|ditched|abandoned|left|joined|took up|"
    r"picked up|went|gone|come to|came to|grown to|grew to|learned to|learnt to|"
    r"has decided|decided|is back|again|promoted|got promoted|was promoted|retired|"
    r"graduated|finalized|finalised|born|welcomed|engaged|married|divorced)\b"
)
_PAST = re.compile(
    r"\b(?:used to|previously|formerly|once|grew up|was born|born and raised|was raised|"
    r"as a (?:kid|child|teen|teenager)|in the past|back then|years ago|before (?:moving|that)|"
    r"originally|childhood|former|ex-)\b"
)
# Also: scopes ("at work", "at home", "for hobby projects") under which two values coexist.
_ADDITIVE = re.compile(
    r"\b(?:also|too|as well|another|a second|second|additionally|besides|in addition|"
    r"on the side|part-time|side|at work|at home|for work|at the office|for hobby|hobby|"
    r"personal projects?|on (?:their|his|her) (?:work|personal|home) \w+)\b"
)
_OTHER_PEOPLE = (
    rf"{FAMILY}|friend|best friend|colleague|coworker|co-worker|boss|manager|roommate|"
    r"flatmate|housemate|neighbou?r|cousin|aunt|uncle|niece|nephew|parents|in-laws|"
    r"mother-in-law|father-in-law|sister-in-law|brother-in-law|partner's \w+|teammate|"
    r"classmate|kids|children|son's \w+|daughter's \w+|siblings?|sons|daughters|brothers|"
    r"sisters|friends|cousins|grandchildren|grandkids"
)
_RELATIVE_OWNER = re.compile(
    rf"^(?:(?:the )?user's|their|his|her)\s+(?:(?:older|younger|big|little|baby|twin|best|"
    rf"close|old|new|eldest|oldest|youngest|step|two|three|four|both|\d+)\s+)*"
    rf"(?P<rel>{_OTHER_PEOPLE})\b(?P<rest>.*)$"
)
_PET_OWNER = re.compile(
    rf"^(?:(?:the )?user's|their|his|her)\s+(?:(?:old|new|little|big|baby|older|younger|"
    rf"rescue|only|first|second|other|one and only|sweet|lazy|crazy)\s+)*(?:[a-z]+(?<!'s)\s+)?"
    rf"(?P<pet>{PETS})\b"
    rf"(?P<rest>.*)$"
)
_CANONICAL_PERSON = {
    "sons": "son",
    "daughters": "daughter",
    "brothers": "brother",
    "sisters": "sister",
    "friends": "friend",
    "grandkids": "grandchildren",
    "mom": "mother",
    "mum": "mother",
    "mama": "mother",
    "dad": "father",
    "papa": "father",
    "kid": "child",
    "baby": "child",
    "kids": "children",
    "best friend": "friend",
    "co-worker": "colleague",
    "coworker": "colleague",
    "flatmate": "roommate",
    "housemate": "roommate",
    "neighbor": "neighbour",
}
_CHILD_WORDS = {"son", "daughter", "child", "children", "kids", "baby", "kid", "grandchildren"}
_PARTNER_WORDS = {
    "wife",
    "husband",
    "partner",
    "girlfriend",
    "boyfriend",
    "fiance",
    "fiancee",
    "fiancé",
    "fiancée",
    "spouse",
}


def _normalise(text: str) -> str:
    text = text.translate(_QUOTES).strip().lower()
    text = re.sub(r"\s+", " ", text).replace(" over at ", " at ")
    for pattern, replacement in _EXPANSIONS:
        text = pattern.sub(replacement, text)
    return text


def announces_change(text: str) -> bool:
    """Whether a text announces a change (moved, switched, quit, started, just turned...)."""
    return bool(_CHANGE.search(_normalise(text)))


def clauses(text: str) -> list[str]:
    """The clauses of a text, each standing alone."""
    return [c.strip(" ,") for c in _CLAUSE_BREAK.split(_normalise(text)) if c.strip(" ,")]


# --- reading -------------------------------------------------------------------------------


# A name right after the relation ("their sister Ingrid lives in Oslo", "dog Biscuit is a corgi").
_NAME_BEFORE_VERB = re.compile(
    r"^(?:,\s*)?(?P<n>[a-z][\w'-]*)(?:\s*\([^)]*\))?,?\s+(?=(?:is|was|has|had|lives|works|loves|"
    r"likes|hates|moved|turned|just|got|started|plays|uses|eats|smokes|drinks|does|did|can|"
    r"will|recently|also|keeps|ate|sleeps|gets|goes|runs|teaches|studies)\b)"
)
_MOVED_IN = re.compile(
    r"^(?:just |recently |finally |has )?(?:moved in|has moved in|lives|is living|started living)"
    r" (?:together )?with (?:them|the user|him|her)(?:\s*$|\s+(?:now|last|this|since|in|for)\b|,)"
)


_LEADING_TIME = re.compile(
    r"^(?:over|in|during|for|since|after|before|at|as of|by|from|on|last|this|next|these|"
    r"lately|recently|now|today|nowadays)\b[^,]{0,50}?,?\s+(?=(?:the user|user|they|he|she)\b)"
)


# "The user and their boyfriend broke up", "Amara and the user got married": a joint subject
# that includes the user states the user's fact.
_USER_AND_OTHER = re.compile(
    r"^(?:(?:the )?user and (?:their |his |her )?[\w' ]{1,30}?|[a-z][\w'-]* and (?:the )?user) "
    r"(?=(?:broke|split|got|are|were|have|has|moved|married|separated|divorced|live|lived|"
    r"just|recently|finally|officially|decided|adopted|bought|welcomed|had)\b)"
)


# "they play tennis", "they live in Austin": the verb after a dropped pronoun, in the third
# person the catalogue reads.
_BARE_VERB = re.compile(
    r"^(play|live|work|use|drink|smoke|eat|love|like|hate|enjoy|prefer|own|speak|run|cook|"
    r"teach|study|ride|drive|watch|read|write|want|need|keep|practice|practise|go|do|commute|"
    r"dislike|adore|swear|rely|vape|bike|cycle|walk|take)\b"
)
_THIRD_PERSON = {
    "go": "goes",
    "do": "does",
    "study": "studies",
    "rely": "relies",
    "watch": "watches",
    "teach": "teaches",
}


def _subject(clause: str) -> tuple[str, str, list[tuple[str, str, bool]]]:
    """(subject, predicate, implied user facts) of a clause."""
    implied: list[tuple[str, str, bool]] = []
    owner = _RELATIVE_OWNER.match(clause)
    if owner:
        relation = _CANONICAL_PERSON.get(owner.group("rel"), owner.group("rel"))
        rest = owner.group("rest").strip(" ,")
        if relation in _CHILD_WORDS:
            implied.append(("children", "", True))
        naming = re.match(
            r"^(?:'s name is|is called|is named|named|called|,)\s*(?P<n>[a-z][\w'-]*)"
            r"[ ,]*$",
            rest,
        )
        if relation in _PARTNER_WORDS:
            implied.append(
                (
                    "relationship",
                    "married" if relation in {"wife", "husband"} else "partnered",
                    True,
                )
            )
            if naming:
                implied.append(("partner_name", naming.group("n"), True))
                return USER, "", implied
        if naming:
            return USER, "", [*implied, (f"relative_name:{relation}", naming.group("n"), True)]
        rest = _NAME_BEFORE_VERB.sub("", rest, count=1)
        if _MOVED_IN.match(rest):
            implied.append(
                ("living_with", "partner" if relation in _PARTNER_WORDS else "family", True)
            )
            return USER, "", implied
        return relation, rest, implied
    pet = _PET_OWNER.match(clause)
    if pet:
        rest = pet.group("rest").strip(" ,")
        named = _NAME_BEFORE_VERB.match(rest)
        if named and named.group("n") not in {"is", "was", "has", "just"}:
            implied.append((f"pet_name:{pet_kind(pet.group('pet'))}", named.group("n"), True))
            return USER, "", implied
        joiner = "" if rest.startswith("'") else " "
        return USER, f"{pet.group('pet')}{joiner}{rest}".strip(), implied
    clause = _LEADING_TIME.sub("", clause, count=1)
    clause = _USER_AND_OTHER.sub("user ", clause, count=1)
    subject = _SUBJECT.match(clause)
    if subject:
        rest = clause[subject.end() :].strip(" ,")
        rest = _REPORTING.sub("", rest, count=1).strip(" ,")
        if _RELATIVE_OWNER.match(rest) or _PET_OWNER.match(rest):
            return _subject(rest)  # "User mentioned their son Leo started school"
        for pattern, replacement in _PRONOUN_VERB:
            rest = pattern.sub(replacement, rest, count=1)
        rest = _BARE_VERB.sub(lambda m: _THIRD_PERSON.get(m.group(1), m.group(1) + "s"), rest)
        # "their only computer is ...": the user's own thing, read as the user's fact.
        rest = re.sub(
            r"^(?:their|his|her) (?=(?:only|main|sole|new|current|work|own|all-time|favou?rite|"
            r"go-to|desktop|laptop|computer|phone|machine|daily)\b)",
            "",
            rest,
        )
        return USER, rest, implied
    named = re.match(
        r"^(?P<who>[a-z][\w'-]+) (?:is|has|lives|works|was|loves|hates|likes)\b", clause
    )
    if named and named.group("who") not in {"i", "we", "user", "it", "this", "that", "there"}:
        return named.group("who"), clause[len(named.group("who")) :].strip(), implied
    return USER, clause, implied


_PREAMBLE = re.compile(
    r"^(?:(?:just |finally )?(?:finished|done|got done with) (?=\w+ing\b)|"
    r"(?:finally |eventually |recently |just )?(?:caved|gave in|decided|went ahead|"
    r"took the plunge|bit the bullet|made the switch|made the move|got retested|was retested)"
    r"(?: [\w' ]{0,30}?)? and |(?:has |had )?(?:also |recently )?(?:been )?(?:happy|excited|proud|"
    r"glad|relieved|sad|thrilled) to (?:say|share|report|announce) (?:that )?(?:they |he |she )?"
    r"(?:are |is |have |has )?)"
)


_SWITCHED_FROM = re.compile(r"\b(switched|moved|migrated|changed|went) from [\w .+-]{1,40}? to ")


_AUXILIARY_ADVERB = re.compile(
    r"^(has|have|had|is|was|got|were) (?:recently|just|finally|now|already|officially|also|"
    r"since|actually|happily|newly) "
)


def _gerunds(predicate: str) -> str:
    """'living in X' and 'being vegan' read as 'lives in X' and 'is vegan'."""
    predicate = _PREAMBLE.sub("", predicate)
    predicate = _AUXILIARY_ADVERB.sub(r"\1 ", predicate)
    predicate = _SWITCHED_FROM.sub(r"\1 to ", predicate)  # the new state is what holds now
    first, _, rest = predicate.partition(" ")
    if first in _GERUNDS:
        predicate = f"{_GERUNDS[first]} {rest}".strip()
    return predicate


@functools.lru_cache(maxsize=8192)
def read(text: str) -> tuple[Statement, ...]:
    """Every statement the text makes, in order (none for text the catalogue does not know)."""
    found: list[Statement] = []
    for clause in clauses(text):
        subject, predicate, implied = _subject(clause)
        change = bool(_CHANGE.search(clause))
        past = bool(_PAST.search(clause))
        additive = bool(_ADDITIVE.search(clause))
        readings = [(attribute, value, positive, ()) for attribute, value, positive in implied]
        predicate = _gerunds(predicate)
        if predicate:
            for entry in CATALOGUE:
                match = entry.pattern.match(predicate)
                if not match:
                    continue
                result = entry.read(match)
                if result:
                    readings.extend((item[0], item[1], item[2], item[3:]) for item in result)
                    break
        implied_subject = USER
        for index, (attribute, value, positive, flags) in enumerate(readings):
            is_implied = index < len(implied)
            found.append(
                Statement(
                    subject=implied_subject if is_implied else subject,
                    attribute=attribute,
                    value=value.strip(),
                    positive=positive,
                    change=change and not is_implied,
                    # "stopped playing violin years ago": the stop is past, the state is now.
                    past=past and positive and not is_implied,
                    additive=(additive or "additive" in flags) and not is_implied,
                )
            )
    return tuple(dict.fromkeys(found))
