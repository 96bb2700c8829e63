import pytest

from roman_numerals import from_roman, is_roman, to_roman


@pytest.mark.parametrize(
    ("number", "numeral"),
    [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (1994, "MCMXCIV"), (2024, "MMXXIV"), (3999, "MMMCMXCIX")],
)
def test_to_roman(number, numeral):
    assert to_roman(number) == numeral


def test_forty_and_friends():
    assert to_roman(44) == "XLIV"
    assert to_roman(490) == "CDXC"


def test_from_roman():
    assert from_roman("mcmlxxxiv") == 1984
    assert from_roman(" XLII ") == 42


def test_only_canonical_numerals_are_read():
    assert not is_roman("IIII")
    assert not is_roman("IC")
    assert not is_roman("")
    assert is_roman("CDXLIV")


def test_out_of_range():
    with pytest.raises(ValueError, match="cannot write"):
        to_roman(0)
    with pytest.raises(ValueError, match="cannot write"):
        to_roman(4000)
