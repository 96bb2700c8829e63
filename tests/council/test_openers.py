"""Openers and idioms: drawn by weight from a seeded Random, fitted to the gate's rule, idioms throttled."""

from __future__ import annotations

import itertools
import random

import pytest

from chrysalis.council import IDIOMS, OPENERS, Phrase, Voice, weighted_choice


def test_a_seeded_voice_replays_word_for_word() -> None:
    def talk(seed: int) -> list[str | None]:
        voice = Voice(random.Random(seed))
        idioms = [voice.idiom(name) for name in ("ada", "david", "phil", "lea") * 5]
        return idioms + [voice.opener(name, "interject") for name in ("ada", "phil") * 5]

    assert talk(4) == talk(4)
    assert any(talk(4) != talk(seed) for seed in range(5, 10))


def test_an_opener_fits_the_rule_that_let_the_persona_speak() -> None:
    voice = Voice(random.Random(0))
    triggered = {voice.opener("david", "trigger") for _ in range(60)}
    assert triggered == {p.text for p in OPENERS["david"]}
    assert {voice.opener("david", "mention") for _ in range(20)} == {"A check on our own reasoning:"}
    assert "Thanks for asking." not in {voice.opener("lea", "interject") for _ in range(40)}
    assert voice.opener("critic", "interject") is None  # no entries: the model's own words stand


def test_weights_decide_how_often_and_zero_never() -> None:
    rng = random.Random(1)
    phrases = [Phrase("a", 3), Phrase("b", 1), Phrase("never", 0)]
    drawn = [weighted_choice(rng, phrases) for _ in range(4000)]
    count_a = sum(1 for p in drawn if p is not None and p.text == "a")
    assert 2800 < count_a < 3200 and all(p is not None and p.text != "never" for p in drawn)
    assert weighted_choice(rng, []) is None and weighted_choice(rng, [Phrase("x", 0)]) is None


def test_idioms_are_throttled_and_never_repeat_running() -> None:
    voice = Voice(random.Random(2), idiom_every=3)
    said = [voice.idiom("phil") for _ in range(12)]
    assert [s is not None for s in said] == [True, False, False] * 4
    used = [s for s in said if s is not None]
    assert all(a != b for a, b in itertools.pairwise(used))
    assert set(used) <= {p.text for p in IDIOMS["phil"]}
    every = Voice(random.Random(2), idiom_every=1)
    assert all(every.idiom("ada") is not None for _ in range(6))
    assert Voice(random.Random(2)).idiom("critic") is None


def test_a_bad_throttle_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="idiom_every"):
        Voice(random.Random(0), idiom_every=0)
