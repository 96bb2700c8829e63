"""Modules stay within 400 lines and functions within 50; today's offenders may only shrink (budgets.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.house.budgets import (
    ALLOWED_FUNCTIONS,
    ALLOWED_MODULES,
    FUNCTION_LINES,
    MODULE_LINES,
    function_sizes,
    module_sizes,
    over,
)


@pytest.mark.parametrize(
    ("sizes", "budget", "allowed", "what"),
    [
        (module_sizes, MODULE_LINES, ALLOWED_MODULES, "module"),
        (function_sizes, FUNCTION_LINES, ALLOWED_FUNCTIONS, "function"),
    ],
)
def test_nothing_grows_past_its_budget(
    sizes: Callable[[], dict[str, int]], budget: int, allowed: dict[str, int], what: str
) -> None:
    found = sizes()
    new = {name: size for name, size in over(found, budget).items() if name not in allowed}
    grew = {name: (found[name], ceiling) for name, ceiling in allowed.items() if found.get(name, 0) > ceiling}
    back = [name for name in allowed if found.get(name, 0) <= budget]
    assert new == {}, f"new {what}s over {budget} lines: split them (tests/house/budgets.py says how)"
    assert grew == {}, f"listed {what}s grew past their ceiling (now, ceiling): shrink them instead"
    assert back == [], f"these {what}s are within {budget} lines now: remove them from the allow-list"
