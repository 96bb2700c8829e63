import os
import sys

sys.path.insert(0, os.getcwd())

import pytest

import formatting
import parsing


def test_parse_hours_only():
    assert parsing.parse_duration("3h") == 180
    assert parsing.parse_duration(" 10H ") == 600


def test_parse_other_forms_unchanged():
    assert parsing.parse_duration("2h5m") == 125
    assert parsing.parse_duration("75m") == 75
    with pytest.raises(ValueError):
        parsing.parse_duration("")
    with pytest.raises(ValueError):
        parsing.parse_duration("5x")


def test_format_minutes():
    assert formatting.format_duration(61) == "1h1m"
    assert formatting.format_duration(125) == "2h5m"
    assert formatting.format_duration(180) == "3h"
    assert formatting.format_duration(0) == "0m"
    assert formatting.format_duration(59) == "59m"


def test_round_trip():
    for total in range(0, 600, 7):
        assert parsing.parse_duration(formatting.format_duration(total)) == total


def test_timesheet_hours_only_inputs():
    assert formatting.timesheet(["1h", "2h", "15m"]) == "3h15m"
