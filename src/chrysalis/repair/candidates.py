"""Candidate patches: one prompt per suspect, many decorrelated samples, each turned into a whole new file.

A small model's single attempt is a lottery ticket; repair buys many and checks each. Voter ``i``
is decorrelated by its index (``Sampler``: greedy for 0, then warmer, seed ``i``) and by the form of
the edit it is asked for, taking turns per suspect (two one-line samples, then a whole function):

- ``line``: one corrected line. Voter 0 of this form names the buggy line itself
  (``{"line": N, "code": "..."}``); every later one is asked about one given line, in turn, the
  lines whose template edits made failing tests pass first (``evidence.py``), then the suspicious
  lines and then the rest of the function top-down (``{"code": "..."}``). A small
  model fixates on the line where the error is raised, whatever the temperature; asking line by line
  (AlphaRepair's masked-line idea) reaches the base case or the bound that is really wrong.
- ``function``: the whole corrected function (``{"code": "..."}``).
- ``diff`` (not in the default turn; ``RepairConfig.forms``): a unified diff of the function
  (``{"diff": "<@@ line, then -old, +new lines>"}``). Its hunk header's numbers are ignored: the context and
  removed lines must be found, in order, in the function (indentation and the listing's line
  numbers forgiven), or the reply is unusable.

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
import re
import textwrap
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.sampling import Sampler
from chrysalis.repair.evidence import LineEvidence
from chrysalis.repair.failures import failure_digest
from chrysalis.repair.localise import Suspect
from chrysalis.repair.minimise import hunks, minimise, shape
from chrysalis.repair.mutants import Mutant, mutants

__all__ = ["FORMS", "SAMPLE_FORMS", "Candidate", "CandidateSource", "Form", "narrowings", "parse_forms", "prompt_for"]

Form = Literal["line", "function", "diff", "template"]
FORMS: tuple[Form, ...] = ("line", "function", "line")
"""The forms in turn, by index: two one-line samples (about 1.5 s each here) per whole function (about 6 s)."""
SAMPLE_FORMS: tuple[Form, ...] = ("line", "function", "diff")
"""The forms a model can be asked for (``template`` candidates are made without one)."""
LINE_SCHEMA = {
    "type": "object",
    "properties": {"line": {"type": "integer"}, "code": {"type": "string"}},
    "required": ["line", "code"],
    "additionalProperties": False,
}
FUNCTION_SCHEMA = {
    "type": "object",
    "properties": {"code": {"type": "string"}},
    "required": ["code"],
    "additionalProperties": False,
}
SYSTEM = (
    "You fix one bug in a Python function. The failing tests show the correct behaviour. Change as little as "
    "possible: fix the wrong line, do not add special cases for the tests' inputs, and never edit the tests."
)
DIFF_SCHEMA = {
    "type": "object",
    "properties": {"diff": {"type": "string"}},
    "required": ["diff"],
    "additionalProperties": False,
}
CODE_SCHEMA = FUNCTION_SCHEMA
_FORM_ASK: dict[Form, str] = {
    "line": 'Reply with JSON: {"line": <the number of the buggy line>, "code": "<that line, corrected>"}.',
    "function": 'Reply with JSON: {"code": "<the whole function, corrected>"}.',
    "diff": (
        'Reply with JSON: {"diff": "<a unified diff of the function: a @@ line, then the lines around the '
        'fix starting with a space, the wrong lines starting with -, their corrections starting with +>"}.'
    ),
}
_LISTING_NUMBER = re.compile(r"^\s*\d+ \| ?")
"""``  12 | `` at the start of a diff line: the prompt's numbered listing, copied into the diff."""
_DIFF_HEADERS = ("---", "+++", "@@", "diff ", "index ", "\\")
MAX_CONTEXT_LINES = 24
MAX_NARROWINGS = 8
"""Single changes of a passing candidate tried alone (``narrowings``): each costs a test run."""


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
    cost: float = 0.0
    """USD the sample cost (``price`` of its tokens; 0 for templates and for models on this machine)."""
    line: int | None = None
    """The line a template edits (its test run is evidence about that line: ``evidence.py``)."""


