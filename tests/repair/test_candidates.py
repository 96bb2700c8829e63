"""Candidate prompts and replies: the file's skeleton, line-by-line asking, and replies small models really give."""

from __future__ import annotations

import json

import pytest

from chrysalis.repair.candidates import (
    Candidate,
    Form,
    line_order,
    module_context,
    narrowings,
    parse_forms,
    prompt_for,
)
from chrysalis.repair.localise import Suspect
from chrysalis.repair.minimise import minimise
from chrysalis.repair.replies import apply_reply
from chrysalis.repair.unusable import KINDS, discard_reason

PROGRAM = '''from collections import deque

PAIRS = {")": "("}


def helper(x):
    """Help with x."""
    return x


def bfs(graph, start):
    """Distances from start."""
    dist = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in graph[node]:
            dist[nxt] = dist[node] + 1
    return dist
'''
BFS = Suspect("g.py", "bfs", 11, 19, 2.0, (18,), (18, 17, 13))


def test_the_prompt_shows_the_files_skeleton_but_not_the_suspect_twice() -> None:
    context = module_context(PROGRAM, BFS)
    assert context.splitlines() == [
        "from collections import deque",
        'PAIRS = {")": "("}',
        "def helper(x):",
        '    """Help with x."""',
        "    ...",
    ]
    prompt = prompt_for(BFS, PROGRAM, "E KeyError: 'a'", "line")[1].content
    assert context in prompt and prompt.count("def bfs") == 1 and "KeyError" in prompt


def test_lines_are_asked_about_suspicious_first_then_top_down_without_def_or_docstring() -> None:
    assert line_order(PROGRAM, BFS) == [18, 17, 13, 14, 15, 16, 19]


def test_a_line_asked_about_is_named_in_the_prompt_and_a_fix_there_is_applied() -> None:
    prompt = prompt_for(BFS, PROGRAM, "failure", "line", at=13)[1].content
    assert prompt.endswith('Reply with JSON: {"code": "<line 13 of the code, as it should be>"}.')
    assert "Line 13 is:\ndist = {}" in prompt
    text, problem = apply_reply(PROGRAM, BFS, "line", json.dumps({"code": "dist = {start: 0}"}), at=13)
    assert problem is None and text == PROGRAM.replace("    dist = {}\n", "    dist = {start: 0}\n")
    same, why = apply_reply(PROGRAM, BFS, "line", json.dumps({"code": "dist = {}"}), at=13)
    assert same is None and why == "the reply keeps line 13 as it is" and discard_reason(why) == "kept_line"


def test_a_corrected_header_written_without_its_colon_gets_it_back() -> None:
    text, problem = apply_reply(PROGRAM, BFS, "line", json.dumps({"code": "while queue and node"}), at=15)
    assert problem is None and text == PROGRAM.replace("    while queue:\n", "    while queue and node:\n")


def test_raw_newlines_in_the_json_string_and_imports_the_file_has_are_tolerated() -> None:
    fixed = PROGRAM.split("def bfs")[1].replace("dist = {}", "dist = {start: 0}")
    reply = '{"code": "from collections import deque\n\ndef bfs' + fixed.replace('"', '\\"') + '"}'
    text, problem = apply_reply(PROGRAM, BFS, "function", reply)
    assert problem is None and text == PROGRAM.replace("    dist = {}\n", "    dist = {start: 0}\n")


def test_a_dropped_docstring_is_put_back_so_the_diff_shows_only_the_fix() -> None:
    without_doc = PROGRAM.replace('    """Distances from start."""\n', "").replace("dist = {}", "dist = {start: 0}")
    assert minimise(PROGRAM, without_doc) == PROGRAM.replace("dist = {}", "dist = {start: 0}")


def _diff_reply(*lines: str) -> str:
    return json.dumps({"diff": "\n".join(lines)})


def test_a_unified_diff_reply_is_placed_by_its_lines_not_its_header_numbers() -> None:
    reply = _diff_reply(
        "@@ -99,3 +99,3 @@",
        "     node = queue.popleft()",
        "     for nxt in graph[node]:",
        "-        dist[nxt] = dist[node] + 1",
        "+        dist[nxt] = dist.get(node, 0) + 1",
    )
    text, problem = apply_reply(PROGRAM, BFS, "diff", reply)
    assert problem is None
    assert text == PROGRAM.replace("dist[nxt] = dist[node] + 1", "dist[nxt] = dist.get(node, 0) + 1")


