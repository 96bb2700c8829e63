"""How the gate finds words: whole words and phrases, any case or spacing, and what it remembers."""

from __future__ import annotations

import pytest

from chrysalis.council import words as words_module
from chrysalis.council.words import Words, said


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("@Lea, see this", {"lea"}),
        ("Lea’s point (LEA)", {"lea"}),
        ("Leah and lea-team and leader", set()),
        ("It is 100% done", {"100%"}),
        ("It is 100 % done", {"100%"}),  # the same two tokens
        ("no base rate given", {"base rate"}),
        ("Base\n\tRATE", {"base rate"}),
        ("base. Rate", set()),
        ("you can't fail here", {"can't fail"}),
        ("a non-trivial change", set()),
        ("a trivial change", {"trivial"}),
    ],
)
def test_words_and_phrases_are_found_whole_in_any_case_and_spacing(text: str, found: set[str]) -> None:
    listed = Words(("lea", "100%", "Base  Rate", "can't fail", "trivial"))
    assert listed.found(text) == found


def test_a_phrase_is_never_found_across_two_texts_and_each_text_is_cut_once() -> None:
    listed = Words(("base rate",))
    assert listed.found("the base") == frozenset() and listed.found("rate is low") == frozenset()
    assert said("Lea, hi") is said("Lea, hi")
    assert said("Lea, hi").spaced == " lea , hi "


def test_what_a_list_found_is_remembered_and_forgotten_all_at_once_when_full(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(words_module, "MEMORY", 2)
    listed = Words(("sure",))
    first = listed.found("I am sure")
    assert listed.found("I am sure") is first
    listed.found("b")
    listed.found("c")  # full: forgotten, then remembered afresh
    assert listed.found("I am sure") == first and listed.found("c") == frozenset()
