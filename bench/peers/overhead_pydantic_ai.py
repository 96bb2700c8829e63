"""Overhead peer: stock pydantic-ai (the version chrysalis pins) with its OpenAI chat model, as one whole process.

Chrysalis is built on pydantic-ai, so this row shows what the framework underneath costs before
chrysalis adds its own work (policy, guards, streaming events, traces, the eval store). An
``Agent`` with one plain-function tool and ``run_sync``, as pydantic-ai's documentation shows it.
Runs in ``bench/peers/.venvs/pydantic-ai``.
"""

from __future__ import annotations

from overhead_common import SYSTEM, TASK, parse_args, read_lines, report
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits


def main() -> None:
    """Run the task with an ``Agent`` whose only tool reads lines of a workspace file."""
    args = parse_args(__doc__.splitlines()[0])
    calls = 0

    def read_file(path: str, start_line: int, end_line: int) -> str:
        """Read a text file, with line numbers. Use start_line/end_line to read part of a long file.

        Args:
            path: File path, relative to the workspace.
            start_line: First line to show (1-based).
            end_line: Last line to show (inclusive).
        """
        nonlocal calls
        calls += 1
        return read_lines(args.workspace, path, start_line, end_line)

    model = OpenAIChatModel("bench", provider=OpenAIProvider(base_url=args.base_url, api_key="none"))
    agent = Agent(model, instructions=SYSTEM, tools=[read_file])
    result = agent.run_sync(TASK, usage_limits=UsageLimits(request_limit=args.steps + 5))
    report(result.output, calls)


if __name__ == "__main__":
    main()
