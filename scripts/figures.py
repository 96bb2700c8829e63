"""Check every figure the README quotes from a benchmark against the results file it comes from.

``bench/figures.toml`` holds one table per results file: its keys are phrases of the README with
``{}`` where a number stands, and each value names the number in the file that must agree with it
(a list when the phrase holds several ``{}``)::

    ["bench/results/startup.json"]
    rerun = "python bench/startup.py"
    "`chrysalis --help` {} s" = '["chrysalis --help"].seconds'

A value is a path into the JSON (``a.b``, ``rows[0]``, ``rows[system=DSPy mipro]`` for the one item
whose field has that value, ``["a key.with dots"]``), or a sum, difference, product or quotient of
such paths and numbers with spaces around the operator (``rows[0].tokens / rows[0].window * 100``).

A figure agrees when the file's value rounds to it: "34.2" allows 34.15 to 34.25, "1,048,575"
exactly that. The check fails (exit 1, one line per problem naming the README line, the figure, the
file and what it holds) when a phrase is not in the README or matches it twice, when a value
disagrees, and when the file is missing or lacks provenance (``command``, ``commit`` and ``date``,
at the top or under ``"provenance"``, as ``bench/egress.py:provenance`` writes them). A figure that
no file can vouch for may stay only if the README says so beside it: "not re-measured since" in its
paragraph (for a table, also in the paragraph just before it). Those are listed, not failed.

    python scripts/figures.py [--root DIR]     # DIR/README.md against DIR/bench/figures.toml

Standard library only, so it runs before anything is installed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Figure", "Report", "check", "evaluate", "main"]

ROOT = Path(__file__).resolve().parents[1]
TABLE = Path("bench/figures.toml")
README = Path("README.md")
PROVENANCE = ("command", "commit", "date")
STALE_NOTE = "not re-measured since"
"""What the README must say beside a figure whose file is missing or has no provenance."""

# A figure as the README prints it: 1,048,575 or 34.2 or 20.
_NUMBER = r"(?<![\d.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?!\d)"
_STEP = re.compile(r'\.?\["([^"]*)"\]|\[(\d+)\]|\[([^=\]]+)=([^\]]*)\]|\.?([^.\[\]"]+)')
_OPERATORS = (" + ", " - ", " * ", " / ")


class FigureError(Exception):
    """A value that cannot be read from a results file (the message says where the path broke)."""


@dataclass(frozen=True)
class Figure:
    """One phrase of the table, the results file it comes from and the value of each ``{}``."""

    phrase: str
    file: str
    values: tuple[str, ...]
    rerun: str | None = None


@dataclass
class Report:
    """What a check found: problems fail it; figures whose file cannot vouch for them are listed per file."""

    problems: list[str] = field(default_factory=list)
    checked: int = 0
    """Values compared with their file, and agreeing or not."""
    unvouched: dict[str, tuple[str, list[int]]] = field(default_factory=dict)
    """Per results file that is missing or lacks provenance: why, and the README lines noted as not re-measured."""


def load_table(path: Path) -> list[Figure]:
    """The figures of ``path`` (a TOML table per results file; keys with ``{}`` are phrases, ``rerun`` the command)."""
    figures: list[Figure] = []
    for file, entries in tomllib.loads(path.read_text()).items():
        rerun = entries.get("rerun")
        for phrase, value in entries.items():
            if "{}" not in phrase:
                continue
            values = (value,) if isinstance(value, str) else tuple(value)
            figures.append(Figure(phrase, file, values, rerun))
    return figures


def pattern(phrase: str) -> re.Pattern[str]:
    """``phrase`` as a regex: any run of whitespace matches any other (lines wrap), ``{}`` a number."""
    return re.compile(_NUMBER.join(_literal(part) for part in phrase.split("{}")))


def _literal(part: str) -> str:
    words = [re.escape(word) for word in part.split()]
    lead = r"\s+" if part[:1].isspace() else ""
    tail = r"\s+" if part[-1:].isspace() and words else ""
    return lead + r"\s+".join(words) + tail


def steps(path: str) -> Iterator[str | int | tuple[str, str]]:
    """The steps of a path: a key, a list index, or (field, value) to pick the one item whose field has that value."""
    at = 0
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None or match.end() == at:
            raise FigureError(f"cannot read the path {path!r} at {path[at:]!r}")
        quoted, index, key, wanted, name = match.groups()
        if index is not None:
            yield int(index)
        elif key is not None:
            yield key.strip(), wanted.strip()
        else:
            yield quoted if quoted is not None else name.strip()
        at = match.end()


def resolve(data: Any, path: str) -> Any:
    """The value at ``path`` in ``data``."""
    here: list[str] = []
    for step in steps(path):
        data = _step(data, step, ".".join(here) or "the top")
        here.append(str(step))
    return data


def _step(data: Any, step: str | int | tuple[str, str], here: str) -> Any:
    if isinstance(step, int):
        if not isinstance(data, list) or step >= len(data):
            raise FigureError(f"no item [{step}] at {here}")
        return data[step]
    if isinstance(step, tuple):
        name, wanted = step
        items = (
            [d for d in data if isinstance(d, dict) and str(d.get(name)) == wanted] if isinstance(data, list) else []
        )
        if len(items) != 1:
            raise FigureError(f"{len(items)} items with {name}={wanted} at {here}, not one")
        return items[0]
    if not isinstance(data, dict) or step not in data:
        raise FigureError(f"no key {step!r} at {here}")
    return data[step]


def _split(expression: str, operators: Sequence[str]) -> list[str]:
    """``expression`` split at ``operators`` outside brackets and quotes, operators kept as items."""
    parts, depth, quoted, start, at = [], 0, False, 0, 0
    while at < len(expression):
        char = expression[at]
        quoted = not quoted if char == '"' else quoted
        depth += (char == "[") - (char == "]") if not quoted else 0
        found = next((o for o in operators if expression.startswith(o, at)), None)
        if found and depth == 0 and not quoted:
            parts += [expression[start:at], found.strip()]
            start = at = at + len(found)
            continue
        at += 1
    return [*parts, expression[start:]]


def evaluate(data: Any, expression: str) -> float:
    """The number ``expression`` names in ``data``: paths and numbers, ``+ - * /`` with the usual precedence."""
    terms = _split(expression, _OPERATORS[:2])
    total = 0.0
    for sign, term in zip(["+", *terms[1::2]], terms[::2], strict=True):
        factors = _split(term, _OPERATORS[2:])
        value = _operand(data, factors[0])
        for operator, factor in zip(factors[1::2], factors[2::2], strict=True):
            divisor = _operand(data, factor)
            value = value * divisor if operator == "*" else value / divisor
        total += value if sign == "+" else -value
    return total


def _operand(data: Any, text: str) -> float:
    text = text.strip()
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    value = resolve(data, text)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FigureError(f"{text} is {json.dumps(value)[:60]}, not a number")
    return float(value)


def agrees(shown: str, value: float) -> bool:
    """Whether ``value`` rounds to ``shown`` (as many decimals as it shows; half a unit of the last digit)."""
    number = shown.replace(",", "")
    decimals = len(number.partition(".")[2])
    return abs(value - float(number)) <= 0.5 * 10.0**-decimals + 1e-9 * max(1.0, abs(value))


def missing_provenance(data: Any) -> list[str]:
    """Which of command, commit and date the results lack (at the top or under ``"provenance"``)."""
    if not isinstance(data, dict):
        return list(PROVENANCE)
    record = data.get("provenance", data)
    return [key for key in PROVENANCE if not (isinstance(record, dict) and record.get(key))]


class _Readme:
    """The README's text, its blocks (paragraphs, tables, lists: blank-line separated) and line numbers."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.text = path.read_text()
        self.blocks = [(m.start(), m.end()) for m in re.finditer(r"\S(?:.|\n(?!\s*\n))*", self.text)]

    def line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def noted(self, offset: int) -> bool:
        """Whether "not re-measured since" is in the block at ``offset`` (for a table, also in the one before)."""
        index = next((i for i, (start, end) in enumerate(self.blocks) if start <= offset < end), None)
        if index is None:
            return False
        start, end = self.blocks[index]
        if self.text[start] == "|" and index:
            start = self.blocks[index - 1][0]
        return STALE_NOTE in " ".join(self.text[start:end].split())


