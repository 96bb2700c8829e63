"""The plain JSON text tool protocol (seed 004) as a pydantic-ai ``Model`` over any ``ChatBackend``.

Models without native tool calls (the embedded llama.cpp model, many local servers) see the tool
catalog in their system message and answer with one JSON object::

    {"tool_to_use": "read_file", "parameters": {"path": "calc.py"}}     a tool call
    {"final_answer": "Fixed the operator in add()."}                    the end of the task

Tool results come back as ``TOOL_RESULT for NAME: {json}`` user messages. Small models drift from
the format, so parsing is tolerant (code fences, prose around the object, ``tool``/``name``/
``arguments`` aliases), a backend that can constrain its output gets a JSON schema that admits only
real tools with valid arguments or a final answer, and a reply that is still unusable is answered
with one or two corrective re-prompts, counted in ``TextToolModel.corrections`` and in each
response's ``provider_details``.

The rendered prompt is a stable prefix (system message and tools first, history appended in order,
nothing volatile at the top) so llama.cpp can reuse its KV cache from one step to the next.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic_ai._instrumentation import get_instructions
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryFeedbackPart,
    RetryPromptPart,  # pyright: ignore[reportDeprecated]
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from chrysalis.errors import ModelError
from chrysalis.llm.backend import ChatBackend, ChatMessage
from chrysalis.llm.tool_schema import compact_params, inline_refs, tool_call_schema

__all__ = [
    "FinalAnswer",
    "Malformed",
    "TextToolModel",
    "ToolCall",
    "inline_refs",
    "parse_reply",
    "tool_call_schema",
]

_TOOL_KEYS = ("tool_to_use", "tool", "tool_name", "name")
_ARG_KEYS = ("parameters", "arguments", "args", "params", "input")
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.DOTALL)
_DECODER = json.JSONDecoder(strict=False)  # small models put raw newlines inside strings


@dataclass(frozen=True)
class ToolCall:
    """The reply asks to run ``name`` with ``args``."""

    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class FinalAnswer:
    """The reply ends the task with ``text``."""

    text: str


@dataclass(frozen=True)
class Malformed:
    """The reply tried to call a tool but cannot be used; ``reason`` is shown to the model."""

    reason: str


def parse_reply(text: str, tool_names: Sequence[str]) -> ToolCall | FinalAnswer | Malformed:
    """Read one reply: a tool call, a final answer, or an attempt at a call that went wrong.

    Plain text with no tool-call object in it is a final answer, as in seed 004.
    """
    for obj in _json_objects(text):
        if "final_answer" in obj:
            answer = obj["final_answer"]
            return FinalAnswer(answer if isinstance(answer, str) else json.dumps(answer))
        call = _as_call(obj)
        if call is None:
            continue
        name, args = call
        if name not in tool_names:
            known = ", ".join(tool_names) or "(none)"
            return Malformed(f"there is no tool named {name!r}; the tools are: {known}")
        if not isinstance(args, dict):
            return Malformed(f'"parameters" for {name!r} must be a JSON object, not {type(args).__name__}')
        return ToolCall(name, args)
    if "tool_to_use" in text or text.lstrip().startswith("{"):
        return Malformed("it looks like a tool call but is not one valid JSON object")
    return FinalAnswer(text.strip())


def _json_objects(text: str) -> list[dict[str, Any]]:
    """Every top-level JSON object in the text, fenced blocks first."""
    found: list[dict[str, Any]] = []
    for chunk in [*_FENCE.findall(text), text]:
        index = chunk.find("{")
        while index != -1:
            try:
                value, end = _DECODER.raw_decode(chunk, index)
            except json.JSONDecodeError:
                index = chunk.find("{", index + 1)
                continue
            if isinstance(value, dict):
                found.append(value)
            index = chunk.find("{", end)
    return found


def _as_call(obj: dict[str, Any]) -> tuple[str, Any] | None:
    """``(name, args)`` when the object is shaped like a tool call, under any of the common spellings."""
    if isinstance(obj.get("function"), dict):  # OpenAI style: {"function": {"name": ..., "arguments": ...}}
        obj = obj["function"]
    name_key = next((k for k in _TOOL_KEYS if isinstance(obj.get(k), str)), None)
    arg_key = next((k for k in _ARG_KEYS if k in obj), None)
    if name_key is None or (name_key == "name" and arg_key is None):
        return None
    args: Any = obj.get(arg_key, {}) if arg_key else {}
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return obj[name_key], args
    return obj[name_key], {} if args is None else args


def protocol_prompt(tools: Sequence[ToolDefinition], *, allow_final: bool) -> str:
    """The tool catalog and the reply rules, as they go into the system message."""
    lines = ["## Tools", ""]
    for tool in tools:
        summary = (tool.description or "").strip().splitlines()[0:1]
        lines.append(
            f"- {tool.name}({compact_params(tool.parameters_json_schema)})" + (f": {summary[0]}" if summary else "")
        )
    lines += [
        "",
        "## How to reply",
        "Reply with exactly one JSON object and nothing else. To use a tool:",
        '{"tool_to_use": "TOOL_NAME", "parameters": {...}}',
    ]
    if allow_final:
        lines += ["When the task is done, reply:", '{"final_answer": "what you did, or the answer"}']
    lines += [
        "After each tool call you get a message 'TOOL_RESULT for TOOL_NAME: {...}'.",
        "Use only the tools listed above, one call per reply.",
    ]
    return "\n".join(lines)


def render_call(name: str, args: Any) -> str:
    """A tool call in the exact form the protocol asks for, so the history teaches the format."""
    return json.dumps({"tool_to_use": name, "parameters": args}, ensure_ascii=False)


def render_history(messages: Sequence[ModelMessage]) -> tuple[list[str], list[ChatMessage]]:
    """Turn pydantic-ai messages into chat messages; leading system parts are returned apart."""
    system: list[str] = []
    chat: list[ChatMessage] = []
    for message in messages:
        if isinstance(message, ModelRequest):
            texts: list[str] = []
            for part in message.parts:
                if isinstance(part, SystemPromptPart) and not chat and not texts:
                    system.append(part.content)
                else:
                    texts.extend(_request_part_text(part))
            if texts:
                chat.append(ChatMessage("user", "\n\n".join(texts)))
        else:
            reply = _response_text(message)
            if reply:
                chat.append(ChatMessage("assistant", reply))
    return system, chat


def _request_part_text(part: Any) -> list[str]:
    if isinstance(part, UserPromptPart):
        if isinstance(part.content, str):
            return [part.content]
        return [c if isinstance(c, str) else "[attachment left out]" for c in part.content]
    if isinstance(part, ToolReturnPart):
        return [f"TOOL_RESULT for {part.tool_name}: {part.model_response_str()}"]
    if isinstance(part, RetryPromptPart):  # pyright: ignore[reportDeprecated]
        prefix = f"TOOL_RESULT for {part.tool_name}: " if part.tool_name else ""
        return [prefix + part.model_response()]
    if isinstance(part, RetryFeedbackPart):
        return [part.model_response()]
    if isinstance(part, SystemPromptPart):
        return [f"[system] {part.content}"]
    return []


def _response_text(message: ModelResponse) -> str:
    lines: list[str] = []
    for part in message.parts:
        if isinstance(part, ToolCallPart):
            lines.append(render_call(part.tool_name, part.args_as_dict()))
        elif isinstance(part, TextPart) and part.content:
            lines.append(part.content)
    return "\n".join(lines)


def trim_history(chat: list[ChatMessage], budget: int, *, block: int = 8) -> list[ChatMessage]:
    """Keep the first user message and the newest messages that fit in ``budget`` characters.

    Older messages are dropped in blocks of ``block`` (an even number, so the kept tail still starts
    with an assistant turn), which keeps the cut point, and with it the KV-cache prefix, unchanged
    for several steps instead of moving on every step. A note saying how many were left out is
    appended to the first user message.
    """
    if len(chat) <= 2 or sum(len(m.content) for m in chat) <= budget:
        return chat
    first, rest = chat[0], chat[1:]
    limit = (len(rest) - 1) // 2 * 2  # keep at least the newest message, and an even cut
    dropped = 0
    while dropped < limit and len(first.content) + sum(len(m.content) for m in rest[dropped:]) > budget:
        dropped = min(dropped + block, limit)
    if dropped == 0:
        return chat
    note = f"\n\n[{dropped} earlier messages were left out to fit the context.]"
    return [ChatMessage(first.role, first.content + note), *rest[dropped:]]


class TextToolModel(Model):
    """A pydantic-ai model that speaks the text tool protocol to a raw chat backend."""

    def __init__(
        self,
        backend: ChatBackend,
        *,
        on_text: Callable[[str], None] | None = None,
        history_chars: int = 20_000,
        max_corrections: int = 2,
        max_tokens: int = 1024,
        system: str = "chrysalis-text",
        settings: ModelSettings | None = None,
    ) -> None:
        """Wrap ``backend``.

        Args:
            backend: Where the text comes from (llama.cpp in process, or an HTTP server).
            on_text: Receives streamed text as the backend produces it.
            history_chars: The history budget; older messages beyond it are dropped (small models
                have small context windows and read slowly).
            max_corrections: Re-prompts allowed per request when a reply cannot be used.
            max_tokens: Most tokens per reply, unless the request's settings say otherwise.
            system: The provider name reported to pydantic-ai and traces.
            settings: Default pydantic-ai model settings.
        """
        super().__init__(settings=settings)
        self.backend = backend
        self.on_text = on_text
        self.history_chars = history_chars
        self.max_corrections = max_corrections
        self.max_tokens = max_tokens
        self.corrections = 0
        """Corrective re-prompts sent so far, over all requests of this model."""
        self._system = system

    @property
    def model_name(self) -> str:
        """The backend's model name."""
        return self.backend.name

    @property
    def system(self) -> str:
        """The provider name, for traces."""
        return self._system

    def build_prompt(
        self, messages: Sequence[ModelMessage], params: ModelRequestParameters
    ) -> tuple[list[ChatMessage], list[ToolDefinition]]:
        """The chat messages this request sends and the tools it offers (exposed for tests and tracing)."""
        tools = [*params.function_tools, *params.output_tools]
        system_parts, chat = render_history(messages)
        instructions = get_instructions(messages, params)
        head = [p for p in (instructions, *system_parts) if p]
        if tools:
            head.append(protocol_prompt(tools, allow_final=params.allow_text_output))
        prompt = [ChatMessage("system", "\n\n".join(head))] if head else []
        return prompt + trim_history(chat, self.history_chars), tools

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Render, ask the backend, parse; re-prompt up to ``max_corrections`` times on unusable replies."""
        model_settings, params = self.prepare_request(model_settings, model_request_parameters)
        settings: dict[str, Any] = dict(model_settings or {})
        prompt, tools = self.build_prompt(messages, params)
        names = [t.name for t in tools]
        schema = tool_call_schema(tools, allow_final=params.allow_text_output) if tools else None
        use_schema = schema if self.backend.supports_json_schema else None
        usage = RequestUsage()
        errors: list[str] = []
        while True:
            completion = await self.backend.complete(
                prompt,
                json_schema=use_schema,
                max_tokens=int(settings.get("max_tokens", self.max_tokens)),
                temperature=float(settings.get("temperature", 0.0)),
                on_text=self.on_text,
            )
            usage = usage + RequestUsage(input_tokens=completion.input_tokens, output_tokens=completion.output_tokens)
            parsed = parse_reply(completion.text, names) if tools else FinalAnswer(completion.text.strip())
            if not isinstance(parsed, Malformed):
                return self._response(parsed, usage, errors, completion.text)
            errors.append(parsed.reason)
            if len(errors) > self.max_corrections:
                raise ModelError(
                    f"The model {self.model_name!r} kept replying with unusable tool calls "
                    f"({len(errors)} tries; last: {parsed.reason}). Try a larger model."
                )
            self.corrections += 1
            prompt = [*prompt, ChatMessage("assistant", completion.text), _correction(parsed.reason, params)]

    def _response(
        self, parsed: ToolCall | FinalAnswer, usage: RequestUsage, errors: list[str], raw: str
    ) -> ModelResponse:
        part: ToolCallPart | TextPart = (
            ToolCallPart(parsed.name, parsed.args) if isinstance(parsed, ToolCall) else TextPart(parsed.text)
        )
        return ModelResponse(
            parts=[part],
            usage=usage,
            model_name=self.model_name,
            provider_name=self._system,
            provider_details={"protocol": "text", "corrections": len(errors), "errors": errors, "raw": raw},
        )


def _correction(reason: str, params: ModelRequestParameters) -> ChatMessage:
    final = ' or {"final_answer": "..."}' if params.allow_text_output else ""
    return ChatMessage(
        "user",
        f"Your last reply was not valid: {reason}. Reply with exactly one JSON object: "
        f'{{"tool_to_use": "TOOL_NAME", "parameters": {{...}}}}{final}.',
    )
