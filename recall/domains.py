"""Life domains: how a memory can matter to a prompt that shares no word with it.

"Where should we eat on Friday?" needs "User is vegetarian"; "plan me a long weekend away"
needs "User is saving for a house" and "User is afraid of flying". Each domain of everyday
life (diet, health, family, pets, home, transport, work, money, sport, hobbies, travel, social
habits, tech, languages, events) says what its memories are *about* and what requests *need*
them. A memory belongs to the domains whose `about` words it uses or whose description its
vector is close to (computed at index build, from vectors already stored); a prompt needs the
domains whose `needed_for` words it uses or whose description its vector is close to. A
request for personal help then reaches the memories of the domains it needs.

Works offline: the descriptions are embedded by the configured embedder, once per process.
"""

from __future__ import annotations

import hashlib
import re
import threading
from dataclasses import dataclass
from functools import cache

import numpy as np

from integrations.embeddings import embed_texts


@dataclass(frozen=True)
class Domain:
    """A life domain: the facts that belong to it, and the requests that need those facts."""

    name: str
    about: str
    needed_for: str
    about_words: frozenset[str]
    needed_words: frozenset[str]


def _domain(name: str, about: str, needed_for: str, about_words: str, needed_words: str) -> Domain:
    return Domain(
        name, about, needed_for, frozenset(about_words.split()), frozenset(needed_words.split())
    )


