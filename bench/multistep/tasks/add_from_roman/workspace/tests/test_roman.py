import pytest

from roman import to_roman


def test_to_roman_examples():
    assert to_roman(1) == "I"
    assert to_roman(4) == "IV"
    assert to_roman(1994) == "MCMXCIV"


def test_to_roman_out_of_range():
    with pytest.raises(ValueError):
        to_roman(0)
