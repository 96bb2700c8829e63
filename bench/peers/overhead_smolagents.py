"""Overhead peer: smolagents' ``ToolCallingAgent`` with ``OpenAIServerModel``, as one whole process.

Used as smolagents' documentation shows it: a ``@tool`` function, the default verbosity (it prints
a panel per step, as chrysalis ``--json`` prints events), and the agent finishing through its built-in
``final_answer`` tool, which the scripted server calls last. Runs in ``bench/peers/.venvs/smolagents``.
"""

from __future__ import annotations

from overhead_common import TASK, parse_args, read_lines, report
from smolagents import OpenAIServerModel, ToolCallingAgent, tool


def main() -> None:
    """Run the task with a ``ToolCallingAgent`` whose only tool reads lines of a workspace file."""
    args = parse_args(__doc__.splitlines()[0])
    calls = 0

    @tool
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

    model = OpenAIServerModel(model_id="bench", api_base=args.base_url, api_key="none")
    agent = ToolCallingAgent(tools=[read_file], model=model, max_steps=args.steps + 5)
    answer = agent.run(TASK)
    report(answer, calls)


if __name__ == "__main__":
    main()
