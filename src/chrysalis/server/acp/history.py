"""A stored conversation as ACP updates, for ``session/load``: the client rebuilds its view from them.

What the user asked becomes ``user_message_chunk``, what the model said ``agent_message_chunk``,
and each tool call a ``tool_call`` followed by its ``tool_call_update`` with the result. The files
as they were are gone, so an edit's diff shows the text the model replaced and its replacement.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp.helpers import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import FileEditToolCallContent

from chrysalis.server.acp.updates import Update, tool_kind, tool_title

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelRequestPart, ModelResponsePart

__all__ = ["history_updates"]

_RESULT_CHARS = 4_000


def history_updates(messages: list[ModelMessage], workspace: Path) -> list[Update]:
    """Every update that replays ``messages`` (a stored session's), in order."""
    from pydantic_ai.messages import ModelRequest

    ids: dict[str, str] = {}
    updates: list[Update] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for request_part in message.parts:
                updates.extend(_request_part(request_part, ids))
        else:
            for response_part in message.parts:
                updates.extend(_response_part(response_part, ids, workspace))
    return updates


def _request_part(part: ModelRequestPart, ids: dict[str, str]) -> list[Update]:
    from pydantic_ai.messages import RetryPromptPart, ToolReturnPart, UserPromptPart

    if isinstance(part, UserPromptPart):
        text = part.content if isinstance(part.content, str) else " ".join(str(c) for c in part.content)
        return [update_user_message_text(text)]
    if isinstance(part, ToolReturnPart) and part.tool_call_id in ids:
        content = part.content
        ok = not (isinstance(content, dict) and content.get("ok") is False)
        shown = content.get("result" if ok else "error") if isinstance(content, dict) else content
        return [
            update_tool_call(
                ids[part.tool_call_id],
                status="completed" if ok else "failed",
                content=[tool_content(text_block(_cut(shown)))],
                raw_output=content,
            )
        ]
    if isinstance(part, RetryPromptPart) and part.tool_call_id in ids:
        return [
            update_tool_call(
                ids[part.tool_call_id], status="failed", content=[tool_content(text_block(_cut(part.model_response())))]
            )
        ]
    return []


def _response_part(part: ModelResponsePart, ids: dict[str, str], workspace: Path) -> list[Update]:
    from pydantic_ai.messages import TextPart, ThinkingPart, ToolCallPart

    if isinstance(part, TextPart):
        return [update_agent_message_text(part.content)] if part.content else []
    if isinstance(part, ThinkingPart):
        return [update_agent_thought_text(part.content)] if part.content else []
    if isinstance(part, ToolCallPart):
        acp_id = f"replay-{len(ids) + 1}"
        ids[part.tool_call_id] = acp_id
        args = part.args_as_dict()
        diff = _edit(part.tool_name, args, workspace)
        return [
            start_tool_call(
                acp_id,
                tool_title(part.tool_name, args),
                kind=tool_kind(part.tool_name),
                status="pending",
                content=diff,
                raw_input=args,
            )
        ]
    return []


def _edit(tool: str, args: dict[str, Any], workspace: Path) -> list[FileEditToolCallContent] | None:
    """The diff an edit asked for: the replaced text and its replacement (edit_file), or the new file (write_file)."""
    path = args.get("path")
    if not isinstance(path, str):
        return None
    where = str(workspace / path)
    if tool == "edit_file":
        return [tool_diff_content(where, str(args.get("new_text", "")), str(args.get("old_text", "")))]
    if tool == "write_file":
        return [tool_diff_content(where, str(args.get("content", "")))]
    return None


def _cut(value: Any) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= _RESULT_CHARS else text[:_RESULT_CHARS] + "\n…"
