import os
import re
import sys

sys.path.insert(0, os.getcwd())

import pytest

import convert
import validate


def test_new_constant():
    assert convert.ABSOLUTE_ZERO_CELSIUS == -273.15
    assert validate.ABSOLUTE_ZERO_CELSIUS == -273.15


def test_old_constant_gone():
    assert not hasattr(convert, "ABS_ZERO_C")
    assert not hasattr(validate, "ABS_ZERO_C")


def test_behaviour_kept():
    assert convert.c_to_k(-273.15) == 0
    assert convert.k_to_c(300) == pytest.approx(26.85)
    assert validate.check_celsius(-273) == -273
    with pytest.raises(ValueError):
        validate.check_celsius(-274)
    with pytest.raises(ValueError):
        validate.parse_reading("-500F")
    assert validate.parse_reading("-40F") == pytest.approx(-40)


def test_no_old_name_left_in_files():
    pattern = re.compile(r"\bABS_ZERO_C\b")
    offenders = []
    for folder, _dirs, files in os.walk(os.getcwd()):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as fh:
                    if pattern.search(fh.read()):
                        offenders.append(path)
    assert offenders == []