def test_a_diff_that_inserts_a_line_keeps_its_indentation_relative_to_where_it_matched() -> None:
    # the model dropped the function's indentation and copied the listing's line numbers
    reply = _diff_reply("@@ @@", "  13 | dist = {}", "+dist[start] = 0", "  14 | queue = deque([start])")
    text, problem = apply_reply(PROGRAM, BFS, "diff", reply)
    assert problem is None
    assert text == PROGRAM.replace("    dist = {}\n", "    dist = {}\n    dist[start] = 0\n")


def test_a_diff_whose_old_lines_are_not_in_the_function_or_that_changes_nothing_is_unusable() -> None:
    elsewhere = _diff_reply("-    return x", "+    return x + 1")  # helper's line, not bfs's
    assert apply_reply(PROGRAM, BFS, "diff", elsewhere) == (None, "the diff's old lines are not in bfs")
    nothing = _diff_reply("@@ -13 +13 @@", "     dist = {}")
    assert apply_reply(PROGRAM, BFS, "diff", nothing) == (None, "the diff adds and removes nothing")
    broken = _diff_reply("-    dist = {}", "+    dist = {start: 0")
    assert apply_reply(PROGRAM, BFS, "diff", broken)[1].startswith("the patched file does not parse")  # type: ignore[union-attr]


def test_the_forms_turn_is_checked_and_names_what_is_allowed() -> None:
    assert parse_forms("line, diff") == ("line", "diff")
    with pytest.raises(ValueError, match=r"--forms 'patch': unknown form 'patch'; give .*line, function, diff"):
        parse_forms("patch", "--forms 'patch'")
    with pytest.raises(ValueError, match="no form"):
        parse_forms(" , ")


def test_a_candidate_with_several_changes_narrows_to_each_change_alone() -> None:
    guarded = "            if nxt not in dist:\n                dist[nxt]"
    fixed = PROGRAM.replace("dist = {}", "dist = {start: 0}").replace("            dist[nxt]", guarded)
    reply = json.dumps({"code": fixed.split("\n\n\n")[-1]})
    new_text, problem = apply_reply(PROGRAM, BFS, "function", reply)
    assert problem is None and new_text is not None
    whole = Candidate(3, BFS, "function", reply, new_text, None, "", 4, 10, 1.0)
    first, second = narrowings(PROGRAM, whole, 10)
    assert (first.index, second.index, first.form, first.tokens) == (10, 11, "function", 0)
    assert first.new_text == PROGRAM.replace("dist = {}", "dist = {start: 0}")
    assert second.reply == "change 2 of 2 of candidate #3, alone" and "dist = {}" in str(second.new_text)
    assert [line for line in first.diff.splitlines() if line[:1] in "+-"][2:] == [
        "-    dist = {}",
        "+    dist = {start: 0}",
    ]
    assert narrowings(PROGRAM, first, 0) == []  # one change: nothing narrower


@pytest.mark.parametrize(
    ("form", "reply", "kind"),
    [
        ("line", "not json at all", "not_json"),
        ("line", json.dumps({"line": 17, "code": "a = 1\nb = 2"}), "more_than_one_line"),
        ("line", json.dumps({"line": 17, "code": "return dist"}), "unchanged"),
        ("line", json.dumps({"line": 19, "code": "dist[nxt] = (dist[node] + 1"}), "does_not_parse"),
        (
            "function",
            json.dumps({"code": "def bfs(graph, start):\n    return {}\n\ndef extra():\n    pass"}),
            "outside_the_function",
        ),
        ("function", json.dumps({"code": "def bfs(graph, start:\n    return {}"}), "does_not_parse"),
        ("diff", _diff_reply("-    return x", "+    return x + 1"), "outside_the_function"),
        ("diff", _diff_reply("@@ -13 +13 @@", "     dist = {}"), "unchanged"),
        ("diff", _diff_reply("+    dist[start] = 0"), "not_placed"),
    ],
)
def test_every_unusable_reply_is_counted_under_its_kind(form: Form, reply: str, kind: str | None) -> None:
    _text, problem = apply_reply(PROGRAM, BFS, form, reply)
    assert (None if problem is None else discard_reason(problem)) == kind, problem
    assert discard_reason("a message no one wrote") == "other" and set(KINDS) >= {"other", "not_json"}