DOMAINS: tuple[Domain, ...] = (
    _domain(
        "diet",
        "what the user eats or avoids: vegetarian, vegan, allergies, intolerances, alcohol",
        "restaurants, dinner, lunch, takeaway, ordering food, cooking, recipes, groceries, "
        "snacks, a menu, a pub or bar, drinks, fasting, meal plans",
        """vegetarian vegan pescatarian meat fish diet allergy allergic peanut peanuts nut nuts
        gluten lactose dairy intolerant intolerance halal kosher alcohol drink drinks sober
        teetotal coffee caffeine sugar keto eat eats eating food oven kitchen cook cooks""",
        """restaurant restaurants dinner lunch breakfast brunch takeaway takeout order ordering
        menu cook cooking recipe recipes grocery groceries snack snacks meal meals eat eating
        food dish dishes pub bar bars drink drinks cocktail cocktails party fast fasting bake
        baking cafe thai indian chinese italian curry pizza barbecue bbq picnic dessert
        desserts cake cakes treat treats sweets chocolate cereal cereals hosting""",
    ),
    _domain(
        "health",
        "the user's health: injuries, conditions, pain, migraines, medication, disabilities",
        "exercise plans, sport, workouts, pain, headaches, symptoms, long walks, stairs, "
        "screens and charts, sleep, fasting, travel comfort",
        """injury injured knee knees back shoulder ankle hip pain migraine migraines headache
        headaches asthma diabetes diabetic condition chronic surgery medication medicine
        disability wheelchair blind colour color colorblind deaf hearing eyesight insomnia
        anxiety pregnant pregnancy epilepsy arthritis acl physio afraid fear fears phobia
        scared heights vertigo""",
        """workout workouts exercise exercises gym run running couch 5k marathon training
        hike hiking walk walking stairs sport sports fitter fitness pain ache aches headache
        head pounding symptoms doctor chart charts colours colors palette fasting fast
        highlight highlights highlighting spreadsheet spreadsheets sheets graph graphs
        dashboard league basketball soccer football hockey tennis skiing ski dance dancing
        climbing zipline rollercoaster tower rooftop coffee caffeine alcohol wine beer
        medicine medicines pill pills supplement supplements painkiller painkillers ibuprofen
        aspirin vaccine vaccination""",
    ),
    _domain(
        "family",
        "the user's partner, children, parents, siblings, relatives and close friends",
        "gifts, presents, birthdays, anniversaries, date nights, weekend plans, family "
        "activities, visits, holidays together, childcare",
        """wife husband partner boyfriend girlfriend spouse fiance fiancee son daughter kid kids
        child children baby toddler mum mom mother dad father parents sister brother sibling
        siblings grandma grandmother grandpa grandfather aunt uncle cousin niece nephew
        friend friends family sis bro girl boy hubby inlaws""",
        """gift gifts present presents birthday birthdays anniversary anniversaries date
        weekend activities activity visit visiting family christmas valentine surprise
        together childcare babysitter half sibling kids rainy afternoon guest guests
        visitor visitors wife husband partner spouse son daughter kid child children girl
        boy mum mom mother dad father parents sister brother sis""",
    ),
    _domain(
        "pets",
        "the user's pets: dogs, cats and other animals",
        "going away, holidays, travel, house plants, moving home, long days out, the vet",
        """pet pets dog dogs puppy cat cats kitten rabbit hamster parrot horse retriever
        labrador beagle terrier collie spaniel greyhound pup pups newfoundland""",
        """away fortnight holiday holidays trip trips travel houseplants plants lilies flowers
        moving vet arrange leave leaving sitter dog dogs pup puppy cat cats pet pets""",
    ),
    _domain(
        "home",
        "where the user lives: city, neighbourhood, flat or house, garden, renting or owning",
        "things near them, local events, the weather, markets, furniture, gardening, growing "
        "plants, decorating, moving house, getting a pet",
        """live lives living city town village neighbourhood neighborhood flat apartment
        house studio garden balcony rent rents renting landlord mortgage floor elevator lift
        stairs suburb moved relocated relocating hometown address""",
        """live lives living home address hometown neighbourhood neighborhood city town
        near nearby local weather markets market furniture sofa bed grow growing garden
        gardening vegetables plants decorate decorating diy move moving dog dogs cat cats
        puppy kitten pet pets heat heating insulation boiler solar renovate renovation
        place backyard yard tub""",
    ),
    _domain(
        "transport",
        "how the user gets around: a car or none, bike, public transport, driving licence",
        "getting somewhere, big shopping trips, carrying things home, commuting, airports, "
        "day trips, moving furniture",
        """car cars drive drives driving licence license bike bicycle cycle cycles train bus tube
        metro tram commute commutes transport electric""",
        """somewhere shop shopping grocery groceries carry airport station commute quickest
        route sofa ikea furniture delivery pick collect drive driving road roadtrip car cars
        vehicle mechanic engine tyre tyres tire tires parking petrol fuel""",
    ),
    _domain(
        "work",
        "the user's job, employer, profession, working hours, shifts and on-call duties",
        "career, CV, LinkedIn, interviews, colleagues, working hours, availability, planning "
        "evenings and weekends around work",
        """job work works working career employer company office developer engineer nurse
        teacher designer manager shift shifts night nights call on-call remote freelance
        consultant analyst""",
        """career cv resume linkedin headline interview interviews colleague colleagues boss
        job jobs salary raise promotion availability commit commitment weekly every
        course classes league season schedule career cover letter application applications
        apply applying portfolio references workplace meeting meetings""",
    ),
    _domain(
        "money",
        "the user's money: budget, savings goals, debt, income",
        "purchases, memberships, subscriptions, trips, holidays, gifts, anything that costs "
        "money, whether to buy something",
        """budget budgets saving savings save saves debt loan loans money deposit afford
        income salary tight frugal cheap""",
        """buy buying purchase membership subscription subscriptions price prices cost costs
        pounds dollars euros expensive cheap afford trip weekend away holiday premium
        worth getaway upgrade upgrading latest""",
    ),
    _domain(
        "sport",
        "the user's sports and exercise habits: climbing, running, gym, swimming, cycling",
        "sports gear, shoes, equipment, training, fitness, weekends, holidays with activities",
        """bouldering climbing climb run running runner marathon gym swim swimming cycling
        yoga pilates football tennis basketball lifting weights hiking rowing kayak kayaking
        paddle paddling sailing surf surfing ski skiing skating hockey soccer dip""",
        """shoes gear equipment training sport sports fitter fitness session sessions""",
    ),
    _domain(
        "hobbies",
        "the user's hobbies and tastes: music, books, films, games, chess, crafts, instruments",
        "gifts, recommendations of music, books, films, games, evenings, learning a skill",
        """hobby hobbies music band bands britpop jazz rock album song songs book books novel
        novels reading film films movie movies series game games gaming chess pottery
        painting drawing knitting crafts photography guitar piano violin cello instrument
        concert concerts gardening podcast podcasts sing sings singing choir orchestra
        vinyl models""",
        """recommend recommendation recommendations listen read play playlist repertoire
        opening openings level practise practice learn evening sight reading project
        projects bored spare voice hobby hobbies pastime""",
    ),
    _domain(
        "travel",
        "how the user travels: fears (flying), preferences (cottages, hotels), passports",
        "trips, holidays, getting to a city or a conference abroad, flights, plans away",
        """flying fly flights travel travelling holiday holidays cottage cottages hotel hotels
        abroad passport""",
        """trip trips travel holiday holidays getaway away abroad conference flight flights
        plan visit stay accommodation hotel hotels airbnb""",
    ),
    _domain(
        "social",
        "how the user likes to spend time: crowds, noise, quiet, nightlife, introvert, routines",
        "going out, events, festivals, new year's eve, concerts, parties, busy places, "
        "evenings out, early starts",
        """crowds crowded noisy noise quiet introvert extrovert nightlife parties early riser
        owl bed sleep sleeps""",
        """going out event events festival festivals concert concerts party parties eve year
        busy evening night nightlife club clubs""",
    ),
    _domain(
        "tech",
        "the user's devices and tools: phone, laptop, operating system, programming language",
        "how-to questions about a phone or computer, screenshots, apps, settings, coding, "
        "tests, libraries, their project",
        """phone iphone android pixel samsung laptop computer mac macbook windows linux ubuntu
        python rust javascript typescript java go editor vim emacs""",
        """screenshot screenshots app apps settings install update phone laptop code coding
        tests test unit library libraries project script programming machine computer
        software""",
    ),
    _domain(
        "languages",
        "the languages the user speaks or is learning",
        "translations, travelling abroad, reading or writing in another language",
        """speaks speak language languages english spanish portuguese french german italian
        japanese mandarin conversational fluent native""",
        """translate translation phrase phrases phrasebook language abroad podcast podcasts
        lessons""",
    ),
    _domain(
        "events",
        "upcoming events in the user's life: a wedding, a move, a birth, a big birthday",
        "planning the months ahead, the big day, guests, organising, what to prepare",
        """wedding married getting engaged moving birth due turns seventieth seventy
        anniversary upcoming""",
        """big day organising organise organize prepare planning months coming guests
        speech""",
    ),
)
NAMES = tuple(domain.name for domain in DOMAINS)
# Changes whenever a domain's words or descriptions do, so cached memberships are rebuilt.
FINGERPRINT = hashlib.sha256(
    repr(
        [
            (d.name, d.about, d.needed_for, sorted(d.about_words), sorted(d.needed_words))
            for d in DOMAINS
        ]
    ).encode()
).hexdigest()[:12]

