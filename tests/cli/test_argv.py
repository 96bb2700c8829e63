"""Options whose value may be left out: a bare ``council --diff`` means ``--diff=HEAD``."""

from __future__ import annotations

import pytest

from chrysalis.cli.argv import with_optional_values


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["council", "t", "--diff"], ["council", "t", "--diff=HEAD"]),
        (["council", "t", "--diff", "--turns", "3"], ["council", "t", "--diff=HEAD", "--turns", "3"]),
        (["council", "t", "--diff", "main"], ["council", "t", "--diff", "main"]),
        (["council", "t", "--diff=v1"], ["council", "t", "--diff=v1"]),
        (["--model", "m", "council", "t", "--diff"], ["--model", "m", "council", "t", "--diff=HEAD"]),
        (["run", "--diff"], ["run", "--diff"]),  # only the council's --diff has an optional value
    ],
)
def test_a_bare_diff_of_the_council_is_against_head(argv: list[str], expected: list[str]) -> None:
    assert with_optional_values(argv) == expected