GCD = '''def gcd(a, b):
    """Euclid."""
    while b:
        a, b = b, b % a
    return a


def lcm(a, b):
    """The least common multiple."""
    return a // gcd(a, b) * b
'''
LCM = Suspect("m.py", "lcm", 8, 10, 1.0, (10,), (10,))


def test_a_function_reply_may_fix_the_neighbour_it_calls_and_only_the_changed_one_is_applied() -> None:
    # Asked about lcm, the 1.5B model gave gcd fixed and lcm as it was (the dev set's gcd bug, twice in one run).
    fixed_gcd = "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a"
    reply = fixed_gcd + "\n\n\ndef lcm(a, b):\n    return a // gcd(a, b) * b"
    text, problem = apply_reply(GCD, LCM, "function", json.dumps({"code": reply}))
    assert problem is None and text == GCD.replace("b, b % a", "b, a % b")  # docstrings kept, lcm untouched
    alone, _ = apply_reply(GCD, LCM, "function", json.dumps({"code": fixed_gcd}))
    assert alone == text
    helper = "def helper(a):\n    return a\n\n\ndef lcm(a, b):\n    return a * b"
    _none, why = apply_reply(GCD, LCM, "function", json.dumps({"code": helper}))
    assert why == "the reply is not just the function lcm(): helper() is not in m.py"


SORT = '''def merge_sort(xs):
    """A sorted copy."""
    if len(xs) == 0:
        return list(xs)
    mid = len(xs) // 2
    return xs[:mid] + xs[mid:]
'''
SORT_SUSPECT = Suspect("s.py", "merge_sort", 1, 6, 1.0, (3,), (3, 4, 5, 6))


@pytest.mark.parametrize(
    ("at", "code", "expected"),
    [
        (3, "if len(xs) <= 1: return xs", "    if len(xs) <= 1:\n        return xs\n"),  # the block's one line too
        (3, "if len(xs) <= 1", "    if len(xs) <= 1:\n        return list(xs)\n"),  # the colon put back
        (4, "return xs[:]}", "    if len(xs) == 0:\n        return xs[:]\n"),  # a brace left from the JSON
    ],
)
def test_one_line_replies_small_models_garble_are_applied_as_meant(at: int, code: str, expected: str) -> None:
    # Replies the 1.5B model gave on the dev set's merge_sort; each was "does not parse" before.
    text, problem = apply_reply(SORT, SORT_SUSPECT, "line", json.dumps({"code": code}), at=at)
    assert problem is None and text == SORT.replace("    if len(xs) == 0:\n        return list(xs)\n", expected)


NESTED = '''def has_cycle(graph):
    """Whether the directed graph has a cycle."""
    seen = set()

    def visit(node):
        seen.add(node)
        return any(visit(n) for n in graph[node] if n not in seen)

    return any(visit(node) for node in graph)
'''
VISIT = Suspect("c.py", "has_cycle.visit", 5, 7, 1.0, (7,), (7, 6))


def test_asked_about_a_nested_function_a_reply_may_give_back_the_function_around_it() -> None:
    outer = NESTED.replace('    """Whether the directed graph has a cycle."""\n', "").replace(
        "seen.add(node)", "seen.add(n)"
    )
    text, problem = apply_reply(NESTED, VISIT, "function", json.dumps({"code": outer}))
    assert problem is None and text == NESTED.replace("seen.add(node)", "seen.add(n)")
    both = outer + "\n\ndef visit(node):\n    return False\n"  # the outer one and its own inner one: which?
    _none, why = apply_reply(NESTED, VISIT, "function", json.dumps({"code": both}))
    assert why == "the reply is not just the function visit()"


def test_a_function_reply_without_the_decorators_keeps_the_files() -> None:
    body = "    return n if n < 2 else fib(n - 1) + fib(n - 1)\n"
    decorated = "import functools\n\n\n@functools.cache\ndef fib(n):\n" + body
    suspect = Suspect("f.py", "fib", 5, 6, 1.0, (6,), (6,))
    reply = "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)"
    text, problem = apply_reply(decorated, suspect, "function", json.dumps({"code": reply}))
    assert problem is None and text == decorated.replace("fib(n - 1)\n", "fib(n - 2)\n")
