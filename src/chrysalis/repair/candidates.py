"""Candidate patches: one prompt per suspect, many decorrelated samples, each turned into a whole new file.

A small model's single attempt is a lottery ticket; repair buys many and checks each. Voter ``i``
is decorrelated by its index (``Sampler``: greedy for 0, then warmer, seed ``i``) and by the form of
the edit it is asked for, alternating between

- ``line``: the number of the buggy line and its corrected text (``{"line": N, "code": "..."}``), and
- ``function``: the whole corrected function (``{"code": "..."}``).

Decoding is constrained to that JSON shape, so every reply is well-formed. The prompt puts what all
samples share first (the function with line numbers, the failing tests' output) and the form last,
so on the embedded model each sample re-evaluates only its own tokens (the KV cache holds the rest).
A reply that cannot be applied (a line outside the function, code that does not parse) is kept as a
candidate with a ``problem``, never silently dropped: it counts as drawn.
"""

from __future__ import annotations

import ast
import difflib
import json
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.sampling import Sampler
from chrysalis.repair.localise import Suspect

__all__ = ["FORMS", "Candidate", "CandidateSource", "Form", "prompt_for"]

Form = Literal["line", "function"]
FORMS: tuple[Form, ...] = ("line", "function")
LINE_SCHEMA = {"type": "object", "properties": {"line": {"type": "integer"}, "code": {"type": "string"}},
               "required": ["line", "code"], "additionalProperties": False}  # fmt: skip
FUNCTION_SCHEMA = {"type": "object", "properties": {"code": {"type": "string"}}, "required": ["code"],
                   "additionalProperties": False}  # fmt: skip
SYSTEM = (
    "You fix one bug in a Python function. The failing tests show the correct behaviour. Change as little as "
    "possible: fix the wrong line, do not add special cases for the tests' inputs, and never edit the tests."
)
_FORM_ASK: dict[Form, str] = {
    "line": 'Reply with JSON: {"line": <the number of the buggy line>, "code": "<that line, corrected>"}.',
    "function": 'Reply with JSON: {"code": "<the whole function, corrected>"}.',
}
MAX_FAILURE_LINES = 40


@dataclass(frozen=True)
class Candidate:
    """One sampled patch: where, in which form, the new file text (``None`` if it could not be applied)."""

    index: int
    suspect: Suspect
    form: Form
    reply: str
    new_text: str | None
    problem: str | None
    diff: str
    changed_lines: int
    """Lines removed plus lines added: what "smallest diff" compares."""
    tokens: int
    seconds: float


