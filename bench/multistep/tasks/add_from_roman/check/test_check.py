import os
import sys

sys.path.insert(0, os.getcwd())

import pytest

import cli
import roman


def test_from_roman_values():
    assert roman.from_roman("MMXXIV") == 2024
    assert roman.from_roman("XLII") == 42
    assert roman.from_roman("CDXLIV") == 444
    assert roman.from_roman("MMMCMXCIX") == 3999


def test_from_roman_lowercase():
    assert roman.from_roman("xc") == 90
    assert roman.from_roman("mcmlxxxiv") == 1984


def test_round_trip():
    for n in range(1, 4000):
        assert roman.from_roman(roman.to_roman(n)) == n


@pytest.mark.parametrize("bad", ["ABC", "X1", "12"])
def test_from_roman_invalid(bad):
    with pytest.raises(ValueError):
        roman.from_roman(bad)


def test_convert_both_directions():
    assert cli.convert("XIV") == "14"
    assert cli.convert(" mmxxiv ") == "2024"
    assert cli.convert("14") == "XIV"
    assert cli.convert("3999") == "MMMCMXCIX"


def test_tests_mention_from_roman():
    with open(os.path.join(os.getcwd(), "tests", "test_roman.py")) as fh:
        assert "from_roman" in fh.read()
