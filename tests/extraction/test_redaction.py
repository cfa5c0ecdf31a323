"""PII redaction: every pattern it replaces, and the numbers it must leave alone."""

from __future__ import annotations

import pytest

from extraction.candidates import Candidate
from extraction.redaction import luhn_valid, redact, redact_candidate


@pytest.mark.parametrize(
    "email",
    [
        "jane.doe@example.com",
        "jane.doe+work@example.co.uk",
        "J_Smith-99@mail.example.org",
        "x@y.io",
    ],
)
def test_emails_are_redacted(email: str) -> None:
    assert redact(f"Write to {email} please.") == "Write to [email] please."


@pytest.mark.parametrize(
    "phone",
    [
        "+49 30 1234567",
        "+1 (555) 123-4567",
        "+44 7700 900123",
        "+33 1 23 45 67 89",
        "+4930123456",
        "0049 30 1234567",
        "(555) 123-4567",
        "555-123-4567",
        "555.123.4567",
        "07700 900123",
        "07700900123",
        "020 7946 0958",
        "030 1234567",
        "01 23 45 67 89",
    ],
)
def test_phone_numbers_are_redacted(phone: str) -> None:
    assert redact(f"Call me on {phone} after six.") == "Call me on [phone] after six."


@pytest.mark.parametrize(
    "card",
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111111111111111",
        "5500 0000 0000 0004",
        "2223 0031 2200 3222",
        "3782 822463 10005",
        "378282246310005",
        "6011 1111 1111 1117",
        "4222222222222",
    ],
)
def test_payment_cards_are_redacted(card: str) -> None:
    assert redact(f"My card is {card}, expiring soon.") == "My card is [card], expiring soon."


def test_a_number_after_a_card_is_kept_while_the_card_goes() -> None:
    assert redact("charged 4111 1111 1111 1111 2 times") == "charged [card] 2 times"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("SSN 123-45-6789.", "SSN [id]."),
        ("NI number AB123456C.", "NI number [id]."),
        ("NI number AB 12 34 56 C.", "NI number [id]."),
        ("IBAN DE89 3704 0044 0532 0130 00 for rent.", "IBAN [id] for rent."),
        ("IBAN GB82WEST12345698765432.", "IBAN [id]."),
    ],
)
def test_national_ids_and_account_numbers_are_redacted(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "I was born in 1999 and moved in 2024.",
        "It costs $1,299.99 or 45 EUR, or \u00a3999.",
        "I use Python 3.11.7 and ruff v2.14.1.",
        "The release is version 2024.05.01, build 0.0.1234.",
        "We met on 2024-05-01 at 10:30 and again on 06/05/2024.",
        "The meeting runs 09:00-17:30.",
        "About 12,000 people and 1 000 000 dollars.",
        "Room 101, 3.5 km away, temperature -12.5, score 3-2.",
        "ZIP 94103-1234, postcode SW1A 1AA, Berlin 10115.",
        "Our seasons were 2019 2020 2021 2022.",
        "ISBN 978-3-16-148410-0.",
        "Order 1234567890123 shipped; timestamp 1700000000.",
        "Server 192.168.1.1:8000 is up.",
        "Shops open between 0800 and 1700.",
        "Call 911 or 112.",
        "Card 4111 1111 1111 1112 fails the checksum.",
        "My user id is 123-45-678.",
    ],
)
def test_ordinary_numbers_are_left_alone(text: str) -> None:
    assert redact(text) == text


def test_text_without_pii_is_returned_unchanged() -> None:
    assert redact("User lives in Berlin") == "User lives in Berlin"
    assert redact("") == ""


def test_several_kinds_of_pii_in_one_text_are_all_redacted() -> None:
    text = "Email ann@example.com, phone +44 7700 900123, card 4111111111111111, SSN 123-45-6789."

    assert redact(text) == "Email [email], phone [phone], card [card], SSN [id]."


def test_luhn_checksum() -> None:
    assert luhn_valid("4111111111111111")
    assert luhn_valid("79927398713")
    assert not luhn_valid("4111111111111112")


def test_redact_candidate_redacts_caption_and_full_text_and_keeps_the_rest() -> None:
    candidate = Candidate(
        caption="User's email is ann@example.com",
        full_text="User's email is ann@example.com and their phone is 555-123-4567.",
        category="personal",
        confidence=0.85,
    )

    redacted = redact_candidate(candidate)

    assert redacted.caption == "User's email is [email]"
    assert redacted.full_text == "User's email is [email] and their phone is [phone]."
    assert (redacted.category, redacted.confidence) == ("personal", 0.85)


def test_redact_candidate_returns_a_clean_candidate_as_is() -> None:
    candidate = Candidate("User lives in Berlin", "User lives in Berlin.", "personal", 0.8)

    assert redact_candidate(candidate) is candidate


def test_redacted_candidates_stay_within_the_limits() -> None:
    caption = ("a@b.cd " * 15).strip()[:100]
    candidate = Candidate(caption, "x@y.io " * 70, "other", 0.5)

    redacted = redact_candidate(candidate)

    assert len(redacted.caption) <= 100
    assert len(redacted.full_text) <= 500
    assert "@" not in redacted.caption + redacted.full_text