_WORD = re.compile(r"[a-z]+")
# Cosine to a domain's description from which a memory (or a prompt) starts to belong to it,
# and where it belongs fully (MiniLM scale; other embedders lean on the word lists).
MEMORY_COSINE = (0.30, 0.55)
PROMPT_COSINE = (0.30, 0.55)
# A word of the domain in a memory's caption makes it a member; in its full text only, partly.
_FULL_TEXT_WORD = 0.6
# A single quote opens or closes a quotation only away from letters: "I'm" and "kid's" are
# contractions, not quotes.
_QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<![A-Za-z])'[^']{3,}'(?![A-Za-z])")


def _hits(text: str, vocabulary: str) -> np.ndarray:
    words = set(_WORD.findall(text.lower()))
    return np.array(
        [1.0 if words & getattr(domain, vocabulary) else 0.0 for domain in DOMAINS], np.float32
    )


_lock = threading.Lock()


@cache
def _prototypes(model_id: str, side: str) -> np.ndarray:
    return embed_texts([getattr(domain, side) for domain in DOMAINS])


def prototypes(model_id: str, side: str) -> np.ndarray:
    """The domains' `about` or `needed_for` descriptions embedded with `model_id`, once."""
    with _lock:
        return _prototypes(model_id, side)


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
        return np.zeros((0, len(DOMAINS)), dtype=np.float32)
    words = np.stack(
        [
            np.maximum(_hits(caption, "about_words"), _FULL_TEXT_WORD * _hits(text, "about_words"))
            for caption, text in zip(captions, texts, strict=True)
        ]
    )
    by_vector = _by_vector(vectors, model_id, "about", MEMORY_COSINE)
    found = words if by_vector is None else np.maximum(words, by_vector)
    return found.astype(np.float32)


