"""How a caption is compared with a label: the content words both hold (`token_f1`), and the
best one-to-one pairing of captions with labels (`match_captions`).

A caption matches a label when their content-word F1 is at least MATCH_THRESHOLD: the subject,
articles and auxiliaries differ between equally good phrasings, negations do not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache

from core.lexicon import lexicon

MATCH_THRESHOLD = 0.6


# Words that carry no fact: every caption starts with "User", and articles or auxiliaries differ
# between equally good phrasings. Negations are kept, so "likes" never matches "doesn't like".
_STOP_WORDS = frozenset(
    {
        "user",
        "users",
        "s",
        "a",
        "an",
        "the",
        "is",
        "are",
        "am",
        "was",
        "were",
        "be",
        "been",
        "being",
        "to",
        "of",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "with",
        "as",
        "by",
        "from",
        "their",
        "they",
        "them",
        "his",
        "her",
        "its",
        "it",
        "that",
        "this",
        "who",
        "which",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "very",
        "really",
        "also",
        "just",
        # "User is 41" and "User is 41 years old" state the same age.
        "years",
        "year",
        "old",
        "aged",
    }
)
_TOKEN = re.compile(r"[^\W_]+")


@cache
def _canonical() -> dict[str, str]:
    """Each word of the extractor's same-words lexicon (kids/children, mum/mother,
    favourite/favorite) to the first of its group: the wording a model picks is not a miss."""
    return {word: group.split()[0] for group in lexicon("same_words") for word in group.split()}


def caption_tokens(caption: str) -> frozenset[str]:
    """The content words of a caption, lower-cased, with negations as the token "not"."""
    text = caption.lower().replace("\u2019", "'")
    text = re.sub(r"n't\b", " not", text).replace("cannot", "can not")
    canonical = _canonical()
    return frozenset(
        canonical.get(token, token) for token in _TOKEN.findall(text) if token not in _STOP_WORDS
    )


def token_f1(predicted: str, expected: str) -> float:
    """F1 of the two captions' content-word sets: 1.0 for the same words, 0.0 for none shared."""
    left, right = caption_tokens(predicted), caption_tokens(expected)
    shared = len(left & right)
    if not shared:
        return 0.0
    precision, recall = shared / len(left), shared / len(right)
    return 2 * precision * recall / (precision + recall)


def match_captions(
    predicted: Sequence[str],
    expected: Sequence[str],
    threshold: float = MATCH_THRESHOLD,
    *,
    allowed: Callable[[int, int], bool] | None = None,
) -> list[tuple[int, int]]:
    """Pair predictions with labels, best overlap first, each label and prediction used once;
    `allowed(guess, label)` may rule a pair out whatever its overlap."""
    scored = sorted(
        (
            (token_f1(guess, label), guess_index, label_index)
            for guess_index, guess in enumerate(predicted)
            for label_index, label in enumerate(expected)
            if allowed is None or allowed(guess_index, label_index)
        ),
        reverse=True,
    )
    used_guesses: set[int] = set()
    used_labels: set[int] = set()
    pairs: list[tuple[int, int]] = []
    for score, guess_index, label_index in scored:
        if score < threshold:
            break
        if guess_index in used_guesses or label_index in used_labels:
            continue
        used_guesses.add(guess_index)
        used_labels.add(label_index)
        pairs.append((guess_index, label_index))
    return sorted(pairs)