class CandidateSource:
    """Draws candidates for suspects from one model, with the failing tests' output in every prompt."""

    def __init__(
        self,
        sampler: Sampler,
        workspace: Path,
        failure: str,
        forms: tuple[Form, ...] = FORMS,
        price: Callable[[int, int], float] | None = None,
    ) -> None:
        """``sampler`` gives the backend and the token cap; ``failure`` is the failing tests' output to show.

        ``forms`` is the turn of edit forms each suspect's samples take (``parse_forms`` checks one);
        ``price`` turns a sample's (input, output) tokens into USD (none: free).
        """
        self.price = price
        self.evidence = LineEvidence()
        """Which lines to ask about first: the engine's, learnt from the templates' test runs while sampling goes on."""
        self._samplers = {
            "line": Sampler(sampler.backend, max_tokens=min(sampler.max_tokens, 160), json_schema=LINE_SCHEMA),
            "at_line": Sampler(sampler.backend, max_tokens=min(sampler.max_tokens, 160), json_schema=CODE_SCHEMA),
            "function": Sampler(sampler.backend, max_tokens=sampler.max_tokens, json_schema=FUNCTION_SCHEMA),
            "diff": Sampler(sampler.backend, max_tokens=min(sampler.max_tokens, 256), json_schema=DIFF_SCHEMA),
        }
        self.forms = forms
        self.workspace = workspace
        self.failure = failure
        self._turns: Counter[tuple[str, str]] = Counter()
        """Samples drawn so far per suspect: its next form."""
        self._asked: defaultdict[tuple[str, str], Counter[int]] = defaultdict(Counter)
        """Per suspect, how often each line was asked about: the least asked line goes next, and its voter."""

    def templates(self, suspect: Suspect, *, variables: bool = False) -> Iterator[Candidate]:
        """The template edits of ``suspect``'s lines (``mutants.py``), suspicious lines first (all index 0).

        ``variables`` gives the variable swaps instead of the operator, bound, constant and argument edits.
        """
        original = (self.workspace / suspect.path).read_text(encoding="utf-8")
        lines = original.splitlines(keepends=True)
        for mutant in mutants(original, line_order(original, suspect), variables=variables):
            new_lines = [*lines[: mutant.line - 1], _with_newline(mutant, lines), *lines[mutant.line :]]
            new_text = "".join(new_lines)
            diff, changed = _diff(suspect.path, original, new_text)
            yield Candidate(
                0, suspect, "template", mutant.edit, new_text, None, diff, changed, 0, 0.0, line=mutant.line
            )

    async def draw(self, suspect: Suspect, index: int, *, hint: str = "") -> Candidate:
        """Candidate ``index`` for ``suspect``: its form and voter follow the suspect's turn; ``hint`` adds feedback."""
        key = (suspect.path, suspect.function)
        turn = self._turns[key]
        self._turns[key] += 1
        form = self.forms[turn % len(self.forms)]
        voter = sum(1 for i in range(turn) if self.forms[i % len(self.forms)] == form)
        original = (self.workspace / suspect.path).read_text(encoding="utf-8")
        messages = prompt_for(suspect, original, self.failure, form, hint)
        sampler, at = self._samplers[form], None
        if form == "line" and voter > 0:
            order = self.evidence.first(suspect.path, line_order(original, suspect))
            if order:
                asked = self._asked[key]
                at = min(order, key=lambda line: asked[line])  # the least asked; among those, the first in order
                voter, asked[at] = asked[at], asked[at] + 1
                messages = prompt_for(suspect, original, self.failure, form, hint, at=at)
                sampler = self._samplers["at_line"]
        started = time.perf_counter()
        completion = await sampler.sample(messages, voter)
        seconds = time.perf_counter() - started
        new_text, problem = apply_reply(original, suspect, form, completion.text, at=at)
        diff, changed = _diff(suspect.path, original, new_text)
        tokens = completion.input_tokens - completion.cached_tokens + completion.output_tokens
        cost = self.price(completion.input_tokens, completion.output_tokens) if self.price else 0.0
        return Candidate(index, suspect, form, completion.text, new_text, problem, diff, changed, tokens, seconds, cost)


