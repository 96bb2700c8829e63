import pytest

from convert import ABS_ZERO_C
from validate import check_celsius, parse_reading


def test_check_celsius_ok():
    assert check_celsius(ABS_ZERO_C) == ABS_ZERO_C


def test_check_celsius_too_cold():
    with pytest.raises(ValueError):
        check_celsius(ABS_ZERO_C - 1)


def test_parse_reading():
    assert parse_reading("212F") == 100
    assert parse_reading(" 21.5c ") == 21.5
