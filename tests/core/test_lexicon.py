"""The lexicon files with a declared format are loaded strictly: a malformed line is an error,
never skipped, and the files in the repository hold to their formats (a data-integrity test)."""

from __future__ import annotations

import pytest

from core import lexicon as lexicons
from core.lexicon import LexiconFormatError, broader, tagged


@pytest.fixture
def lexicon_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(lexicons, "LEXICONS", tmp_path)
    broader.cache_clear()
    tagged.cache_clear()
    lexicons.lexicon.cache_clear()
    yield tmp_path
    broader.cache_clear()
    tagged.cache_clear()
    lexicons.lexicon.cache_clear()


@pytest.mark.parametrize("line", ["beagle dog", "beagle > dog > pet", "> pet", "beagle >"])
def test_a_kinds_line_without_one_arrow_is_an_error(lexicon_dir, line):
    (lexicon_dir / "kinds_bad.txt").write_text(f"# comment\n{line}\n")

    with pytest.raises(LexiconFormatError):
        broader("kinds_bad")


def test_a_word_with_two_broader_terms_is_an_error(lexicon_dir):
    (lexicon_dir / "kinds_bad.txt").write_text("beagle > dog\nbeagle > cat\n")

    with pytest.raises(LexiconFormatError):
        broader("kinds_bad")


@pytest.mark.parametrize("line", ["quit", "stops: quit", "ends:"])
def test_a_tagged_line_without_a_known_tag_is_an_error(lexicon_dir, line):
    (lexicon_dir / "cues_bad.txt").write_text(f"{line}\n")

    with pytest.raises(LexiconFormatError):
        tagged("cues_bad", ("ends", "starts"))


def test_the_kinds_lexicon_holds_to_its_format_and_has_no_cycle():
    kinds = broader("kinds")

    assert kinds["beagle"] == "dog" and kinds["dog"] == "pet"
    for word in kinds:
        seen = {word}
        while word in kinds:
            word = kinds[word]
            assert word not in seen, f"a cycle through {word!r}"
            seen.add(word)


def test_the_change_cues_hold_to_their_format():
    cues = tagged("change_cues", ("ends", "starts", "corrects", "replaces"))

    assert "broke up" in cues["ends"] and "switched" in cues["starts"]
    assert "misspoke" in cues["corrects"]


def test_the_occupations_lexicon_names_each_form_once():
    seen: dict[str, str] = {}
    for line in (lexicons.LEXICONS / "occupations.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip().lower()
        if not line:
            continue
        canonical, _, others = line.partition("=")
        for form in (canonical, *others.split(",")):
            form = form.strip()
            if not form:
                continue
            assert form not in seen, f"{form!r} is under {seen.get(form)!r} and {canonical!r}"
            seen[form] = canonical.strip()
    # Synonyms share a line, siblings do not.
    assert seen["ml engineer"] != seen["data analyst"]
