"""PII redaction applied to candidate memories before anything is stored."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from extraction.candidates import Candidate
from extraction.time_phrases import untimed_length
from memories.text import CAPTION_MAX_LENGTH, FULL_TEXT_MAX_LENGTH, QUOTE_MAX_LENGTH

EMAIL = "[email]"
PHONE = "[phone]"
CARD = "[card]"
ID = "[id]"

# Digits glued to letters, dots, slashes or other digits belong to something else (a version,
# a date, a path, a longer number), so every numeric pattern refuses to start or end inside one.
_NOT_BEFORE = r"(?<![\w.+/\-:$\u20ac\u00a3])"
_NOT_AFTER = r"(?![\w/\-]|[.,:]\d)"

_EMAIL = re.compile(
    r"(?<![\w.+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}\b"
)
# Cards are printed as one run or in groups with one kind of separator (4-4-4-4, 4-6-5 ...).
_CARD = re.compile(rf"{_NOT_BEFORE}\d(?:[ -]?\d){{12,18}}{_NOT_AFTER}")
_IBAN = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
_SSN = re.compile(
    rf"{_NOT_BEFORE}(?!000|666|9\d\d)\d{{3}}-(?!00)\d{{2}}-(?!0000)\d{{4}}{_NOT_AFTER}"
)
# UK National Insurance number: two prefix letters (a few combinations are never issued),
# six digits, a suffix letter A-D; printed with or without spaces.
_UK_NINO = re.compile(
    r"\b(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b"
)
_PHONE_INTERNATIONAL = re.compile(
    r"(?<![\w+])(?:\+|00)\d{1,3}(?:[ .\-]?\(\d{1,5}\)|[ .\-]?\d{1,6}){1,6}(?![\w])"
)
_PHONE_NANP = re.compile(
    rf"{_NOT_BEFORE}(?:\(\d{{3}}\)[ .\-]?|\d{{3}}(?P<sep>[ .\-]))\d{{3}}"
    rf"(?(sep)(?P=sep)|[ .\-])\d{{4}}{_NOT_AFTER}"
)
# National numbers with a trunk 0 (UK 07700 900123, DE 030 1234567, FR 01 23 45 67 89).
_PHONE_TRUNK = re.compile(
    rf"{_NOT_BEFORE}0\d{{2,4}}(?:[ \-]?\d{{2,4}}){{1,4}}{_NOT_AFTER}"
    rf"|{_NOT_BEFORE}0\d(?: \d{{2}}){{4}}{_NOT_AFTER}"
)


def _digits(text: str) -> str:
    """Only the digits of a matched number."""
    return re.sub(r"\D", "", text)


def luhn_valid(number: str) -> bool:
    """Whether a digit string passes the Luhn checksum that payment card numbers carry."""
    total = 0
    for position, char in enumerate(reversed(number)):
        digit = int(char)
        if position % 2:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return total % 10 == 0


def _looks_like_card(number: str) -> bool:
    """A plausible card: 13-19 digits, a known network prefix and a valid Luhn checksum."""
    if not 13 <= len(number) <= 19:
        return False
    # Visa 4, Mastercard 51-55 and 2221-2720, Amex 34/37, Diners 30/36/38, JCB 35, Discover
    # and UnionPay 6: this keeps lists of years ("2019 2020 2021 2022") out.
    prefix_ok = number[0] in "3456" or 2221 <= int(number[:4]) <= 2720
    return prefix_ok and luhn_valid(number)


def _card(match: re.Match[str]) -> str:
    """Replace a card number, even when another number follows it; leave other numbers alone."""
    text = match.group()
    if len(set(re.sub(r"\d", "", text))) > 1:
        return text
    # "4111 1111 1111 1111 2 times": the greedy match swallowed a trailing group, so try the
    # longest leading run of groups that is a card.
    groups = re.split(r"([ -])", text)
    for end in range(len(groups), 0, -2):
        if _looks_like_card(_digits("".join(groups[:end]))):
            return CARD + "".join(groups[end:])
    return text


def _iban(match: re.Match[str]) -> str:
    """Replace an IBAN whose ISO 13616 mod-97 check holds."""
    compact = match.group().replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return match.group()
    rearranged = compact[4:] + compact[:4]
    numeric = "".join(str(int(char, 36)) for char in rearranged)
    return ID if int(numeric) % 97 == 1 else match.group()


def _phone(minimum: int, maximum: int) -> Callable[[re.Match[str]], str]:
    """A replacement that redacts a match only when its digit count fits a phone number."""

    def replace_phone(match: re.Match[str]) -> str:
        count = len(_digits(match.group()))
        return PHONE if minimum <= count <= maximum else match.group()

    return replace_phone


_REPLACEMENTS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    (_EMAIL, EMAIL),
    (_IBAN, _iban),
    (_CARD, _card),
    (_SSN, ID),
    (_UK_NINO, ID),
    (_PHONE_INTERNATIONAL, _phone(8, 15)),
    (_PHONE_NANP, PHONE),
    (_PHONE_TRUNK, _phone(10, 11)),
)


def redact(text: str) -> str:
    """Replace emails, phone numbers, payment cards and national ids with placeholders."""
    for pattern, replacement in _REPLACEMENTS:
        text = pattern.sub(replacement, text)
    return text


def _fit(text: str, limit: int) -> str:
    """Keep a redacted text within its limit (a placeholder can be longer than a short email)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip(" ,")


def caption_fitted(caption: str) -> str:
    """A caption within its limit: one whose time was left in it is cut at a word."""
    return _fit(caption, CAPTION_MAX_LENGTH)


def redact_candidate(candidate: Candidate) -> Candidate:
    """The candidate with PII redacted from its caption, full text and quote (the words kept as
    its evidence, which are the user's own and hold what the caption left out)."""
    redacted = redact(candidate.caption)
    # The time a caption ends on is taken out once read (`extraction.timing`): the caption
    # may run over by it until then (`caption_fitted` is the last word).
    caption = _fit(redacted, CAPTION_MAX_LENGTH + len(redacted) - untimed_length(redacted))
    full_text = _fit(redact(candidate.full_text), FULL_TEXT_MAX_LENGTH)
    quote = _fit(redact(candidate.quote), QUOTE_MAX_LENGTH)
    if (caption, full_text, quote) == (candidate.caption, candidate.full_text, candidate.quote):
        return candidate
    return replace(candidate, caption=caption, full_text=full_text, quote=quote)
