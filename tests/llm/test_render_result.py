"""Tool results reach text-protocol models as readable text, not JSON-escaped strings."""

from __future__ import annotations

import json

from chrysalis.llm.text_protocol import render_tool_result


def test_text_results_are_verbatim() -> None:
    content = {"ok": True, "result": 'line "one"\n    line two'}
    rendered = render_tool_result("read_file", content, lambda: json.dumps(content))
    assert rendered == 'TOOL_RESULT for read_file (ok):\nline "one"\n    line two'


def test_errors_are_verbatim_and_marked() -> None:
    content = {"ok": False, "error": "no such file: x.py"}
    assert (
        render_tool_result("read_file", content, lambda: "{}")
        == "TOOL_RESULT for read_file (error):\nno such file: x.py"
    )


def test_structured_results_stay_json() -> None:
    content = {"ok": True, "result": {"cpu_count": 2}}
    rendered = render_tool_result("system_stats", content, lambda: json.dumps(content))
    assert rendered == 'TOOL_RESULT for system_stats: {"ok": true, "result": {"cpu_count": 2}}'
