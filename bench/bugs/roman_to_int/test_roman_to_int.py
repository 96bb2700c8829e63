from roman_to_int import roman_to_int


def test_additive():
    assert roman_to_int("III") == 3
    assert roman_to_int("LVIII") == 58


def test_subtractive():
    assert roman_to_int("IV") == 4
    assert roman_to_int("MCMXCIV") == 1994