def needs(prompt: str, vector: np.ndarray | None, model_id: str) -> np.ndarray:
    """How much a prompt needs each domain's memories, (D,) in [0, 1]: its words or vector."""
    words = _hits(_QUOTED.sub(" ", prompt), "needed_words")
    if vector is None:
        return words
    by_vector = _by_vector(vector[None, :], model_id, "needed_for", PROMPT_COSINE)
    return words if by_vector is None else np.maximum(words, by_vector[0]).astype(np.float32)


def need(prompt_needs: np.ndarray, memory_domains: np.ndarray) -> np.ndarray:
    """How much each memory matters to the prompt through its domains, (n,) in [0, 1]."""
    wanted = np.flatnonzero(prompt_needs)
    if not memory_domains.size or not wanted.size:
        return np.zeros(memory_domains.shape[0], dtype=np.float32)
    # Only the few domains the prompt needs: a quarter of the time of all fifteen.
    return (memory_domains[:, wanted] * prompt_needs[wanted]).max(axis=1)


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
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|me|my|we|our|us)\b", re.IGNORECASE)
# "US" in capitals is the country ("Which US states..."), not the pronoun.
_COUNTRY = re.compile(r"\bUS\b")


def _own_words(prompt: str) -> str:
    """The prompt without quotations (not the asker's words) and without the country "US"."""
    return _COUNTRY.sub("U.S.", _QUOTED.sub(" ", prompt))


def reading(prompt: str) -> tuple[bool, bool]:
    """How the prompt reads, in one pass: (a request for personal help, a general question).

    A general question is one anyone could ask ("how long do cats live?"), with nothing of the
    person asking in it; a personal request asks for help with the user's own life. Quoted
    text is left out: "Translate 'I would like a tea' into German" is not about the user.
    """
    own = _own_words(prompt).strip()
    asks = bool(_PERSONAL.search(own))
    if _FIRST_PERSON.search(own):
        general = False
    else:
        general = bool(_GENERAL.search(own)) or (own.endswith("?") and not asks)
    return (not general and asks), general


def is_general(prompt: str) -> bool:
    """Whether the prompt is a question anyone could ask (see `reading`)."""
    return reading(prompt)[1]


def is_personal(prompt: str) -> bool:
    """Whether the prompt asks for help with the user's own life (see `reading`)."""
    return reading(prompt)[0]


_NAME = re.compile(r"(?<=[^.!?]\s)[A-Z][a-z]+")


def names(prompt: str) -> list[str]:
    """Capitalised words past a sentence's start: names ("When did Caroline move?")."""
    return _NAME.findall(_QUOTED.sub(" ", prompt))