def parse_forms(text: str, where: str = "forms") -> tuple[Form, ...]:
    """``"line,function,diff"`` as a turn of forms.

    Raises:
        ValueError: an empty list or an unknown form, named with ``where`` and the forms allowed.
    """
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in SAMPLE_FORMS]
    if not names or unknown:
        bad = f"unknown form {unknown[0]!r}" if unknown else "no form"
        raise ValueError(
            f"{where}: {bad}; give a comma-separated turn of {', '.join(SAMPLE_FORMS)} (default {','.join(FORMS)})"
        )
    by_name: dict[str, Form] = {form: form for form in SAMPLE_FORMS}
    return tuple(by_name[name] for name in names)


def prompt_for(
    suspect: Suspect, original: str, failure: str, form: Form, hint: str = "", *, at: int | None = None
) -> list[ChatMessage]:
    """The messages for one sample: the function with line numbers and the failures first, the form last.

    With ``at``, the sample is asked to correct that one line (the ``line`` form's later voters).
    """
    lines = original.splitlines()
    numbered = "\n".join(f"{n:>4} | {lines[n - 1]}" for n in range(suspect.start, suspect.end + 1))
    shown = failure_digest(failure)
    context = module_context(original, suspect)
    body = f"The rest of {suspect.path}, in short:\n{context}\n\n" if context else ""
    body += (
        f"File {suspect.path}, function {suspect.function} (lines {suspect.start}-{suspect.end}):\n{numbered}\n\n"
        f"The tests fail:\n{shown}\n"
    )
    if hint:
        body += f"\n{hint}\n"
    ask = _FORM_ASK[form]
    if at is not None:
        ask = (
            f"Line {at} is:\n{lines[at - 1].strip()}\nIf this line is the bug, correct it; if it is right, repeat "
            f'it unchanged. Reply with JSON: {{"code": "<line {at} of the code, as it should be>"}}.'
        )
    return [ChatMessage("system", SYSTEM), ChatMessage("user", f"{body}\n{ask}")]


def line_order(original: str, suspect: Suspect) -> list[int]:
    """The suspect's one-line statements (and one-line headers) to ask about: the suspicious ones first.

    The ``def`` line and the docstring are left out; lines no failing test ran follow the others, top-down.
    """
    try:
        tree = ast.parse(original)
    except SyntaxError:
        return list(suspect.lines)
    lines = original.splitlines()
    found: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or not suspect.start < node.lineno <= suspect.end:
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        one_line = node.end_lineno == node.lineno or lines[node.lineno - 1].rstrip().endswith(":")
        docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if one_line and not docstring:
            found.add(node.lineno)
    first = [n for n in dict.fromkeys((*suspect.lines, *suspect.ranked)) if n in found]
    return first + sorted(found - set(first))


def module_context(original: str, suspect: Suspect) -> str:
    """The file around the suspect, in short: imports, short module-level assignments, other signatures.

    A function often needs a name defined beside it (a table of constants, a helper) to be fixed;
    the whole file would cost every sample its tokens, so only a skeleton is shown (as Agentless does).
    """
    try:
        tree = ast.parse(original)
    except SyntaxError:
        return ""
    lines = original.splitlines()
    shown: list[str] = []
    for node in tree.body:
        start, end = node.lineno, node.end_lineno or node.lineno
        if start <= suspect.end and end >= suspect.start:
            continue
        if isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign) and end - start < 3:
            shown += lines[start - 1 : end]
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            shown += _signature(node, lines)
    if len(shown) > MAX_CONTEXT_LINES:
        shown = [*shown[:MAX_CONTEXT_LINES], "..."]
    return "\n".join(shown)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> list[str]:
    """A definition's header, the first line of its docstring, and ``...`` for the body."""
    first = node.body[0]
    header = lines[node.lineno - 1 : first.lineno - 1]
    body_line = lines[first.lineno - 1]
    indent = body_line[: len(body_line) - len(body_line.lstrip())]
    docstring = ast.get_docstring(node)
    summary = [f'{indent}"""{docstring.strip().splitlines()[0]}"""'] if docstring else []
    return [*header, *summary, f"{indent}..."]


