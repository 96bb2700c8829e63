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
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from chrysalis.llm.backend import ChatMessage
from chrysalis.llm.sampling import Sampler
from chrysalis.repair.evidence import LineEvidence
from chrysalis.repair.failures import failure_digest
from chrysalis.repair.localise import Suspect
from chrysalis.repair.minimise import hunks, shape
from chrysalis.repair.mutants import Mutant, mutants
from chrysalis.repair.replies import Form, apply_reply

__all__ = ["FORMS", "SAMPLE_FORMS", "Candidate", "CandidateSource", "Form", "narrowings", "parse_forms", "prompt_for"]

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
    "line": (
        'Reply with JSON: {"line": <the number of the buggy line>, "code": "<that line, corrected>"}. '
        "The corrected line must differ from the line as it is."
    ),
    "function": (
        'Reply with JSON: {"code": "<the whole function, corrected>"}. '
        "It must differ from the function as it is: as it is, it fails the tests."
    ),
    "diff": (
        'Reply with JSON: {"diff": "<a unified diff of the function: a @@ line, then the lines around the '
        'fix starting with a space, the wrong lines starting with -, their corrections starting with +>"}.'
    ),
}
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
