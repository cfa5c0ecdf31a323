"""The lexical side of recall: a small English tokenizer with stopwords and light stemming."""

from __future__ import annotations

import re
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

# Function words and question words: they carry no topic, and in prompts ("what did I say
# about ...") they would otherwise match every memory that happens to contain them.
_STOPWORD_TEXT = """
    a about above after again against all am an and any are aren as at be because been before
    being below between both but by can could couldn did didn do does doesn doing don down
    during each few for from further had hadn has hasn have haven having he her here hers
    herself him himself his how i if in into is isn it its itself just let ll me might more
    most must my myself no nor not now of off on once only or other ought our ours ourselves
    out over own re s same shan she should shouldn so some such t than that the their theirs
    them themselves then there these they this those through to too under until up ve very
    was wasn we were weren what when where which while who whom why will with won would
    wouldn you your yours yourself yourselves also any anything something thing things really
    get got tell told said say says know like yes ok okay oh hey hi please thanks thank would
    could maybe much many one ever still even well yeah via etc kind sort
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_IRREGULAR = {"children": "child", "men": "man", "women": "woman", "people": "person"}


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """Strip common English inflections (a light stemmer: plurals, -ing, -ed, -ly)."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word.isdigit():
        return word
    for suffix, replacement, min_stem in (
        ("ies", "y", 3),
        ("sses", "ss", 2),
        ("ness", "", 4),
        ("ing", "", 3),
        ("edly", "", 3),
        ("ed", "", 3),
        ("ly", "", 4),
        ("es", "", 4),
        ("s", "", 3),
    ):
        if word.endswith(suffix) and len(word) - len(suffix) >= min_stem:
            base = word[: -len(suffix)] + replacement
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            if suffix == "es" and not base.endswith(("ch", "sh", "x", "ss", "z", "o")):
                # "likes" -> "like", "boxes" -> "box": only the sibilant plurals drop "es".
                return word[:-1]
            if suffix in {"ing", "ed"} and len(base) >= 3 and base[-1] == base[-2]:
                base = base[:-1]  # "running" -> "run", "planned" -> "plan"
            return base
    return word


def tokenize(text: str) -> list[str]:
    """Lower-case words without stopwords, stemmed."""
    words = (w.split("'", 1)[0] for w in _TOKEN.findall(text.lower()))
    return [stem(w) for w in words if w not in STOPWORDS]