def _without_known_imports(code: str, original: str) -> str:
    """``code`` without the leading import lines the file already has (models copy them from the context)."""
    known = {line.strip() for line in original.splitlines() if line.startswith(("import ", "from "))}
    lines = code.splitlines()
    while lines and (lines[0].strip() in known or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines)


def _body_off_the_def_line(code: str) -> str:
    """``def f(a): return a`` as two lines, the way the file writes functions (small models shorten them)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code
    node = tree.body[0] if len(tree.body) == 1 else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.end_lineno != node.lineno:
        return code
    header = code.splitlines()[node.lineno - 1][: node.body[0].col_offset].rstrip()
    return "\n    ".join([header, *(ast.get_source_segment(code, stmt) or "" for stmt in node.body)])


def _not_the_function(code: str, suspect: Suspect) -> str | None:
    """Why a whole-function reply is not just the suspect function rewritten (``None`` when it is).

    A reply that adds another function beside it (often a second copy of a helper, which then
    shadows the real one) or renames it would pass review only by accident.
    """
    if suspect.function == "<module>":
        return None
    name = suspect.function.rsplit(".", 1)[-1]
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return f"the reply does not parse: {exc.msg} (line {exc.lineno})"
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    others = [node for node in tree.body if node not in defs]
    if others or len(defs) != 1 or defs[0].name != name:
        return f"the reply is not just the function {name}()"
    return None


def apply_reply(
    original: str, suspect: Suspect, form: Form, reply: str, *, at: int | None = None
) -> tuple[str | None, str | None]:
    """``(new file text, None)``, or ``(None, why not)`` when the reply cannot be applied or does not parse.

    ``at`` is the line a ``line`` reply was asked to correct (its reply then has no line number). Either
    way the number is a hint: the reply lands on the function's line most like it (``_target_line``).
    """
    try:
        data = json.loads(reply, strict=False)  # constrained decoding may put raw newlines inside strings
        code = str(data["diff" if form == "diff" else "code"])
        line = (int(data["line"]) if at is None else at) if form == "line" else 0
    except (ValueError, KeyError, TypeError):
        return None, "the reply is not the JSON asked for"
    lines = original.splitlines(keepends=True)
    if form == "diff":
        patched, why = apply_hunk(lines, suspect, code)
        if patched is None:
            return None, why
        lines = patched
    elif form == "line":
        if "\n" in code.strip():
            return None, "the reply's code is more than one line"
        target = _target_line(lines, suspect, line, code)
        if target is None:
            return None, _unchanged(suspect, at)
        old = lines[target - 1]
        indent = old[: len(old) - len(old.lstrip())]
        new = code.strip()
        if old.rstrip().endswith(":") and not new.endswith(":"):
            new += ":"  # a header's corrected condition, written without its colon (common in small models)
        lines[target - 1] = indent + new + "\n"
    else:
        code = _body_off_the_def_line(_without_known_imports(textwrap.dedent(code.strip("\n")), original))
        wrong = _not_the_function(code, suspect)
        if wrong:
            return None, wrong
        def_line = lines[suspect.start - 1]
        indent = def_line[: len(def_line) - len(def_line.lstrip())]
        body = textwrap.indent(code, indent).rstrip() + "\n"
        lines[suspect.start - 1 : suspect.end] = body.splitlines(keepends=True)
    new_text = minimise(original, "".join(lines))
    try:
        ast.parse(new_text)
    except SyntaxError as exc:
        return None, f"the patched file does not parse: {exc.msg} (line {exc.lineno})"
    if new_text == original:
        return None, _unchanged(suspect, at)
    return new_text, None


def _unchanged(suspect: Suspect, at: int | None) -> str:
    """Why an unchanged reply is unusable; asked about one line, "it is right" is an answer the prompt offers."""
    if at is not None:
        return f"the reply keeps line {at} as it is"
    return f"the reply changes nothing in {suspect.function}"


def apply_hunk(lines: list[str], suspect: Suspect, diff: str) -> tuple[list[str] | None, str | None]:
    """``lines`` with a unified diff's hunk applied inside the suspect function, or ``(None, why not)``.

    The ``@@`` numbers are ignored (small models rarely get them right): the hunk's old side (its
    context and ``-`` lines, in order) must match consecutive lines of the function, compared
    without indentation. A line with no marker counts as context. The new lines keep the model's
    relative indentation, shifted to where the old side matched.
    """
    old_side: list[str] = []
    new_side: list[tuple[str, bool]] = []  # (text, added)
    for raw in diff.splitlines():
        if raw.startswith(_DIFF_HEADERS) or not raw.strip():
            continue
        marker, text = (raw[0], raw[1:]) if raw[0] in " +-" else (" ", raw)
        text = _LISTING_NUMBER.sub("", text)
        if marker in " -":
            old_side.append(text)
        if marker in " +":
            new_side.append((text, marker == "+"))
    if not any(added for _, added in new_side) and len(old_side) == len(new_side):
        return None, "the diff adds and removes nothing"
    if not old_side:
        return None, "the diff has no context or removed line to place it by"
    wanted = [text.strip() for text in old_side]
    for start in range(suspect.start, suspect.end - len(wanted) + 2):
        if [lines[n - 1].strip() for n in range(start, start + len(wanted))] == wanted:
            break
    else:
        return None, f"the diff's old lines are not in {suspect.function}"
    first_old = lines[start - 1]
    shift = _indent(first_old) - _indent(old_side[0])
    kept = iter(lines[start - 1 : start - 1 + len(wanted)])
    replacement: list[str] = []
    for text, added in new_side:
        if not added:  # context: the file's own line, as it is
            replacement.append(next(line for line in kept if line.strip() == text.strip()))
            continue
        replacement.append(" " * max(0, _indent(text) + shift) + text.strip() + "\n")
    return [*lines[: start - 1], *replacement, *lines[start - 1 + len(wanted) :]], None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


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


def narrowings(original: str, candidate: Candidate, index: int) -> list[Candidate]:
    """Each change of a candidate that makes several, alone: a candidate of its own (``index`` on).

    A whole-function reply that fixes the bug often changes another line on the way (``return xs``
    for ``return list(xs)`` beside the corrected base case), and the tests may pass either way.
    Validated, a piece that passes alone wins over its parent (``choose.contains``): the parent's
    other changes were not needed, and they are what a reviewer would strike. This is the first
    step of delta debugging; pairs of changes are not tried. A piece that does not parse is left out.
    """
    if candidate.new_text is None:
        return []
    old, new = original.splitlines(keepends=True), candidate.new_text.splitlines(keepends=True)
    spans = hunks(old, new)
    if len(spans) < 2:
        return []
    pieces: list[Candidate] = []
    for n, (i1, i2, j1, j2) in enumerate(spans[:MAX_NARROWINGS]):
        text = "".join([*old[:i1], *new[j1:j2], *old[i2:]])
        if shape(text) is None:
            continue
        diff, changed = _diff(candidate.suspect.path, original, text)
        reply = f"change {n + 1} of {len(spans)} of candidate #{candidate.index}, alone"
        pieces.append(
            Candidate(index + len(pieces), candidate.suspect, candidate.form, reply, text, None, diff, changed, 0, 0.0)
        )
    return pieces


def _with_newline(mutant: Mutant, lines: list[str]) -> str:
    """The mutant's new line with the old line's ending."""
    old = lines[mutant.line - 1]
    return mutant.text + old[len(old.rstrip("\r\n")) :]


def _diff(path: str, old: str, new: str | None) -> tuple[str, int]:
    if new is None:
        return "", 0
    lines = list(
        difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}")
    )
    changed = sum(1 for line in lines[2:] if line[:1] in "+-")
    return "".join(lines), changed
