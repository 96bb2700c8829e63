"""``chrysalis sessions`` (list the conversations) and ``chrysalis sessions export ID`` (one as Markdown or JSON).

Both read the session store only; neither imports pydantic-ai: the stored messages are plain
JSON, and the Markdown is written from their ``kind`` and ``part_kind`` fields.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from chrysalis.config import chrysalis_home
from chrysalis.errors import UsageError
from chrysalis.stores import SessionInfo, Stores, UnknownSession

__all__ = ["export_command", "sessions_command", "to_markdown"]

FORMATS = ("markdown", "json")


def sessions_command(workspace: Path | None, limit: int, *, json_output: bool) -> int:
    """Print the sessions (this workspace's only, with ``workspace``), the most recently used first."""
    if limit < 1:
        raise UsageError(f"--limit {limit}: give a number of sessions, 1 or more.")
    where = workspace.resolve() if workspace is not None else None
    with Stores.open(chrysalis_home()) as stores:
        found = stores.sessions.recent(where, limit)
    if json_output:
        print(json.dumps([info.to_json() for info in found], indent=1))
        return 0
    if not found:
        place = f" in {where}" if where is not None else ""
        print(f'No sessions{place} yet: each chrysalis run "TASK" starts one.')
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, header_style="bold")
    for column in ("id", "updated", "workspace", "first task", "runs", "steps", "cost"):
        table.add_column(column, justify="right" if column in ("runs", "steps", "cost") else "left")
    for info in found:
        table.add_row(
            info.id,
            _ago(info.updated_at),
            info.workspace,
            _short(info.title, 48),
            str(info.runs),
            str(info.steps),
            f"${info.cost_usd:.4f}",
        )
    console = Console()
    console.print(table)
    console.print(
        'Go on with one: chrysalis run --resume ID "…" (or --continue for this folder\'s last, --fork ID for a copy).',
        style="dim",
    )
    return 0


def export_command(ref: str, fmt: str, output: Path | None) -> int:
    """Write session ``ref``'s conversation as Markdown or JSON, to ``output`` or standard output.

    Raises:
        UsageError: an unknown format, an unknown session, or a file that cannot be written.
    """
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt}: unknown format; use {' or '.join(FORMATS)}.")
    with Stores.open(chrysalis_home()) as stores:
        try:
            info = stores.sessions.get(ref)
        except UnknownSession as exc:
            raise UsageError(f"sessions export {ref}: {exc}; chrysalis sessions lists them.") from exc
        messages = stores.sessions.messages(info.id)
    if fmt == "json":
        text = json.dumps({"session": info.to_json(), "messages": messages}, indent=1, ensure_ascii=False) + "\n"
    else:
        text = to_markdown(info, messages)
    if output is None:
        sys.stdout.write(text)
        return 0
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--output {output}: cannot write it ({exc.strerror}); choose another file.") from exc
    print(f"wrote session {info.id} ({len(messages)} messages) to {output}", file=sys.stderr)
    return 0


def to_markdown(info: SessionInfo, messages: list[dict[str, Any]]) -> str:
    """The conversation for a person to read: the tasks, the answers, each tool call and its result."""
    lines = [
        f"# Session {info.id}",
        "",
        f"- workspace: `{info.workspace}`",
        f"- started {_when(info.created_at)}, last used {_when(info.updated_at)}",
        f"- {info.runs} runs, {info.steps} steps, ${info.cost_usd:.4f}",
    ]
    if info.forked_from:
        lines.append(f"- forked from session {info.forked_from}")
    for message in messages:
        for part in message.get("parts", []):
            lines += ["", *_part(part)]
    return "\n".join(lines) + "\n"


def _part(part: dict[str, Any]) -> list[str]:
    """One message part in Markdown (system prompts are left out: they are the framework's, not the talk)."""
    kind = part.get("part_kind")
    if kind == "user-prompt":
        return ["## Task", "", _text(part.get("content"))]
    if kind == "text":
        return ["## Answer", "", _text(part.get("content"))]
    if kind == "tool-call":
        args = part.get("args")
        shown = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        return [f"**→ {part.get('tool_name')}**", "", "```json", shown, "```"]
    if kind in ("tool-return", "retry-prompt"):
        label = "result" if kind == "tool-return" else "retry"
        return [f"**← {part.get('tool_name') or label}** ({label})", "", "```", _text(part.get("content")), "```"]
    return []


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return json.dumps(content, ensure_ascii=False, indent=1, default=str)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _when(timestamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(timestamp))


def _ago(timestamp: float) -> str:
    """``3 min ago``, ``2 h ago``, or the date for older ones."""
    seconds = time.time() - timestamp
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return _when(timestamp)