def check(root: Path, readme: Path = README, table: Path = TABLE) -> Report:
    """Check every figure of ``root/table`` against ``root/readme`` and the results files under ``root``."""
    report = Report()
    text = _Readme(root / readme)
    results: dict[str, Any] = {}
    for figure in load_table(root / table):
        where = f"{table}: {figure.phrase!r} ({figure.file})"
        matches = list(pattern(figure.phrase).finditer(text.text))
        if not matches:
            report.problems.append(f"{where} is not in {text.name}: update the phrase")
        elif len(matches) > 1:
            lines = ", ".join(str(text.line(m.start())) for m in matches)
            report.problems.append(f"{where} matches {text.name} lines {lines}: make the phrase longer")
        elif len(figure.values) != len(matches[0].groups()):
            report.problems.append(f"{where}: {len(matches[0].groups())} numbers but {len(figure.values)} values")
        else:
            if figure.file not in results:
                path = root / figure.file
                results[figure.file] = json.loads(path.read_text()) if path.is_file() else None
            _check_figure(figure, text, matches[0], results[figure.file], report)
    return report


def _check_figure(figure: Figure, text: _Readme, match: re.Match[str], data: Any, report: Report) -> None:
    """Compare each number of one matched phrase with its value; a file that cannot vouch for it needs the note."""
    rerun = f" (written by: {figure.rerun})" if figure.rerun else ""
    missing = missing_provenance(data) if data is not None else []
    gap = "is missing" if data is None else f"has no provenance (no {', '.join(missing)})" if missing else None
    for index, value in enumerate(figure.values, start=1):
        shown, line = match.group(index), text.line(match.start(index))
        head = f"{text.name}:{line}: {shown} ({figure.phrase!r}): {figure.file}"
        if gap is not None:
            if not text.noted(match.start(index)):
                report.problems.append(f'{head} {gap}: re-run it{rerun}, or say "{STALE_NOTE} DATE" beside the figure')
                continue
            report.unvouched.setdefault(figure.file, (f"{gap}{rerun}", []))[1].append(line)
        if data is None:
            continue
        try:
            found = evaluate(data, value)
        except (FigureError, ZeroDivisionError) as exc:
            report.problems.append(f"{head}: {value}: {exc}")
            continue
        report.checked += 1
        if not agrees(shown, found):
            report.problems.append(f"{head}: {value} is {found:.6g}, which does not round to {shown}")


def main(argv: Sequence[str] | None = None) -> int:
    """Check the README's figures; print each problem; 0 when all agree, 1 otherwise."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the folder with README.md and bench/")
    options = parser.parse_args(argv)
    report = check(options.root)
    for file, (why, lines) in report.unvouched.items():
        where = ", ".join(str(line) for line in sorted(set(lines)))
        print(f"not vouched for: {file} {why}; README lines {where} say {STALE_NOTE!r}")
    for problem in report.problems:
        print(problem, file=sys.stderr)
    unvouched = sum(len(lines) for _, lines in report.unvouched.values())
    print(
        f"figures: {'FAILED' if report.problems else 'ok'}: {report.checked} values compared with their results "
        f"files; {len(report.problems)} problems; {unvouched} figures from {len(report.unvouched)} files that "
        "cannot vouch for them, each noted in the README"
    )
    return 1 if report.problems else 0


if __name__ == "__main__":
    sys.exit(main())
