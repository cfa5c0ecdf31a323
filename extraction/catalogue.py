"""The catalogue of statements the offline reader knows: one pattern per way of saying a fact.

One concept in one module, hence its length: a table of entries, each an anchored pattern over
a clause's predicate ("lives in Munich", "quit smoking", "is not allergic to cats") and the
(attribute, value, polarity) readings it yields. The first entry that reads a predicate wins.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from extraction.values import clean_value, object_key, stem
from extraction.vocabulary import BREEDS, JOB_SUFFIX, JOB_WORDS, NOT_A_JOB, PETS, words

SINGLE_VALUED = {
    "chronotype": "morning or night person",
    "housing": "rents or owns their home",
    "native_language": "first language",
    "commute": "how the user gets to work",
    "residence": "where the user lives",
    "employer": "employer",
    "job": "job",
    "relationship": "relationship status",
    "partner_name": "partner's name",
    "age": "age",
    "diet": "diet",
    "pet_name": "pet's name",
    "favourite": "favourite",
    "theme": "colour theme",
    "indentation": "indentation",
    "editor": "main editor",
    "phone": "phone",
    "os": "operating system",
    "living_with": "who the user lives with",
    "name": "name",
}
POLAR = {
    "practice": "does",
    "sentiment": "feeling about",
    "allergy": "allergy to",
    "children": "children",
    "employer_left": "works at",
}


_V = r"(?P<v>[a-z0-9][\w'&.+#-]*(?: [\w'&.+#-]+){0,5})"
_ADV = (
    r"(?:(?:now|currently|recently|just|finally|also|still|actually|officially|happily|"
    r"typically|normally|often|regularly|sometimes|occasionally|strongly|deeply|"
    r"permanently|mostly|mainly|primarily|generally|usually|really|totally|absolutely|"
    r"definitely|genuinely|truly|even|already|since|newly|only|basically|pretty much|always|"
    r"exclusively|strictly|daily)\s+)*"
)
_NOT = r"(?P<neg>(?:is |are |does |do |did |has |have )?(?:not|never|no longer) )?"

_DIETS = {
    "vegetarian": "vegetarian",
    "veggie": "vegetarian",
    "vegan": "vegan",
    "plant-based": "vegan",
    "plant based": "vegan",
    "pescatarian": "pescatarian",
    "pescetarian": "pescatarian",
    "carnivore": "omnivore",
    "omnivore": "omnivore",
    "meat-eater": "omnivore",
    "meat eater": "omnivore",
    "keto": "keto",
    "flexitarian": "flexitarian",
}
# Diets that exclude meat: "does not eat meat" is the same as being vegetarian, and fits them.
NO_MEAT = {"vegetarian", "vegan", "pescatarian", "no-meat"}
_EDITORS = (
    r"vim|neovim|nvim|emacs|vs ?code|visual studio code|visual studio|sublime(?: text)?|"
    r"intellij(?: idea)?|pycharm|webstorm|atom|nano|zed|cursor|helix|xcode|eclipse|notepad\+\+|"
    r"android studio|rider|goland|clion|phpstorm|jetbrains \w+"
)
_PHONES = {
    "iphone": "ios",
    "ios": "ios",
    "android": "android",
    "pixel": "android",
    "samsung": "android",
    "galaxy": "android",
}
_OS = {
    "mac": "macos",
    "macos": "macos",
    "macbook": "macos",
    "os x": "macos",
    "windows": "windows",
    "linux": "linux",
    "ubuntu": "linux",
    "fedora": "linux",
    "debian": "linux",
    "arch": "linux",
    "chromebook": "chromeos",
}
_RELATIONSHIP = {
    "single": "single",
    "married": "married",
    "engaged": "engaged",
    "divorced": "divorced",
    "separated": "separated",
    "widowed": "widowed",
    "a widow": "widowed",
    "a widower": "widowed",
    "in a relationship": "partnered",
    "dating someone": "partnered",
    "seeing someone": "partnered",
    "dating anyone": "partnered",
    "seeing anyone": "partnered",
    "taken": "partnered",
}
# Values that say less than the others without contradicting them ("has a partner" and
# "is married" can both be true).
RELATIONSHIP_COMPATIBLE = {
    frozenset({"partnered", "married"}),
    frozenset({"partnered", "engaged"}),
    frozenset({"separated", "married"}),
}
_LIVING_ALONE = r"alone|by (?:themselves|himself|herself|themself)|on (?:their|his|her) own|solo"
_HOUSEMATES = (
    r"(?:their |his |her |a |two |three |some )?(?:partner|girlfriend|boyfriend|wife|husband|"
    r"fianc[eé]e?|spouse|roommates?|flatmates?|housemates?|parents|mom|mum|dad|mother|father|"
    r"family|friends?|kids|children|sister|brother|grandparents?|in-laws|significant other|"
    r"other half|boyfriend and|girlfriend and|(?:\w+ )?(?:other )?(?:people|others|guys|girls)|"
    r"(?:\d+ |two |three |four )?(?:other )?(?:students|colleagues))"
)


@dataclass(frozen=True)
class _Entry:
    pattern: re.Pattern[str]
    read: object  # Callable[[re.Match[str]], list[tuple[str, str, bool]] | None]


CATALOGUE: list[_Entry] = []


def _entry(pattern: str):
    def register(function):
        CATALOGUE.append(_Entry(re.compile(rf"^{_ADV}{pattern}"), function))
        return function

    return register


def _value(match: re.Match[str], group: str = "v") -> str:
    return clean_value(match.group(group) or "")


@_entry(
    rf"{_NOT}(?:lives?|living|resides?|residing|is based|based|is living|is located|located|"
    rf"settled|is settled|has settled|calls?|stays?|is staying|has lived|has been living|"
    rf"has been based) (?:in|near|outside(?: of)?|"
    rf"around|at) {_V}"
)
def _residence(match):
    value = _value(match)
    if not value or re.match(r"(?:a|an|the)?\s*(?:flat|apartment|house|home|studio)\b", value):
        return None
    return [("residence", value, not match.group("neg"))]


@_entry(
    rf"(?:has |have )?(?:moved|relocated|moving|relocating|is moving|is relocating|"
    rf"has moved|has relocated|went) (?:back )?(?:over |out |across )?to {_V}"
)
def _moved(match):
    value = _value(match)
    return [("residence", value, True)] if value else None


@_entry(rf"(?:now )?calls? {_V} home")
def _calls_home(match):
    return [("residence", _value(match), True)]


@_entry(
    rf"{_NOT}(?:works?(?: remotely| from home| full[- ]time| part[- ]time| freelance)?|working|"
    rf"is working|is employed|employed|has a job|has a new job|"
    rf"has started working|started working|is now working|has worked|has been working|"
    rf"has been employed|has been)(?: in [\w ]{{1,25}}?)? (?:at|for|with|by) {_V}"
)
def _employer(match):
    value = _value(match)
    if not value or value in {"home", "night", "nights", "weekends"}:
        return None
    return [("employer", value, not match.group("neg"))]


@_entry(
    rf"(?:has |have )?(?:joined|started (?:a new (?:job|role|position) )?at|started at|"
    rf"got (?:a |an |the )?(?:new )?(?:job|role|position|offer) (?:at|with)|took (?:a |an )?"
    rf"(?:new )?(?:job|role|position) (?:at|with)|accepted (?:a |an )?(?:job|offer|role|"
    rf"position) (?:at|from|with)|landed (?:a |an )?(?:job|role) (?:at|with)|"
    rf"(?:is|are) (?:now )?(?:at|with)|began (?:working )?at|moved to (?:a new job at)?) {_V}"
)
def _joined(match):
    value = _value(match)
    if not value or value in {"home", "work", "the moment", "school"}:
        return None
    # "is at the gym" is not an employer; a capitalised name was lost, so require a job cue.
    text = match.group(0)
    if re.match(rf"^{_ADV}(?:is|are) (?:now )?(?:at|with)", text) and not re.search(
        r"\b(?:inc|ltd|corp|gmbh|labs?|technologies|bank|university|hospital|agency|studio|"
        r"group|company|startup|firm|consulting)\b",
        value,
    ):
        return None
    return [("employer", value, True)]


@_entry(
    rf"(?:has |have )?(?:left|quit|resigned from|was laid off from|got laid off from|"
    rf"was let go from|stopped working (?:at|for)|no longer works? (?:at|for)|"
    rf"is no longer (?:at|with)|does not work (?:at|for)) {_V}"
)
def _left_job(match):
    value = _value(match)
    if not value or value.split()[0] in {"job", "their", "his", "her"}:
        return None
    if value.split()[0].endswith("ing"):
        return None  # "quit smoking", "left studying Japanese": a practice, not an employer
    return [("employer_left", value, False)]


_JOB_HEAD = re.compile(r"[a-z-]+$")


# "a coffee person", "a cat lover": kinds of people, not jobs.
_NOT_A_ROLE = frozenset(
    {"person", "people", "type", "lover", "fan", "guy", "girl", "kind", "speaker", "user"}
    | {"drinker", "smoker", "eater", "vaper", "sleeper", "riser", "owner", "member"}
)
_LEAD_WORDS = frozenset({"lead", "head", "manager", "supervisor", "principal", "partner", "vp"})


def _job_value(raw: str) -> str | None:
    value = clean_value(raw)
    tokens = value.split()
    if not tokens or len(tokens) > 5:
        return None
    head = tokens[-1]
    if head in NOT_A_JOB or set(tokens) & NOT_A_JOB or head in _NOT_A_ROLE:
        return None
    if head in JOB_WORDS or head in _LEAD_WORDS or (JOB_SUFFIX.search(head) and len(head) > 4):
        return value
    return None


@_entry(
    rf"{_NOT}(?:works? as|working as|is employed as|is (?:now )?(?:a|an|the)|became (?:a|an|the)|"
    rf"has become (?:a|an)|got promoted to|was promoted to|has been promoted to|is now (?:a|an)|"
    rf"job (?:title )?is|role is|position is|(?:is )?a (?:full[- ]time |part[- ]time )?) "
    rf"(?:a |an )?{_V}"
)
def _job(match):
    value = _job_value(match.group("v"))
    if value is None:
        return None
    found = [("job", _JOB_ABBREVIATIONS.get(value, value), not match.group("neg"))]
    employer = re.search(r" (?:at|for) (?P<e>[a-z0-9][\w'&.-]*(?: [\w'&.-]+){0,3})", match.group(0))
    if employer and not match.group("neg") and clean_value(employer.group("e")):
        found.append(("employer", clean_value(employer.group("e")), True))
    return found


_JOB_ABBREVIATIONS = {
    "pm": "product manager",
    "swe": "software engineer",
    "sde": "software engineer",
    "dev": "developer",
    "em": "engineering manager",
    "ux designer": "ux designer",
    "rn": "nurse",
}


@_entry(
    r"(?P<neg>is not |is no longer |not )?(?:is |got |just got |recently got |has gotten |"
    r"became |has become |has been )?(?P<v>single|married|engaged|divorced|separated|widowed|"
    r"a widow|a widower|in a relationship|dating someone|seeing someone|dating anyone|"
    r"seeing anyone|taken)\b"
    r"(?: to (?P<who>[a-z][\w'-]*))?"
)
def _relationship(match):
    status = _RELATIONSHIP[match.group("v")]
    found = [("relationship", status, not match.group("neg"))]
    if match.group("who") and status in {"married", "engaged"} and not match.group("neg"):
        found.append(("partner_name", match.group("who"), True))
    return found


@_entry(
    r"(?:daily |morning )?commut\w* (?:is )?(?:daily |every day |each day )?(?:by|on|via|with) "
    r"(?:the )?"
    r"(?P<v>rail|train|bus|car|bike|bicycle|foot|tube|subway|metro|tram|ferry)"
)
def _commutes_by(match):
    value = match.group("v")
    kinds = {"car": "car", "bike": "bike", "bicycle": "bike", "foot": "walk"}
    return [("commute", kinds.get(value, "transit"), True)]


@_entry(r"(?:.*\b)?(?P<v>lactose|gluten|fructose|histamine) (?:intoleran(?:ce|t)|sensitivity)")
def _intolerance(match):
    return [(f"allergy:{match.group('v')}", match.group("v"), True)]


@_entry(r"is (?P<v>lactose|gluten|fructose) intolerant")
def _intolerant(match):
    return [(f"allergy:{match.group('v')}", match.group("v"), True)]


@_entry(
    r"(?:is a native (?P<v>[a-z]+) speaker|(?P<v2>[a-z]+) is (?:their|his|her) (?:first|native|"
    r"mother) (?:language|tongue)|(?:native|first|mother) (?:language|tongue) is (?P<v3>[a-z]+)|"
    r"speaks (?P<v4>[a-z]+) natively)"
)
def _native_language(match):
    value = match.group("v") or match.group("v2") or match.group("v3") or match.group("v4")
    return [("native_language", value, True)]


@_entry(r"(?P<v>[a-z0-9][\w .+-]{1,30}?) is where (?:they|he|she) (?:keeps?|puts?|tracks?|does) ")
def _is_where_they_keep(match):
    return [("practice", clean_value(match.group("v")), True)]


@_entry(r"(?:.*\b)?no (?P<v>meat|animal products|dairy)\b")
def _no_meat_fragment(match):
    value = match.group("v")
    if value == "dairy":
        return [("practice", "dairy", False)]
    return [("diet", "no-meat" if value == "meat" else "vegan", True)]


@_entry(
    r"(?P<v>\d{1,3})(?: years old)? (?:as of|since|from) (?:today|yesterday|this (?:week|morning))"
)
def _age_fragment(match):
    return [("age", match.group("v"), True)]


# "User's Honda Civic makes a noise", "their iPhone battery dies by 3pm": owning one.
@_entry(
    r"(?P<v>honda|toyota|ford|tesla|bmw|vw|volkswagen|audi|mazda|subaru|kia|hyundai|nissan|"
    r"chevy|mercedes|volvo|fiat|jeep|prius|civic|corolla|car|iphone|pixel|samsung|galaxy|"
    r"macbook|imac|thinkpad)\b[\w -]{0,20}? (?:makes|is|has|needs|broke|keeps|will not|won't|"
    r"battery|screen|keeps|just|died|dies|started|stopped)\b"
)
def _own_device(match):
    value = match.group("v")
    if value in _PHONES:
        return [("phone", _PHONES[value], True)]
    if value in {"macbook", "imac"}:
        return [("os", "macos", True)]
    if value == "thinkpad":
        return None
    return [("practice", "car", True)]


@_entry(
    r"(?:is |has been |is currently )?(?:unemployed|out of work|between jobs|job hunting|"
    r"looking for (?:a )?(?:new )?(?:job|work)|laid off|jobless|without a job)\b"
)
def _unemployed(match):
    return [("employer", "none", True)]


_COMMUTES = (
    ("car", r"driv\w*|commut\w* by car|takes? the car"),
    ("bike", r"bik\w*|cycl\w*|rid\w* (?:a |their |his |her )?bike"),
    ("transit", r"takes? the (?:train|bus|tube|subway|metro|tram)|commut\w* by (?:train|bus)"),
    ("walk", r"walk\w*"),
)


@_entry(
    r"(?:has |have )?(?:started |now |usually |always )?(?P<how>[\w ]{2,30}?) (?:to|into) "
    r"(?:work|the office|campus|school)\b"
)
def _commute(match):
    how = match.group("how")
    for value, pattern in _COMMUTES:
        if re.search(rf"\b(?:{pattern})$", how):
            return [("commute", value, True)]
    return None


@_entry(
    r"(?:'s |their |his |her )?(?:divorce|separation) (?:was |is |has been |got )?"
    r"(?:finali[sz]ed|final|went through|came through|is through)"
)
def _divorce_final(match):
    return [("relationship", "divorced", True)]


@_entry(
    r"(?:has not|have not|has never|does not|no longer) (?:had|have|has|own|owns) (?:a |an |any )?"
    r"(?P<v>drink|cigarette|smoke|coffee|car|pets?|dog|cat|tv|television|phone)s?\b"
)
def _has_none(match):
    value = match.group("v")
    return [("practice", "drink" if value == "drink" else value, False)]


@_entry(r"(?:has )?no (?P<v>pets|car|kids|children|tv)\b(?: either| at all)?$")
def _no_such(match):
    value = match.group("v")
    if value in {"kids", "children"}:
        return [("children", "", False)]
    return [("practice", value, False)]


@_entry(r"(?:broke up|split up|separated|ended (?:the|their|his|her) relationship)\b")
def _broke_up(match):
    return [("relationship", "single", True)]


@_entry(
    r"(?:is |has )?(?:a |an )?(?P<neg>(?:no|without a|not having a) )?(?:has |have )?"
    r"(?:a |an )?(?:new )?(?P<v>girlfriend|boyfriend|partner|wife|husband|fianc[eé]e?|spouse)"
    r"(?: (?:named|called) (?P<who>[a-z][\w'-]*))?$"
)
def _has_partner(match):
    if match.group("neg"):
        return [("relationship", "single", True)]
    found = [
        (
            "relationship",
            "married" if match.group("v") in {"wife", "husband"} else "partnered",
            True,
        )
    ]
    if match.group("who"):
        found.append(("partner_name", match.group("who"), True))
    return found


@_entry(
    r"(?:is |just |has just |recently )?(?:turned |is turning |will be |is |aged |age is |"
    r"is aged |celebrated (?:their|his|her) |hit |reached |is a |is an )(?P<v>\d{1,3})"
    r"(?:th|st|nd|rd)?(?:[- ]year[- ]old\b)?"
    r"(?: birthday| years? old| yo| y/o|$| now| this year| last| yesterday| today| on| in|,| and|"
    r" with| who)"
)
def _age(match):
    age = int(match.group("v"))
    return [("age", str(age), True)] if 5 <= age <= 110 else None


@_entry(
    r"(?P<neg>is not |is no longer |is not a |is no longer a |stopped being |"
    r"quit being |gave up being )?(?:is |has gone |went |has become |became |turned |"
    r"is now |is strictly |is fully |is mostly |follows a |eats a |has been |"
    r"switched to (?:a |being )?|started (?:a |being )?|going |went back to being )?"
    r"(?:a |an )?(?:strict |full |fully |mostly |now )?(?P<v>vegetarian|veggie|vegan|"
    r"plant-based|plant based|pescatarian|pescetarian|carnivore|omnivore|meat-eater|meat eater|"
    r"keto|flexitarian)\b(?! (?:recipes?|restaurants?|food|options?|dishes|places?|cafes?|"
    r"cookbook|friends?|meals?))"
)
def _diet(match):
    diet = _DIETS[match.group("v")]
    if match.group("neg"):
        return [("diet", diet, False)]
    return [("diet", diet, True)]


@_entry(
    r"(?P<neg>does not eat|do not eat|never eats|no longer eats|stopped eating|gave up|"
    r"has given up|cut out|avoids|does not touch|quit eating)\s+(?:any |all )?"
    r"(?:red )?(?P<v>meat|animal products|meat or fish|meat and fish|fish or meat|dairy)\b"
)
def _no_meat(match):
    what = match.group("v")
    if what == "dairy":
        return [("practice", "dairy", False)]
    if "fish" in what:
        return [("diet", "vegetarian", True)]
    return [("diet", "no-meat" if what == "meat" else "vegan", True)]


@_entry(
    r"(?:now |has started |started |has begun |began |is )?(?:eating|eats|eat|back to eating|"
    r"went back to eating|has gone back to eating|occasionally eats|enjoys eating|loves eating)"
    r" (?:meat|steak|chicken|beef|pork|burgers|bacon|lamb|red meat)\b"
)
def _eats_meat(match):
    return [("diet", "omnivore", True)]


@_entry(
    rf"(?:(?:user's|their|his|her) )?(?:(?:old|new|little|rescue|only|first) )?"
    rf"(?P<pet>{PETS})(?:'s name is| is (?:called|named)| goes by| is)"
    rf" (?:actually |really |now |still )?(?P<v>[a-z][\w'-]*)$"
)
def _pet_name(match):
    name = match.group("v")
    if name in {"a", "an", "the", "very", "so", "really", "old", "young", "sick", "fine"}:
        return None
    return [(f"pet_name:{pet_kind(match.group('pet'))}", name, True)]


@_entry(
    rf"(?:has|owns|adopted|got|rescued|only pet is|pet is|has (?:a )?(?:single|one) pet,?|"
    rf"has (?:just |only )?(?:the )?one)"
    rf"(?: exactly| just| only)? (?:a |an |one |their |his |her )?(?P<add>new |second |"
    rf"another |other )?(?:[\w-]+ ){{0,2}}?(?P<pet>{PETS})\b(?:[^.;]{{0,45}}?\b(?:called|named)|,)"
    rf" (?P<v>[a-z][\w'-]*)"
)
def _has_pet_named(match):
    found = [(f"pet_name:{pet_kind(match.group('pet'))}", match.group("v"), True)]
    return [(*found[0], "additive")] if match.group("add") else found


@_entry(rf"named (?:their|his|her|the) (?:new )?(?P<pet>{PETS}) (?P<v>[a-z][\w'-]*)")
def _named_pet(match):
    return [(f"pet_name:{pet_kind(match.group('pet'))}", match.group("v"), True)]


def pet_kind(word: str) -> str:
    kinds = {"puppy": "dog", "kitten": "cat", "bunny": "rabbit", "pony": "horse", **BREEDS}
    return kinds.get(word, word)


@_entry(
    r"(?:all[- ]time |absolute |current |new )?(?:favou?rite|fav|go-to) (?P<k>[a-z][\w' -]{1,30}?) "
    r"(?:is|are|has become|became|is now|is still|these days is|has to be|has always been|"
    r"would be|will always be|remains) (?:now )?(?P<v>.+)"
)
def _favourite(match):
    kind, value = _kind(match.group("k")), clean_value(match.group("v"))
    if kind in _ANY_KIND:
        return [("sentiment", value, True)]  # "my favourite thing" says the user loves it
    return [(f"favourite:{kind}", value, True)]


_ANY_KIND = frozenset({"thing", "activity", "activiti", "hobby", "hobbi", "pastime", "th"})


@_entry(
    r"(?:named|called|picked|chose|listed|described|mentioned) (?P<v>[a-z0-9][\w' &.-]{1,40}?) as "
    r"(?:their|his|her) (?:new |current |all[- ]time |absolute |top )?(?:favou?rite|go-to) "
    r"(?P<k>[a-z][\w' -]{1,30})"
)
def _named_favourite(match):
    return [(f"favourite:{_kind(match.group('k'))}", clean_value(match.group("v")), True)]


@_entry(
    r"(?P<v>[a-z0-9][\w' &.-]{1,40}?) (?:is|are|has become|became) (?:now )?"
    r"(?:one of )?(?:their|his|her|the user's) (?:new |current |all[- ]time |absolute |number one |"
    r"#1 |top )?"
    r"(?:favou?rite|go-to|main|preferred) (?P<k>[a-z][\w' -]{1,30})"
)
def _favourite_inverted(match):
    value, kind = clean_value(match.group("v")), _kind(match.group("k"))
    if len(value.split()) > 4:
        return None  # "loves running and says it is their favourite thing": not a name
    if kind in _ANY_KIND:
        return [("sentiment", value, True)]
    if kind in _TOOL_KINDS:
        return [("practice", value, True)]
    return [(f"favourite:{kind}", value, True)]


_TOOL_KINDS = frozenset({"tool", "app", "softwar", "platform", "servic", "design tool", "editor"})


_KIND_SYNONYMS = {
    "drunk": "drink",
    "drank": "drink",
    "novel": "book",
    "film": "movie",
    "flick": "movie",
    "tv show": "show",
    "series": "show",
    "dish": "food",
    "meal": "food",
    "cuisine": "food",
    "colour": "color",
    "track": "song",
    "group": "band",
    "beverage": "drink",
}


_KIND_FILLER = frozenset(
    words("kind of type all-time lately now currently these days nowadays recently ever")
)


def _kind(raw: str) -> str:
    raw = re.split(r" (?:of all time|ever|and|that|which|in the world|to do|on|at|for)\b", raw)[0]
    kept = [w for w in raw.split() if w not in _KIND_FILLER]
    if not kept:
        return raw
    last = _KIND_SYNONYMS.get(" ".join(kept[-2:]), _KIND_SYNONYMS.get(kept[-1], kept[-1]))
    return stem(last)


@_entry(
    r"(?P<neg>(?:does not (?:use|like)|no longer uses|stopped using|hates|dislikes|"
    r"moved away from|switched away from|ditched|dropped|can not stand) )?"
    r"(?:[\w' ]*? )?(?:(?:dark|light)(?: |-)(?:mode|theme) to )?"
    r"(?P<v>dark|light)(?: |-)(?:mode|theme|themes|colou?r scheme|ui|background)"
)
def _theme(match):
    return [("theme", match.group("v"), not match.group("neg"))]


@_entry(
    r"(?:prefers|uses|likes|indents with|indents code with|indents (?:their|his|her) code with|"
    r"switched to|has switched to|codes with|writes code with|is a|swears by|moved to|"
    r"went with|always uses|formats with|formats code with|sticks to|sticks with)\s+"
    r"(?:using )?(?:\d+ |two |four |eight )?(?P<v>tabs|spaces)\b"
)
def _indentation(match):
    return [("indentation", match.group("v"), True)]


@_entry(
    rf"(?:(?:now |mainly |mostly |primarily )?(?:uses|codes in|writes code in|develops in|"
    rf"switched (?:over )?to|has switched (?:over )?to|moved (?:over )?to|migrated to|prefers|"
    rf"switched from (?:[\w+.-]+ ){{1,3}}to|moved from (?:[\w+.-]+ ){{1,3}}to|"
    rf"relies on|lives in|works in|is using|went back to|is back (?:to|on)|swears by|is a)\s+)"
    rf"(?P<v>{_EDITORS})\b(?: (?:last|this|a|two|three|\d+) \w+(?: ago)?)?(?:,.*)?"
    rf"(?: (?:as (?:their|his|her|the) )?(?:main |primary |daily |go-to |"
    rf"default )?(?:editor|ide|code editor)| (?:for|to) (?:all (?:their|his|her) )?(?:coding|"
    rf"code|programming|development|everything|work)| user|$)"
)
def _editor(match):
    return [("editor", _editor_name(match.group("v")), True)]


@_entry(
    rf"(?:main |primary |daily |go-to |default |favou?rite |preferred )(?:editor|ide|code editor)"
    rf" is (?:now )?(?P<v>{_EDITORS})\b"
)
def _editor_is(match):
    return [("editor", _editor_name(match.group("v")), True)]


def _editor_name(raw: str) -> str:
    name = raw.replace(" ", "")
    return {"nvim": "neovim", "visualstudiocode": "vscode"}.get(name, name)


@_entry(
    r"(?:uses|has|owns|switched to|has switched to|got|bought|moved to|went (?:back )?to|"
    r"is on|carries|is an?) (?:a |an |the |new )?(?:google |apple )?"
    r"(?P<v>iphone|android|pixel|samsung|galaxy)"
    r"(?: phone| user)?\b"
)
def _phone(match):
    return [("phone", _PHONES[match.group("v")], True)]


@_entry(
    r"(?:(?:only |main |primary |work |personal |home )?(?:computer|laptop|machine|pc|desktop|"
    r"workstation|box|setup|daily driver) (?:is|runs|is running) (?:a |an )?[\w .-]*?)"
    r"(?P<v>mac|macos|macbook|imac|windows|linux|ubuntu|fedora|debian|arch|chromebook)\b"
)
def _computer(match):
    return [("os", _OS.get(match.group("v"), "macos"), True)]


@_entry(
    r"(?:has|owns|uses|got|bought|is on|switched to|moved to|daily[- ]drives) (?:the |a |an |one |"
    r"only |new |their |his |her )*(?:[\w,-]+ ){0,3}?(?:a |an )?"
    r"(?P<v>macbook|imac|mac mini|mac studio|"
    r"thinkpad running windows|surface|chromebook)\b"
)
def _device(match):
    value = match.group("v")
    os_name = (
        "windows"
        if value.startswith(("thinkpad", "surface"))
        else ("chromeos" if value == "chromebook" else "macos")
    )
    return [("os", os_name, True)]


@_entry(
    r"(?:uses|runs|switched to|has switched to|moved to|is on|works on|codes on|develops on|"
    r"went (?:back )?to|daily[- ]drives|got) (?:a |an )?(?P<v>mac|macos|macbook|os x|windows|"
    r"linux|ubuntu|fedora|debian|arch|chromebook)\b(?! (?:server|vm|box|machine|container))"
)
def _os(match):
    return [("os", _OS[match.group("v")], True)]


@_entry(
    rf"(?P<neg>does not |no longer |has stopped |stopped )?(?:lives?|living|is living) "
    rf"(?:{_LIVING_ALONE})"
)
def _lives_alone(match):
    return [("living_with", "alone", not match.group("neg"))]


@_entry(
    rf"(?:lives?|living|is living|moved in|has moved in|shares (?:a |an )?(?:flat|apartment|"
    rf"house|place|home)) (?:together )?with (?P<v>{_HOUSEMATES})"
)
def _lives_with(match):
    who = match.group("v")
    if re.search(r"roommate|flatmate|housemate|friend|people|others|guys|girls|students", who):
        value = "roommates"
    elif re.search(r"parents|mom|mum|dad|mother|father|family|grandparent|in-laws", who):
        value = "family"
    elif re.search(r"kids|children", who):
        value = "children"
    else:
        value = "partner"
    return [("living_with", value, True)]


@_entry(r"(?:has |have )?(?:moved in together|moved in with (?:their|his|her) \w+)")
def _moved_in(match):
    return [("living_with", "partner", True)]


@_entry(
    r"(?:is child-?free|is childless|(?:does not have|has no|have no|never had|does not want|"
    r"is not having|has not got|has zero|is without)\b\s*(?:any )?(?:kids|children|a child|"
    r"a baby|babies)\b)"
)
def _no_children(match):
    return [("children", "", False)]


@_entry(
    r"(?:has|have|had|is raising|just had|welcomed|is a (?:mom|mum|mother|father|dad|parent)"
    r"(?: of)?|became a (?:mom|mum|mother|father|dad|parent)(?: of)?|is expecting|are expecting|"
    r"is pregnant|is going to be a (?:mom|mum|mother|father|dad|parent))"
    r"(?: (?:a|an|one|two|three|four|\d|their first|a new|twins|a baby|baby|newborn|little))*"
    r"\s*(?:(?:baby|little|newborn|young|teenage|adult|\d+[- ]year[- ]old) )*"
    r"(?P<v>kids?|children|child|sons?|daughters?|boy|girl|baby|twins|grandchildren|toddler)?"
)
def _has_children(match):
    if not re.search(
        r"\b(?:kids?|children|child|sons?|daughters?|boy|girl|baby|twins|grandchildren|toddler|"
        r"expecting|pregnant|parent|mom|mum|mother|father|dad)\b",
        match.group(0),
    ):
        return None
    return [("children", "", True)]


@_entry(
    rf"{_NOT}(?:is |are )?(?P<sev>severely |mildly |highly |very |deathly |seriously )?"
    r"(?:allergic|intolerant|sensitive) to (?P<v>.+)"
)
def _allergy(match):
    value = clean_value(match.group("v"))
    if not value:
        return None
    return [(f"allergy:{_allergen(value)}", value, not match.group("neg"))]


@_entry(r"(?P<v>[a-z -]{2,30}?) (?:allergy|intolerance)(?: here| for me| over here)?$")
def _allergy_fragment(match):
    value = clean_value(match.group("v"))
    if not value or value.split()[0] in {"no", "not", "any"}:
        return None
    return [(f"allergy:{_allergen(value)}", value, True)]


@_entry(r"has (?:a |an )?(?:severe |mild |serious )?(?P<v>[a-z -]{2,30}?) (?:allergy|intolerance)")
def _has_allergy(match):
    value = clean_value(match.group("v"))
    return [(f"allergy:{_allergen(value)}", value, True)] if value else None


@_entry(
    r"(?P<v>[a-z][\w -]{1,30}?) (?:allergy|intolerance) (?:is gone|went away|has gone away|"
    r"disappeared|has disappeared|is no more|cleared up|is over|has cleared)"
)
def _allergy_gone(match):
    value = clean_value(match.group("v"))
    return [(f"allergy:{_allergen(value)}", value, False)] if value else None


@_entry(
    r"(?:has no|does not have any|does not have|no longer has|outgrew|has outgrown|got over|no)"
    r" (?:(?:their|his|her|any|known|food) )?(?:(?P<v>[a-z -]{2,30}?) )?(?:allerg(?:y|ies)|"
    r"intolerances?)"
)
def _no_allergy(match):
    value = clean_value(match.group("v") or "")
    return [(f"allergy:{_allergen(value) if value else '*'}", value or "*", False)]


def _allergen(value: str) -> str:
    key = sorted(object_key(value))
    return " ".join(key) if key else value


_QUIT_VERBS = (
    r"quit|quitted|stopped|gave up|given up|giving up|has given up|kicked|dropped|ditched|"
    r"abandoned|cut out|cut back on|no longer (?:does|uses|plays|drinks|smokes|practices|goes)|"
    r"is no longer (?:doing|using|playing|into|training for|learning|studying|pursuing|"
    r"working on|going to|attending|taking)|is not (?:doing|using|playing|training for|"
    r"learning|pursuing|working on) (?:\w+ )?anymore|does not (?:use|do|play|drink|smoke|"
    r"practice|go|take) (?:\w+ )?anymore|uninstalled|deleted|cancelled|canceled|"
    r"unsubscribed from|moved away from|switched away from|walked away from|has stopped|"
    r"stopped using|stopped going to|stopped doing|stopped playing|decided against|"
    r"put (?:\w+ )?on hold|shelved|scrapped|called off|backed out of|pulled out of|"
    r"withdrew from|not going to|will not be|is not going to|won't be|is done with|"
    r"has had enough of|is off"
)


# "stopped using Notion", "gave up writing the novel": the thing itself is the object.
_GERUND_OBJECT = re.compile(
    r"^(?:using|doing|playing|going to|drinking|eating|taking|learning|studying|writing|"
    r"working on|training for|running|pursuing|attending)\s+(?=\w)"
)


@_entry(
    rf"(?P<verb>{_QUIT_VERBS})\s+(?:on |with |from |the idea of |plans? (?:to|for) |"
    rf"trying to |to )?{_V}"
)
def _quit(match):
    value = _GERUND_OBJECT.sub("", clean_value(match.group("v")))
    if not value or value.split()[0] in {"that", "this", "it", "them", "there", "by", "in"}:
        return None
    return [("practice", value, False)]


@_entry(
    r"(?P<neg>does not|never|no longer|has never|has not) (?P<v>smoke|smokes|smoked|drink|drinks|"
    r"drunk|drank|vape|vapes|vaped)\b(?: (?P<o>alcohol|coffee|caffeine|tea|wine|beer|soda))?"
)
def _does_not_smoke(match):
    return [("practice", match.group("o") or match.group("v"), False)]


@_entry(
    r"(?:has|drinks|have|drink|needs|starts the day with|gets) (?:a |an |some |their |his |her |"
    r"two |three |\d+ |several |many )?(?:\w+ )?(?:cups? of |mugs? of |shots? of )?"
    r"(?P<v>coffee|tea|espresso|espressos|latte|lattes|cappuccino|matcha)\b"
)
def _has_coffee(match):
    value = match.group("v")
    return [("practice", "tea" if value in {"tea", "matcha"} else "coffee", True)]


@_entry(
    r"(?:has |have |usually has |often has )?(?:a |an |one |two |a few |some |the odd |"
    r"a glass or two of |a couple of |glasses of |a glass of |a bottle of |a pint of |pints of |"
    r"a beer|beers|wine)?[\w ]{0,25}?\b(?:wine|beer|beers|alcohol|cocktails?|whisk(?:e)?y|vodka|"
    r"gin|rum|booze|pints?|drinks?)\b(?! (?:glass|shop|bar|list|pairing|recommendations?))"
)
def _has_a_drink(match):
    if not re.match(
        r"^(?:has|have|usually|often|a |an |one |two |some |glasses|pints)", match.group(0)
    ):
        return None
    return [("practice", "drink", True)]


@_entry(r"(?P<v>tabs|spaces)(?: for indentation| over (?:tabs|spaces)| always| only| forever|$)")
def _indentation_fragment(match):
    return [("indentation", match.group("v"), True)]


@_entry(r"teaches (?P<v>[a-z][\w ]{1,30}?)(?: at (?P<e>.+))?$")
def _teaches(match):
    found = [("job", f"{clean_value(match.group('v'))} teacher", True)]
    if match.group("e") and clean_value(match.group("e")):
        found.append(("employer", clean_value(match.group("e")), True))
    return found


@_entry(
    r"(?P<neg>(?:is )?not |is no longer )?(?:is )?(?:totally |definitely |really |such )?(?:a |an )"
    r"(?P<v>morning person|early bird|early riser|night owl|night person|morning type)\b"
)
def _chronotype(match):
    value = "morning" if match.group("v").startswith(("morning", "early")) else "night"
    return [("chronotype", value, not match.group("neg"))]


@_entry(
    r"(?:is |has been )?(?:renting|rents) (?:a |an |their |our )?(?:flat|apartment|house|place|"
    r"room|studio|home)\b|(?:is )?(?:a )?(?:renter|tenant)\b"
)
def _renter(match):
    return [("housing", "renter", True)]


@_entry(
    r"(?:has |have )?(?:just )?(?:bought|purchased|owns|closed on) (?:a |an |their |our |the )?"
    r"(?:first |new |own )?(?:house|home|flat|apartment|condo|place)\b|(?:is )?(?:a )?"
    r"(?:homeowner|home owner)\b"
)
def _owner(match):
    return [("housing", "owner", True)]


@_entry(
    rf"(?:has |have )?(?:just )?(?:adopted|got|rescued|brought home|welcomed) (?:a |an |our |their "
    rf"|a new |another )?(?:[\w-]+ )?(?P<pet>{PETS})\b(?! (?:named|called))"
)
def _got_pet(match):
    return [("practice", pet_kind(match.group("pet")), True)]


@_entry(
    r"(?P<neg>is not |is no longer |is not really |is not much of |not )?(?:is )?(?:a |an )"
    r"(?:big |huge |real |total )?(?P<v>coffee|tea|morning|night|dog|cat|beach|gym|wine|beer|"
    r"book|people|city|country|sports?|football|running|gaming|outdoors) (?:person|drinker|"
    r"lover|fan|guy|"
    r"girl|type)\b"
)
def _kind_of_person(match):
    return [("practice", match.group("v"), not match.group("neg"))]


@_entry(r"(?:is a |is an )?(?P<neg>non-|non |ex-|former )(?P<v>smoker|drinker|vaper)")
def _non_smoker(match):
    return [("practice", match.group("v"), False)]


@_entry(r"(?:is a |is an )?(?:heavy |regular |social |occasional |daily )?(?P<v>smoker|vaper)\b")
def _smoker(match):
    return [("practice", match.group("v"), True)]


@_entry(
    r"(?:smokes|vapes|drinks|still smokes|smokes? (?:about |around )?\d+|drinks (?:a lot of )?"
    r"(?:coffee|alcohol|beer|wine))\b(?P<rest>.*)"
)
def _smokes(match):
    verb = match.group(0).split()[0]
    obj = match.group(0)[len(verb) :].strip()
    return [("practice", f"{verb} {clean_value(obj)}".strip(), True)]


@_entry(
    rf"(?:is |has been |have been )?(?:training for|preparing for|working towards|"
    rf"working toward|aiming for|aiming to|planning to|plans to|wants to|hopes to|"
    rf"is going to|signed up for|registered for|is signed up for|is registered for|"
    rf"is studying for|learning|studying|taking (?:\w+ )?(?:classes|lessons|a course) in|"
    rf"is writing|is working on|is building|is developing|is making|writing|working on|"
    rf"(?:has |have )?(?:started|taken up|picked up|got into|gotten into|began) "
    rf"(?:learning |playing |doing |practicing |practising |training )?)(?: for| to)?\s*{_V}"
)
def _pursues(match):
    value = clean_value(match.group("v"))
    if not value or value.split()[0] in {"that", "this", "it", "to", "be", "work", "a"}:
        return (
            None
            if not value or value.split()[0] != "a" or len(value.split()) < 2
            else [("practice", value, True)]
        )
    return [("practice", value, True)]


@_entry(
    r"(?:goal|aim|dream|plan|ambition|resolution|new year's resolution) (?:for [\w ]+ )?"
    rf"is (?:to )?{_V}"
)
def _goal(match):
    value = clean_value(match.group("v"))
    return [("practice", value, True)] if value else None


_USE_VERBS = (
    r"uses|is using|has been using|relies on|swears by|runs|keeps [\w ]{1,30}? in|drives|"
    r"organi[sz]es (?:everything|"
    r"(?:their|his|her) \w+) (?:in|with)|keeps (?:everything|(?:their|his|her) \w+) in|"
    r"tracks (?:everything|(?:their|his|her) \w+) in|manages (?:everything|(?:their|his|her) "
    r"\w+) (?:in|with)|does (?:everything|all (?:their|his|her) \w+) in|lives in|plays|"
    r"practices|practises|goes (?:to )?|does|attends|rides|drives|owns"
)


@_entry(rf"(?P<verb>{_USE_VERBS})\s+{_V}")
def _uses(match):
    value = clean_value(match.group("v"))
    if not value or value.split()[0] in {"it", "that", "this", "to", "a", "not", "so", "well"}:
        return None
    return [("practice", value, True)]


_LOVE = (
    r"loves|love|likes|like|enjoys|enjoy|adores|is into|is passionate about|is obsessed with|"
    r"is a (?:big |huge |massive )?fan of|is keen on|is crazy about|is fond of|really likes|"
    r"has come to love|has grown to love|came to love|grew to love|learned to love|"
    r"learnt to love|has learned to love|started to love|started loving|now loves|"
    r"has fallen in love with|fell in love with|got into|has gotten into|is hooked on|"
    r"actually enjoys|finds (?P<o1>.+?) (?:fun|enjoyable|relaxing)"
)
_HATE = (
    r"hates|hate|dislikes|dislike|detests|loathes|can not stand|does not like|do not like|"
    r"does not enjoy|is not into|is not a fan of|is not keen on|has grown to hate|"
    r"has come to hate|now hates|started to hate|got tired of|is tired of|is sick of|"
    r"has had enough of|no longer (?:likes|enjoys|loves)|can not bear|avoids|"
    r"is not a big fan of|finds (?P<o2>.+?) (?:boring|tedious|awful|miserable|exhausting)"
)


@_entry(rf"(?P<neg>{_HATE}) (?P<v>.+)|(?:{_LOVE}) (?P<v2>.+)")
def _sentiment(match):
    raw = match.group("v") or match.group("v2") or ""
    raw = match.groupdict().get("o1") or match.groupdict().get("o2") or raw
    value = clean_value(raw)
    if not value or value.split()[0] in {"it", "that", "this", "them", "to be", "when"}:
        return None
    found = [("sentiment", value, not match.group("neg"))]
    if employer := re.match(r"(?:their |his |her )?job (?:at|with) (?P<e>.+)$", raw):
        found.append(("employer", clean_value(employer.group("e")), True))
    if not match.group("neg") and object_key(value) & _HABITS:
        found.append(("practice", "drink", True))  # "loves a glass of wine most nights"
    return found


_HABITS = frozenset({"drink"})


@_entry(
    r"(?:name is|goes by|is called|is named|prefers to be called|likes to be called) "
    r"(?P<v>[a-z][\w'-]*)$"
)
def _name(match):
    return [("name", match.group("v"), True)]
