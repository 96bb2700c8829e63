import pytest

from parsing import parse_duration


def test_hours_and_minutes():
    assert parse_duration("1h30m") == 90


def test_hours_only():
    assert parse_duration("2h") == 120


def test_bad():
    with pytest.raises(ValueError):
        parse_duration("soon")
