import pytest

from convert import ABSOLUTE_ZERO_CELSIUS
from validate import check_celsius, parse_reading


def test_check_celsius_ok():
    assert check_celsius(ABSOLUTE_ZERO_CELSIUS) == ABSOLUTE_ZERO_CELSIUS


def test_check_celsius_too_cold():
    with pytest.raises(ValueError):
        check_celsius(ABSOLUTE_ZERO_CELSIUS - 1)


def test_parse_reading():
    assert parse_reading("212F") == 100
    assert parse_reading(" 21.5c ") == 21.5