class CandidateSource:
    """Draws candidates for suspects from one model, with the failing tests' output in every prompt."""

    def __init__(self, sampler: Sampler, workspace: Path, failure: str) -> None:
        """``sampler`` gives the backend and the token cap; ``failure`` is the failing tests' output to show."""
        self._samplers = {
            "line": Sampler(sampler.backend, max_tokens=min(sampler.max_tokens, 160), json_schema=LINE_SCHEMA),
            "function": Sampler(sampler.backend, max_tokens=sampler.max_tokens, json_schema=FUNCTION_SCHEMA),
        }
        self.workspace = workspace
        self.failure = failure

    async def draw(self, suspect: Suspect, index: int, *, hint: str = "") -> Candidate:
        """Voter ``index``'s candidate for ``suspect``: its form alternates with the index; ``hint`` adds feedback."""
        form = FORMS[index % len(FORMS)]
        original = (self.workspace / suspect.path).read_text(encoding="utf-8")
        messages = prompt_for(suspect, original, self.failure, form, hint)
        started = time.perf_counter()
        completion = await self._samplers[form].sample(messages, index // len(FORMS))
        seconds = time.perf_counter() - started
        new_text, problem = apply_reply(original, suspect, form, completion.text)
        diff, changed = _diff(suspect.path, original, new_text)
        tokens = completion.input_tokens - completion.cached_tokens + completion.output_tokens
        return Candidate(index, suspect, form, completion.text, new_text, problem, diff, changed, tokens, seconds)


def prompt_for(suspect: Suspect, original: str, failure: str, form: Form, hint: str = "") -> list[ChatMessage]:
    """The messages for one sample: the function with line numbers and the failures first, the form last."""
    lines = original.splitlines()
    numbered = "\n".join(f"{n:>4} | {lines[n - 1]}" for n in range(suspect.start, suspect.end + 1))
    shown = "\n".join(failure.strip().splitlines()[-MAX_FAILURE_LINES:])
    body = (f"File {suspect.path}, function {suspect.function} (lines {suspect.start}-{suspect.end}):\n{numbered}\n\n"
            f"The tests fail:\n{shown}\n")  # fmt: skip
    if hint:
        body += f"\n{hint}\n"
    return [ChatMessage("system", SYSTEM), ChatMessage("user", f"{body}\n{_FORM_ASK[form]}")]


def apply_reply(original: str, suspect: Suspect, form: Form, reply: str) -> tuple[str | None, str | None]:
    """``(new file text, None)``, or ``(None, why not)`` when the reply cannot be applied or does not parse."""
    try:
        data = json.loads(reply)
        code = str(data["code"])
        line = int(data["line"]) if form == "line" else 0
    except (ValueError, KeyError, TypeError):
        return None, "the reply is not the JSON asked for"
    lines = original.splitlines(keepends=True)
    if form == "line":
        if "\n" in code.strip():
            return None, "the reply's code is more than one line"
        target = _target_line(lines, suspect, line, code)
        if target is None:
            return None, f"the reply changes nothing in {suspect.function}"
        old = lines[target - 1]
        indent = old[: len(old) - len(old.lstrip())]
        lines[target - 1] = indent + code.strip() + "\n"
    else:
        def_line = lines[suspect.start - 1]
        indent = def_line[: len(def_line) - len(def_line.lstrip())]
        body = textwrap.indent(textwrap.dedent(code.strip("\n")), indent).rstrip() + "\n"
        lines[suspect.start - 1 : suspect.end] = body.splitlines(keepends=True)
    new_text = minimise(original, "".join(lines))
    try:
        ast.parse(new_text)
    except SyntaxError as exc:
        return None, f"the patched file does not parse: {exc.msg} (line {exc.lineno})"
    if new_text == original:
        return None, f"the reply changes nothing in {suspect.function}"
    return new_text, None


def _target_line(lines: list[str], suspect: Suspect, line: int, code: str) -> int | None:
    """The line a one-line fix replaces: the function's line most like the new code, the given number breaking ties.

    Small models often give the right corrected line with a wrong number (one off), so the number is
    a hint and the text decides; a line that already reads like the new code is no target.
    """
    new = code.strip()
    if any(lines[n - 1].strip() == new for n in range(suspect.start, suspect.end + 1)):
        return None  # the reply repeats a line the function has: no change it could mean
    best: tuple[float, int] | None = None
    for n in range(suspect.start + 1, suspect.end + 1):
        old = lines[n - 1].strip()
        if not old or old == new:
            continue
        score = difflib.SequenceMatcher(None, old, new).ratio() - 0.02 * abs(n - line)
        if best is None or score > best[0]:
            best = (score, n)
    return best[1] if best else None


def minimise(original: str, new: str) -> str:
    """``new`` with every changed hunk that does not change the program put back as it was.

    A model asked for a whole function often re-wraps or rewrites a docstring or a comment; those
    hunks leave the code the same (equal ASTs, docstrings ignored: a bug fix has no business with
    them) and are reverted, so the diff shows only the fix. When ``new`` does not parse, a hunk
    whose reverting makes it parse is reverted too (a docstring the model broke).
    """
    old_lines, current = original.splitlines(keepends=True), _docstrings_restored(original, new)
    changed = True
    while changed:
        changed = False
        for i1, i2, j1, j2 in _hunks(old_lines, current):
            trial = current[:j1] + old_lines[i1:i2] + current[j2:]
            now, then = _shape("".join(current)), _shape("".join(trial))
            if (now is not None and now == then) or (now is None and then is not None and trial != old_lines):
                current, changed = trial, True
                break
    return "".join(current)


def _hunks(old: list[str], new: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed spans ``(i1, i2, j1, j2)``; a replacement of as many lines as it removes, line by line."""
    spans: list[tuple[int, int, int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            spans += [(i1 + k, i1 + k + 1, j1 + k, j1 + k + 1) for k in range(i2 - i1)]
        elif tag != "equal":
            spans.append((i1, i2, j1, j2))
    return spans


def _docstrings_restored(original: str, new: str) -> list[str]:
    """``new``'s lines with each rewritten docstring put back as ``original`` has it (same function, by name)."""
    lines = new.splitlines(keepends=True)
    try:
        old_docs, new_docs = _docstring_spans(ast.parse(original)), _docstring_spans(ast.parse(new))
    except SyntaxError:
        return lines
    old_lines = original.splitlines(keepends=True)
    for name, (start, end) in sorted(new_docs.items(), key=lambda item: -item[1][0]):  # bottom up: spans stay valid
        if name in old_docs:
            old_start, old_end = old_docs[name]
            lines[start - 1 : end] = old_lines[old_start - 1 : old_end]
    return lines


def _docstring_spans(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """The line span of each function's and class's docstring, by qualified name."""
    spans: dict[str, tuple[int, int]] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + child.name
                first = child.body[0] if child.body else None
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                        and isinstance(first.value.value, str):  # fmt: skip
                    spans[name] = (first.lineno, first.end_lineno or first.lineno)
                visit(child, name + ".")

    visit(tree, "")
    return spans


def _shape(text: str) -> str | None:
    """The program's AST with docstrings emptied; None when it does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                value.value = ""
    return ast.dump(tree)


def _diff(path: str, old: str, new: str | None) -> tuple[str, int]:
    if new is None:
        return "", 0
    lines = list(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                      f"a/{path}", f"b/{path}"))  # fmt: skip
    changed = sum(1 for line in lines[2:] if line[:1] in "+-")
    return "".join(lines), changed
