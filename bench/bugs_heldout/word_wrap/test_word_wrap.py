import pytest

from word_wrap import fill, justify, shorten, wrap


def test_wrap_simple():
    assert wrap("the quick brown fox jumps", 10) == ["the quick", "brown fox", "jumps"]


def test_wrap_collapses_runs_of_whitespace():
    assert wrap("one  two\nthree", 9) == ["one two", "three"]


def test_long_words_are_split():
    assert wrap("a abcdefghij b", 4) == ["a", "abcd", "efgh", "ij b"]


def test_fill():
    assert fill("a b c d", 3) == "a b\nc d"


def test_justify():
    assert justify("This is an example of text", 12) == ["This  is  an", "example   of", "text"]


def test_shorten():
    assert shorten("Hello  world, how are you?", 16) == "Hello world,..."
    assert shorten("  fits  ", 10) == "fits"


def test_width_must_be_positive():
    with pytest.raises(ValueError, match="width"):
        wrap("x", 0)
