import pytest

from roman import from_roman, to_roman


def test_to_roman_examples():
    assert to_roman(1) == "I"
    assert to_roman(4) == "IV"
    assert to_roman(1994) == "MCMXCIV"


def test_to_roman_out_of_range():
    with pytest.raises(ValueError):
        to_roman(0)


def test_from_roman_examples():
    assert from_roman("IV") == 4
    assert from_roman("MCMXCIV") == 1994
    assert from_roman("xii") == 12


def test_from_roman_invalid():
    with pytest.raises(ValueError):
        from_roman("HELLO")
