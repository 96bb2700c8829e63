"""What every peer driver of ``bench/overhead.py`` shares: the task, the tool's work and the command line.

The drivers run in the peers' own virtual envs (``bench/peers/.venvs/``, made by
``setup_overhead_peers.sh``), so this module uses the standard library only and never imports
chrysalis. Each driver is one whole process, as a user would run it: it imports its framework, builds
an agent with one tool, runs the task against ``--base-url`` (the scripted server that
``bench/overhead.py`` starts) and prints one JSON line with the answer and the number of tool calls it
ran. The server scripts the model: ``--steps`` tool calls, then the framework's way of finishing.

The tool does the same work as chrysalis's built-in ``read_file`` (the same name and arguments, and
numbered lines in the same layout), so the side-by-side rows differ only in the framework around it.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SYSTEM", "TASK", "DriverArgs", "parse_args", "read_lines", "report"]

SYSTEM = "You are a coding agent. Use the tools to inspect the workspace, then answer."
TASK = "Read every chunk of app.log, 4 lines at a time, and tell me what failed."


@dataclass(frozen=True)
class DriverArgs:
    """The command line every driver takes."""

    base_url: str
    """The OpenAI-compatible API root, e.g. ``http://127.0.0.1:PORT/v1``."""
    workspace: Path
    """The folder holding ``app.log``; the tool reads files relative to it."""
    steps: int
    """How many tool calls the server will script (limits are set a little above this)."""


def parse_args(description: str) -> DriverArgs:
    """Parse ``--base-url URL --workspace DIR [--steps N]``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--workspace", required=True, type=Path)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    return DriverArgs(base_url=args.base_url, workspace=args.workspace.resolve(), steps=args.steps)


def read_lines(workspace: Path, path: str, start_line: int, end_line: int) -> str:
    """Lines ``start_line..end_line`` (1-based, inclusive) of a workspace file, numbered as chrysalis shows them."""
    lines = (workspace / path).read_text(encoding="utf-8").splitlines()
    shown = lines[start_line - 1 : end_line]
    width = max(4, len(str(start_line + len(shown) - 1)))
    body = "\n".join(f"{number:>{width}}| {line}" for number, line in enumerate(shown, start_line))
    return f"{path} (lines {start_line}-{start_line + len(shown) - 1} of {len(lines)})\n{body}"


def report(answer: object, tool_calls: int) -> None:
    """Print the driver's one JSON result line; ``bench/overhead.py`` checks it."""
    print(json.dumps({"answer": str(answer), "tool_calls": tool_calls}), flush=True)
    sys.stdout.flush()
