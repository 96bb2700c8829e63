import pytest

from duration import format_duration, parse_duration, split_duration, total_duration


def test_parse_simple():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2d 4h") == 187200
    assert parse_duration("45") == 45


def test_parse_fractions_round_to_seconds():
    assert parse_duration("1.5h") == 5400
    assert parse_duration("0.0004h") == 1


def test_parse_errors():
    with pytest.raises(ValueError, match="cannot read"):
        parse_duration("1h fish")
    with pytest.raises(ValueError, match="twice"):
        parse_duration("1h 2h")


def test_split():
    assert split_duration(90061) == [(1, "d"), (1, "h"), (1, "m"), (1, "s")]


def test_format():
    assert format_duration(5400) == "1h 30m"
    assert format_duration(0) == "0s"
    assert format_duration(-61) == "-1m 1s"


def test_format_with_largest_unit_and_limit():
    assert format_duration(129600, largest="h") == "36h"
    assert format_duration(90061, max_parts=2) == "1d 1h"


def test_round_trip_of_parsed_text():
    assert format_duration(parse_duration("1.25h")) == "1h 15m"
    assert total_duration(["1h", "45m", "15m"]) == "2h"
