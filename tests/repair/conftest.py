"""A small project with one wrong line, for repair tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import PYTEST_INI

STATS = '''def mean(values):
    """The arithmetic mean of a non-empty list."""
    total = 0
    for v in values:
        total += v
    return total / (len(values) + 1)


def biggest(values):
    """The largest value."""
    best = values[0]
    for v in values[1:]:
        if v > best:
            best = v
    return best
'''
TESTS = """from stats import biggest, mean


def test_mean():
    assert mean([2, 4, 6]) == 4


def test_mean_one():
    assert mean([5]) == 5


def test_biggest():
    assert biggest([3, 9, 2]) == 9


def test_biggest_negative():
    assert biggest([-3, -1, -2]) == -1
"""
FIXED_LINE = "    return total / len(values)\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "stats.py").write_text(STATS)
    (root / "tests" / "test_stats.py").write_text(TESTS)
    (root / "pytest.ini").write_text(PYTEST_INI)
    return root
