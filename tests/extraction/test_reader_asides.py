"""The offline reader on chat asides: an adverb or filler between "and" and the next subject
("i'm a welder and honestly i love it"), chat shorthands ("rn", "atm", "tmrw"), and names
typed after a counted group no lexicon lists ("we've got three ferrets, Bo, Kit and Fig")."""

from __future__ import annotations

import pytest

from extraction.reader import read_statements


def _read(user_says: str) -> list[str]:
    return [c.caption for c in read_statements([{"role": "user", "content": user_says}])]


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("im a welder and honestly im knackered", "User is a welder"),
        ("i do pottery on sundays and tbh my wife thinks its a waste of money",
         "User does pottery on sundays"),
        ("I'm a sous chef and actually my brother runs a bakery", "User's brother runs a bakery"),
    ],
)  # fmt: skip
def test_a_statement_before_and_an_aside_and_a_new_subject_is_kept(user_says, caption):
    assert caption in _read(user_says)


def test_a_chat_shorthand_is_read_as_the_words_it_stands_for():
    # "at the moment", "tomorrow": never a name or a word of a caption.
    assert not any("atm" in c for c in _read("im staying with my parents atm"))
    assert not any("tmrw" in c for c in _read("my sister Aoife flies in tmrw, she's a vet"))
    # Typed in capitals it is a word of its own: a registered nurse.
    assert _read("I'm an RN on a cardiac ward") == ["User is an RN on a cardiac ward"]
    # After a determiner it is the thing: a cash machine.
    assert "User's atm" not in " ".join(_read("the atm near my flat ate my card"))


@pytest.mark.parametrize(
    ("user_says", "caption"),
    [
        ("we've got three ferrets, Bo, Kit and Fig", "User's ferrets are called Bo, Kit and Fig"),
        ("I've got two sisters, Maeve and Orla", "User's sisters are called Maeve and Orla"),
        ("we keep two alpacas, Dolly and Juno", "User's alpacas are called Dolly and Juno"),
    ],
)
def test_names_typed_after_a_counted_group_name_the_group(user_says, caption):
    captions = _read(user_says)
    assert caption in captions
    assert not any(c.startswith("User has ") and c.split()[-1] in caption for c in captions[1:])


def test_a_counted_group_listed_in_lower_case_is_not_named():
    # Lower case after a group no lexicon lists: things, not names ("two jobs, barista and
    # tutor" are no job's names).
    assert not any("called" in c for c in _read("I have two jobs, barista and tutor"))
