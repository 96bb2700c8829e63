import pytest

from rle import compression_ratio, decode, encode, runs


def test_runs():
    assert list(runs("aaab")) == [("a", 3), ("b", 1)]


def test_encode():
    assert encode("aaabcc") == "3ab2c"
    assert encode("") == ""


def test_decode():
    assert decode("3ab2c") == "aaabcc"
    assert decode("12x") == "x" * 12


def test_round_trip_with_spaces():
    text = "  hello    world!!"
    assert decode(encode(text)) == text


def test_max_run_splits_long_runs():
    assert encode("a" * 7, max_run=3) == "3a3aa"


def test_bad_input():
    with pytest.raises(ValueError, match="digits"):
        encode("a1")
    with pytest.raises(ValueError, match="not followed"):
        decode("3a4")
    with pytest.raises(ValueError, match="zero count"):
        decode("0a")


def test_compression_ratio():
    assert compression_ratio("aaaa") == 0.5
    assert compression_ratio("") == 1.0
