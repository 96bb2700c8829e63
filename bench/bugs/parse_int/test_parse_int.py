from parse_int import parse_int


def test_plain_and_signed():
    assert parse_int("42") == 42
    assert parse_int("  -17") == -17
    assert parse_int("+8") == 8


def test_stops_at_non_digit():
    assert parse_int("123abc") == 123
    assert parse_int("12 34") == 12


def test_no_digits():
    assert parse_int("") == 0
    assert parse_int("-") == 0
