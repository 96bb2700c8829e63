"""A model's reply as a new file: placed where it belongs, forgiving what small models get wrong.

Each edit form (``candidates.py``) has its reply shape: one line, a whole function, a unified diff.
``apply_reply`` turns one reply into the new file text, or says in one sentence why it cannot be
used (``unusable.py`` counts those by kind). Small models give the right fix in the wrong wrapping
often enough that unwrapping it is worth a rule each: a line number off by a few, a header's colon
left out, a block's one-line body on its header's line, a brace left from the JSON around the code,
imports copied from the context, a function written on its ``def`` line, docstrings rewritten, and
the neighbour function (or the outer one) given back whole beside the suspect.
"""

from __future__ import annotations

import ast
import difflib
import itertools
import json
import re
import textwrap
from typing import Literal

from chrysalis.repair.localise import Suspect
from chrysalis.repair.minimise import definitions, first_line, minimise

__all__ = ["Form", "apply_hunk", "apply_reply"]

Form = Literal["line", "function", "diff", "template"]
_LISTING_NUMBER = re.compile(r"^\s*\d+ \| ?")
"""``  12 | `` at the start of a diff line: the prompt's numbered listing, copied into the diff."""
_DIFF_HEADERS = ("---", "+++", "@@", "diff ", "index ", "\\")


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


def _functions_replaced(original: str, suspect: Suspect, code: str) -> tuple[list[str] | None, str | None]:
    """The file with each function of a whole-function reply put in place of its namesake, or ``(None, why not)``.

    The reply may rewrite the suspect's neighbours too (the functions beside it, in its module or
    class): small models asked about ``lcm`` often give back ``gcd`` fixed and ``lcm`` as it was, and
    that is a fix (``minimise`` then drops what did not change). A reply with code outside functions
    or a function the file does not have (often a second copy of a helper, or a rename) is not used:
    it would pass review only by accident.
    """
    name = suspect.function.rsplit(".", 1)[-1]
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return None, f"the reply does not parse: {exc.msg} (line {exc.lineno})"
    defs = [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    siblings = _siblings(original, suspect)
    unknown = [node.name for node in defs if node.name not in siblings]
    spans = sorted(siblings[node.name] for node in defs if node.name in siblings)
    nested = any(later[0] <= earlier[2] for earlier, later in itertools.pairwise(spans))  # a function and its own
    if not defs or len(defs) != len(tree.body) or unknown or nested:
        extra = f": {unknown[0]}() is not in {suspect.path}" if unknown and unknown[0] != name else ""
        return None, f"the reply is not just the function {name}(){extra}"
    lines, code_lines = original.splitlines(keepends=True), code.splitlines()
    for node in sorted(defs, key=lambda node: -siblings[node.name][0]):  # bottom up: spans stay valid
        decorated, def_at, end = siblings[node.name]
        start = decorated if node.decorator_list else def_at  # a reply without decorators keeps the file's
        def_line = lines[def_at - 1]
        indent = def_line[: len(def_line) - len(def_line.lstrip())]
        text = textwrap.indent("\n".join(code_lines[first_line(node) - 1 : node.end_lineno]), indent).rstrip() + "\n"
        lines[start - 1 : end] = text.splitlines(keepends=True)
    return lines, None


def _siblings(original: str, suspect: Suspect) -> dict[str, tuple[int, int, int]]:
    """The functions in each scope around the suspect (its module's, then its class's or outer function's), by name.

    Values are (first decorator's line, ``def`` line, last line). An outer function is there too:
    asked about a nested ``visit``, small models give back the whole function around it.
    """
    parts = suspect.function.split(".")
    scopes = [".".join(parts[:depth]) for depth in range(len(parts))]  # "", "Class", "Class.method", ...
    found: dict[str, tuple[int, int, int]] = {}
    by_name = definitions(ast.parse(original))
    for scope in scopes:  # outer scopes first: an inner function of the same name wins
        for qualified, node in by_name.items():
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and qualified.rpartition(".")[0] == scope:
                found[node.name] = (first_line(node), node.lineno, node.end_lineno or node.lineno)
    return found


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
        lines = _line_replaced(lines, target, code.strip())
    else:
        code = _body_off_the_def_line(_without_known_imports(textwrap.dedent(code.strip("\n")), original))
        replaced, why = _functions_replaced(original, suspect, code)
        if replaced is None:
            return None, why
        lines = replaced
    new_text = minimise(original, "".join(lines))
    try:
        ast.parse(new_text)
    except SyntaxError as exc:
        return None, f"the patched file does not parse: {exc.msg} (line {exc.lineno})"
    if new_text == original:
        return None, _unchanged(suspect, at)
    return new_text, None


def _line_replaced(lines: list[str], target: int, new: str) -> list[str]:
    """``lines`` with line ``target`` replaced by a one-line reply, forgiving what small models get wrong.

    A stray closing brace left from the JSON around it is dropped. A block header's corrected
    condition written without its colon gets it back; written with its body on the same line
    (``if not xs: return xs``), the body replaces the block's own when that is one line.
    """
    if new.endswith("}") and new.count("}") > new.count("{") and _parses(new[:-1].rstrip()):
        new = new[:-1].rstrip()
    old = lines[target - 1]
    indent = old[: len(old) - len(old.lstrip())]
    result = list(lines)
    if old.rstrip().endswith(":"):
        header, body = _header_and_body(new)
        new = header if header.endswith(":") else header + ":"  # a condition written without its colon
        if body and _one_line_block(lines, target):
            below = lines[target]
            result[target] = below[: len(below) - len(below.lstrip())] + body + "\n"
    result[target - 1] = indent + new + "\n"
    return result


def _header_and_body(code: str) -> tuple[str, str]:
    """``if c: return x`` as ``("if c:", "return x")``; anything else as ``(code, "")``."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return code, ""
    node = tree.body[0] if len(tree.body) == 1 else None
    inner = getattr(node, "body", None)
    if not isinstance(node, ast.If | ast.For | ast.While | ast.With) or not inner or len(inner) != 1:
        return code, ""
    if getattr(node, "orelse", None) or inner[0].lineno != node.lineno:
        return code, ""
    return code[: inner[0].col_offset].rstrip(), code[inner[0].col_offset :].strip()


def _one_line_block(lines: list[str], header: int) -> bool:
    """The block under line ``header`` is its next line alone: indented deeper, and nothing deeper after it."""
    if header >= len(lines):
        return False
    depth = _indent(lines[header - 1])
    after = next((line for line in lines[header + 1 :] if line.strip()), "")
    return _indent(lines[header]) > depth and (not after or _indent(after) <= depth)


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


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
