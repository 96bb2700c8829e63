"""What the failing tests say, in the words a model can act on: each test, its assertion, got and expected.

pytest's ``-rA --tb=short`` output ends with one ``PASSED`` line per passing test, so the last
lines of a long run are mostly tests that pass, and the values that tell a right fix from a wrong
one (``assert 5 == 4``, ``where 5 = find_peak([1, 2, 3, 4, 5])``) sit further up, in the
``FAILURES`` section. ``failure_digest`` keeps that section, one block per failing test, and puts
in front of each block the one line a small model needs most: the call, what it returned and what
the test expected. Output it cannot read (another test runner, a crash before the section) is
kept as it is, its last lines only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["FailedAssertion", "assertions", "failure_digest"]

MAX_BLOCKS = 4
"""Failing tests shown in full; the rest are named in one line each."""
MAX_BLOCK_LINES = 12
MAX_LINES = 40

_SECTION = re.compile(r"^=+ (FAILURES|ERRORS) =+$", re.MULTILINE)
_SECTION_END = re.compile(r"^=+ .* =+$", re.MULTILINE)
_BLOCK = re.compile(r"^_{3,} (.+?) _{3,}$", re.MULTILINE)
_COMPARE = re.compile(r"^E\s+assert (.+?) (==|!=|<=|>=|<|>|is not|is|not in|in) (.+)$")
_WHERE = re.compile(r"^E\s+\+\s+where (.+?) = (.+)$")


@dataclass(frozen=True)
class FailedAssertion:
    """One failing comparison: ``test`` asserted ``got OP expected``; ``call`` is what produced ``got``."""

    test: str
    got: str
    op: str
    expected: str
    call: str | None = None

    def sentence(self) -> str:
        """One line, e.g. ``test_rising: find_peak([1, 2, 3, 4, 5]) returned 5; the test expected 4.``."""
        subject = f"{self.call} returned {self.got}" if self.call else f"got {self.got}"
        wanted = f"{self.expected}" if self.op == "==" else f"{self.op} {self.expected}"
        return f"{self.test}: {subject}; the test expected {wanted}."


def _blocks(output: str) -> list[tuple[str, str]]:
    """The (test name, text) of each block of pytest's FAILURES and ERRORS sections."""
    found: list[tuple[str, str]] = []
    for section in _SECTION.finditer(output):
        rest = output[section.end() :]
        end = _SECTION_END.search(rest)
        body = rest[: end.start()] if end else rest
        heads = list(_BLOCK.finditer(body))
        for head, following in zip(heads, [*heads[1:], None], strict=True):
            text = body[head.end() : following.start() if following else len(body)]
            found.append((head.group(1).strip(), text.strip("\n")))
    return found


def _assertion(test: str, text: str) -> FailedAssertion | None:
    lines = text.splitlines()
    for n, line in enumerate(lines):
        compare = _COMPARE.match(line)
        if compare is None:
            continue
        got, op, expected = compare.groups()
        call = None
        for later in lines[n + 1 : n + 4]:
            where = _WHERE.match(later)
            if where and where.group(1) == got:
                call = where.group(2)
                break
        return FailedAssertion(test, got, op, expected, call)
    return None


def assertions(output: str) -> list[FailedAssertion]:
    """The comparisons that failed, one per failing test whose block shows one."""
    return [found for test, text in _blocks(output) if (found := _assertion(test, text)) is not None]


def failure_digest(output: str, max_lines: int = MAX_LINES) -> str:
    """The failing tests' output for a prompt: got-vs-expected first, then each test's short traceback."""
    blocks = _blocks(output)
    if not blocks:
        return "\n".join(output.strip().splitlines()[-max_lines:])
    parts: list[str] = []
    for test, text in blocks[:MAX_BLOCKS]:
        found = _assertion(test, text)
        head = found.sentence() if found else f"{test}:"
        shown = text.splitlines()[-MAX_BLOCK_LINES:]
        parts.append("\n".join([head, *("  " + line for line in shown)]))
    if len(blocks) > MAX_BLOCKS:
        parts.append("Also failing: " + ", ".join(test for test, _ in blocks[MAX_BLOCKS:]))
    return "\n".join("\n".join(parts).splitlines()[:max_lines])
