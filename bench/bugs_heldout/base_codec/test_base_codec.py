import pytest
from base_codec import BaseCodec, convert, from_base, to_base


def test_to_base():
    assert to_base(255, 16) == "ff"
    assert to_base(5, 2) == "101"
    assert to_base(61, 62) == "Z"


def test_zero_and_negative():
    assert to_base(0, 7) == "0"
    assert to_base(-10, 3) == "-101"


def test_from_base_round_trip():
    for base in (2, 8, 10, 36, 62):
        for n in (-1000, -1, 1, 99, 123456789):
            assert from_base(to_base(n, base), base) == n


def test_from_base_rejects_foreign_digit():
    with pytest.raises(ValueError, match="not a base-8 digit"):
        from_base("19", 8)


def test_empty_numeral():
    with pytest.raises(ValueError, match="no digits"):
        from_base(" - ", 10)


def test_convert():
    assert convert("ff", 16, 2) == "11111111"
    assert convert("0", 2, 16) == "0"


def test_custom_alphabet():
    dna = BaseCodec(4, alphabet="ACGT")
    assert dna.encode(27) == "CGT"
    assert dna.decode("CGT") == 27
    assert dna.encode(0) == "A"


def test_invalid_base():
    with pytest.raises(ValueError, match="between 2 and 62"):
        BaseCodec(1)
