"""Overhead peer: the raw ``openai`` client in a hand-written tool loop, as one whole process.

This is the floor of the side-by-side table in ``bench/overhead.py``: the loop a user writes with no
framework (the synchronous ``OpenAI`` client, the growing message list, ``json.loads`` of the
arguments, the tool, the tool message). Every framework sends at least these requests through an
HTTP client, so its ms per step is compared with this one. Runs in ``bench/peers/.venvs/openai``.
"""

from __future__ import annotations

import json
from typing import Any

from openai import OpenAI
from overhead_common import SYSTEM, TASK, parse_args, read_lines, report

TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "read_file",
        "description": "Read a text file, with line numbers. Use start_line/end_line to read part of a long file.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path, relative to the workspace."},
                "start_line": {"type": "integer", "description": "First line to show (1-based)."},
                "end_line": {"type": "integer", "description": "Last line to show (inclusive)."},
            },
            "required": ["path", "start_line", "end_line"],
        },
    },
}


def main() -> None:
    """Call the model until it answers without tool calls, running each call's tool."""
    args = parse_args(__doc__.splitlines()[0])
    client = OpenAI(base_url=args.base_url, api_key="none", max_retries=0)
    messages: list[Any] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": TASK}]
    tool_calls = 0
    for _ in range(args.steps + 5):
        response = client.chat.completions.create(model="bench", messages=messages, tools=[TOOL])  # type: ignore[list-item]
        message = response.choices[0].message
        if not message.tool_calls:
            report(message.content, tool_calls)
            return
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            call_args = json.loads(call.function.arguments)  # type: ignore[union-attr]
            content = read_lines(args.workspace, **call_args)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
            tool_calls += 1
    raise SystemExit(f"no final answer after {args.steps + 5} requests")


if __name__ == "__main__":
    main()
