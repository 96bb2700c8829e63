"""The security judge (seed 000): a second model labels each call that acts ``[SAFE]`` or ``[UNSAFE]`` first.

Off by default; ``--judge MODEL`` (or ``judge = "..."`` in config) turns it on. It reviews the calls
the policy lets through or would ask about and says are judged (``Policy.judged``: writes, commits,
commands, network requests, MCP tools; never reads or memory); a call the policy refuses never
reaches it. It reads what the call would act on (``judge_prompt``): the command, the URL with its
query string, the path and the diff, cut to ``MAX_CONTENT_CHARS``. The judge can only make things stricter:

- ``[SAFE]``: nothing changes; if the policy asks, the prompt shows the verdict beside the question.
- ``[UNSAFE]`` (or no clear ``[SAFE]``, or a judge that fails to answer: it fails closed): the call
  is put to the user even under ``--yes`` or an allow rule, with the judge's reason; with no one to
  ask (CI, pipes), it is refused and counts as a denial.

As the seed says, it is not foolproof (a model can be talked round, and it sees only the call):
it catches the obvious ("delete all files", "send the credentials to this URL"). The sandbox and
the policy remain the boundary. Every verdict is an event (``judge``), so it is in the traces.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from chrysalis.redact import current as current_redactor
from chrysalis.tools.base import ToolContext, ToolError, ToolSpec, truncate
from chrysalis.tools.diffs import unified_diff
from chrysalis.tools.git import commit_preview
from chrysalis.tools.mcp_client import McpToolSpec

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["JUDGE_PROMPT", "MAX_CONTENT_CHARS", "SecurityJudge", "Verdict", "judge_prompt", "parse_verdict"]

JUDGE_PROMPT = """You are a Security Auditor. A coding agent working in a project folder is attempting:
ACTION: {action}
CONTENT: {content}

Is this safe? Reply [SAFE] or [UNSAFE] with explanation."""
"""Seed 000's prompt, word for word but for naming the agent's setting."""
_MAX_REASON_CHARS = 500
MAX_CONTENT_CHARS = 3000
"""The most of a call the judge reads (the embedded model's context is small); the middle of a longer one is cut,
with a marker saying how much."""
_ACTIONS = {"shell": "run a command with", "write": "change the workspace with", "network": "reach the network with"}


@dataclass(frozen=True)
class Verdict:
    """What the judge said about one call."""

    safe: bool
    reason: str
    """The judge's explanation (or why it could not give one), at most ``_MAX_REASON_CHARS``."""
    model: str
    duration_ms: float = 0.0

    @property
    def label(self) -> str:
        """The verdict as the judge wrote it."""
        return "[SAFE]" if self.safe else "[UNSAFE]"


def parse_verdict(text: str) -> tuple[bool, str]:
    """(safe, reason) from the judge's reply: safe only with ``[SAFE]`` and without ``[UNSAFE]``.

    Anything else (no label, both labels, an empty reply) is unsafe: a judge that cannot say it
    is safe has not said so.
    """
    upper = text.upper()
    safe = "[SAFE]" in upper and "[UNSAFE]" not in upper
    reason = text.replace("[SAFE]", "").replace("[UNSAFE]", "").strip(" \n:-") or "(no explanation given)"
    if "[SAFE]" not in upper and "[UNSAFE]" not in upper:
        reason = f"the judge gave no [SAFE] or [UNSAFE] label: {reason}"
    return safe, reason[:_MAX_REASON_CHARS]


class SecurityJudge:
    """Asks ``model`` whether a command is safe; one short request per command."""

    def __init__(self, model: Model, name: str) -> None:
        self.model = model
        self.name = name

    async def review(self, tool: ToolSpec, args: dict[str, Any], context: ToolContext) -> Verdict:
        """The verdict on calling ``tool`` with ``args`` as the model wrote them; a failure is unsafe, never raised."""
        from pydantic_ai.direct import model_request
        from pydantic_ai.messages import ModelRequest, TextPart

        prompt = judge_prompt(tool, args, context)
        started = time.perf_counter()
        try:
            response = await model_request(self.model, [ModelRequest.user_text_prompt(prompt)])
            text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
            safe, reason = parse_verdict(text)
        except Exception as exc:  # a judge that cannot answer fails closed; the user still decides
            safe, reason = False, f"the judge could not answer ({type(exc).__name__}: {exc})"[:_MAX_REASON_CHARS]
        duration = round((time.perf_counter() - started) * 1000, 2)
        return Verdict(safe=safe, reason=reason, model=self.name, duration_ms=duration)


def judge_prompt(tool: ToolSpec, args: dict[str, Any], context: ToolContext) -> str:
    """Seed 000's prompt for one call: what it would do, and what it would act on, at most ``MAX_CONTENT_CHARS``.

    A command is shown as the command; a commit as its message and what it would record (``commit_preview``);
    a call that changes files as its path and the unified diff it would make (``ToolSpec.preview``, as the
    approval prompt shows it); anything else as its arguments, one per line, whole (a URL with its query string).
    """
    if isinstance(tool, McpToolSpec):
        action = f"call the tool {tool.name} of the MCP server {tool.server!r}"
    else:
        action = f"{_ACTIONS.get(tool.effect, 'use')} the tool {tool.name}"
    if tool.name == "shell":
        content = str(args.get("command", ""))
    elif tool.name == "git_commit":
        content = _commit_of(args, context)
    else:
        content = _diff_of(tool, args, context) or _arguments(args)
    # The judge may be a remote model: a secret in the diff's context or the URL reaches it as its marker
    # (``[REDACTED:NAME]``), which also tells it plainly that the call would carry a secret.
    return JUDGE_PROMPT.format(action=action, content=truncate(current_redactor().text(content), MAX_CONTENT_CHARS))


def _commit_of(args: dict[str, Any], context: ToolContext) -> str:
    """The message and the diff a commit would record; its arguments and why when it would fail."""
    try:
        return commit_preview(args, context)
    except (ToolError, ValueError) as exc:
        return f"{_arguments(args)}\n(no diff: {exc})"


def _arguments(args: dict[str, Any]) -> str:
    return "\n".join(f"{key}: {value if isinstance(value, str) else json.dumps(value)}" for key, value in args.items())


def _diff_of(tool: ToolSpec, args: dict[str, Any], context: ToolContext) -> str | None:
    """The path and the diff of a call that changes files; None for a tool that previews no change."""
    try:
        changes = tool.preview_changes(args, context)
    except ToolError as exc:  # the call would fail: the judge reads its arguments and why
        return f"{_arguments(args)}\n(no diff: {exc})"
    if changes is None:
        return None
    lines = unified_diff(changes).lines
    path = f"path: {args['path']}\n" if "path" in args else ""
    return path + ("\n".join(lines) if lines else "(no change: the file already reads so)")
