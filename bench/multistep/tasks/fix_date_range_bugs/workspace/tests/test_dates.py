from datetime import date

from dates import format_date, parse_date


def test_parse_date():
    assert parse_date("2024-03-05") == date(2024, 3, 5)


def test_format_round_trip():
    assert format_date(parse_date("1999-12-31")) == "1999-12-31"
