"""Vocabularies of everyday statements, shared by the offline extractor and the statement reader."""

from __future__ import annotations

import re


def words(text: str) -> frozenset[str]:
    """A vocabulary written as whitespace-separated words."""
    return frozenset(text.split())


_IRREGULAR_VERBS = {
    "am": "is",
    "are": "is",
    "have": "has",
    "do": "does",
    "go": "goes",
    "was": "was",
    "were": "was",
    "cannot": "cannot",
}
# Past tenses and modals stay as they are ("User got married", "User can swim").
_UNCHANGED_VERB = re.compile(
    r"^(?:[a-z]*[^e]ed|got|gave|quit|left|took|went|began|became|had|made|met|ran|sold|bought|"
    r"found|grew|fell|broke|split|spent|swapped|can|could|will|would|should|might|must|may)$"
)


def third_person(verb: str) -> str:
    """The third person singular of a first-person verb: am -> is, live -> lives, got -> got."""
    lower = verb.lower()
    if lower in _IRREGULAR_VERBS:
        return _IRREGULAR_VERBS[lower]
    if _UNCHANGED_VERB.match(lower):
        return lower
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return f"{lower}es"
    if len(lower) > 2 and lower.endswith("y") and lower[-2] not in "aeiou":
        return f"{lower[:-1]}ies"
    return f"{lower}s"


TECH_TERMS = words(
    """python rust java javascript typescript kotlin swift ruby php perl scala haskell elixir
    erlang clojure lua golang go c++ c# sql bash zsh powershell postgres postgresql mysql sqlite
    mongodb redis kafka docker kubernetes k8s terraform ansible aws gcp azure linux ubuntu debian
    arch fedora macos mac macbook windows ios android vim neovim emacs vscode intellij pycharm
    jetbrains git github gitlab tabs spaces django flask fastapi react vue angular svelte node
    nodejs deno rails spring pandas numpy pytorch tensorflow jupyter terminal shell tmux ide
    editor framework library compiler api apis database databases orm cli typing tdd linter
    formatter laptop keyboard monitor ci kotlin dotnet .net unity unreal excel"""
)
TECH_PHRASES = ("type hints", "unit tests", "static typing", "dark theme", "vs code")

# Breeds people name their pets by ("our beagle Bruno"), and the animal each is.
BREEDS = {
    **dict.fromkeys(
        words(
            """retriever labrador lab beagle poodle corgi husky terrier spaniel collie shepherd
            bulldog pug dachshund chihuahua greyhound whippet schnauzer boxer doberman
            rottweiler labradoodle cockapoo goldendoodle shiba samoyed pomeranian maltese yorkie
            pit pitbull mutt sheepdog malinois vizsla weimaraner golden goldie pup doggo"""
        ),
        "dog",
    ),
    **dict.fromkeys(words("tabby siamese persian ragdoll sphynx bengal moggy"), "cat"),
}
PETS = (
    r"dog|cat|puppy|kitten|pet|bird|parrot|rabbit|bunny|hamster|guinea pig|horse|pony|fish|"
    r"goldfish|tortoise|turtle|snake|lizard|ferret|" + "|".join(sorted(BREEDS))
)
FAMILY = (
    r"partner|wife|husband|girlfriend|boyfriend|fianc[e\u00e9]e?|spouse|son|daughter|kid|"
    r"child|baby|brother|sister|mother|mom|mum|father|dad|grandmother|grandma|granny|"
    r"grandfather|grandpa|twin|stepson|stepdaughter"
)
RELATION = (
    rf"(?:(?:old|new|little|big|baby|older|younger|eldest|oldest|youngest|twin|step|only|"
    rf"first|second)\s+)?(?:{PETS}|{FAMILY})"
)
RELATION_PLURAL = (
    r"(?:dogs|cats|kids|children|sons|daughters|brothers|sisters|puppies|kittens|pets|"
    r"rabbits|birds|horses|grandchildren|grandkids|siblings)"
)
COUNT = r"(?:a|an|one|two|three|four|five|six|\d{1,2})"
DEMONYMS = words(
    """American British English Scottish Welsh Irish Canadian Mexican Brazilian Argentinian
    Argentine Chilean Colombian Peruvian Venezuelan Cuban French German Dutch Belgian Swiss
    Austrian Italian Spanish Portuguese Greek Turkish Polish Czech Slovak Hungarian Romanian
    Bulgarian Serbian Croatian Slovenian Ukrainian Russian Belarusian Lithuanian Latvian Estonian
    Finnish Swedish Norwegian Danish Icelandic Chinese Japanese Korean Vietnamese Thai Filipino
    Indonesian Malaysian Singaporean Indian Pakistani Bangladeshi Nepali Iranian Iraqi Israeli
    Lebanese Syrian Jordanian Egyptian Moroccan Algerian Tunisian Nigerian Ghanaian Kenyan
    Ethiopian Australian Scandinavian European Asian African Latino Latina"""
)
JOB_WORDS = words(
    """nurse doctor chef cook pilot surgeon dentist pharmacist vet veterinarian lawyer attorney
    accountant architect analyst consultant scientist engineer developer programmer designer
    teacher lecturer professor tutor student researcher writer author journalist editor artist
    musician photographer paramedic firefighter officer soldier farmer mechanic electrician
    plumber carpenter builder barista bartender waiter waitress cashier clerk manager director
    founder co-founder cofounder ceo cto cfo coo intern freelancer contractor therapist
    psychologist psychiatrist physiotherapist librarian translator interpreter driver parent
    homemaker retiree pensioner entrepreneur owner specialist technician administrator admin
    coordinator assistant secretary receptionist salesperson marketer recruiter economist
    statistician mathematician physicist chemist biologist historian coach trainer instructor
    athlete dancer actor actress singer producer sre devops pm midwife nanny cleaner
    postdoc phd undergrad undergraduate graduate"""
)
JOB_SUFFIX = re.compile(r"(?:er|or|ist|ian|eer|ant|ent|ect|ive|man|woman|person|ologist)$")
NOT_A_JOB = words(
    """bit lot little tad mess wreck sucker winner loser monster disaster pain joke fool liar
    idiot nightmare number fan bother burden"""
    # Diets, faiths and nationalities end like jobs (-ian, -ist, -er) but are none.
    """ vegetarian vegan pescatarian pescetarian flexitarian carnivore omnivore christian
    buddhist atheist agnostic australian canadian italian brazilian indian russian norwegian
    egyptian colombian nigerian iranian hungarian belgian austrian peruvian croatian
    ukrainian romanian bulgarian estonian latvian lithuanian serbian syrian jordanian
    malaysian indonesian venezuelan argentinian chilean tunisian algerian ethiopian
    kenyan haitian jamaican asian european american african"""
)
LANGUAGES = words(
    """english german french spanish italian portuguese dutch polish russian ukrainian chinese
    mandarin cantonese japanese korean arabic hindi urdu bengali turkish greek swedish norwegian
    danish finnish hebrew persian farsi vietnamese thai indonesian malay tagalog swahili czech
    hungarian romanian catalan basque welsh irish gaelic sign asl bsl"""
)
