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

import asyncio
import json
import re
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from pydantic_ai._instrumentation import get_instructions
from pydantic_ai._run_context import RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponseStreamEvent,
    RetryFeedbackPart,
    RetryPromptPart,  # pyright: ignore[reportDeprecated]
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestParameters, StreamedResponse
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import ToolDefinition
from pydantic_ai.usage import RequestUsage

from chrysalis.errors import MalformedReplyError
from chrysalis.llm.backend import ChatBackend, ChatMessage
from chrysalis.llm.text_format import (
    AnswerStream,
    FinalAnswer,
    Malformed,
    ToolCall,
    parse_reply,
    protocol_prompt,
    render_call,
    tool_call_schema,
)

__all__ = ["TextToolModel", "render_history", "trim_history"]


def render_history(
    messages: Sequence[ModelMessage], *, json_answers: bool = True
) -> tuple[list[str], list[ChatMessage]]:
    """Turn pydantic-ai messages into chat messages; leading system parts are returned apart.

    With ``json_answers`` (tools are offered) earlier final answers read ``{"final_answer": ...}``,
    so every assistant turn the model sees follows the protocol it is asked to follow.
    """
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
            reply = _response_text(message, json_answers)
            if reply:
                chat.append(ChatMessage("assistant", reply))
    return system, chat


def _request_part_text(part: Any) -> list[str]:
    if isinstance(part, UserPromptPart):
        if isinstance(part.content, str):
            return [part.content]
        return [c if isinstance(c, str) else "[attachment left out]" for c in part.content]
    if isinstance(part, ToolReturnPart):
        return [render_tool_result(part.tool_name, part.content, part.model_response_str)]
    if isinstance(part, RetryPromptPart):  # pyright: ignore[reportDeprecated]
        prefix = f"TOOL_RESULT for {part.tool_name}: " if part.tool_name else ""
        return [prefix + part.model_response()]
    if isinstance(part, RetryFeedbackPart):
        return [part.model_response()]
    if isinstance(part, SystemPromptPart):
        return [f"[system] {part.content}"]
    return []


def render_tool_result(tool_name: str, content: Any, as_json: Callable[[], str]) -> str:
    r"""A tool result as the model reads it: text results verbatim, anything else as JSON, framed as data.

    Small models read a file's text far better than the same text JSON-escaped (``\n``, ``\"``),
    and copying ``old_text`` for an edit depends on it. The output goes between ``<tool_output>``
    tags, and the prompt says that what is inside is data: a file or web page that says "ignore
    your instructions" is still the tool's output, not the user speaking (what such text may make
    the model try is then for the policy to refuse). A closing tag inside the output is defused,
    so the output cannot end its own frame.
    """
    if isinstance(content, dict) and set(content) <= {"ok", "result", "error"}:
        body = content.get("result") if content.get("ok") else content.get("error")
        if isinstance(body, str):
            status = "ok" if content.get("ok") else "error"
            return f"TOOL_RESULT for {tool_name} ({status}):\n{frame_output(body)}"
    return f"TOOL_RESULT for {tool_name}:\n{frame_output(as_json())}"


OUTPUT_OPEN, OUTPUT_CLOSE = "<tool_output>", "</tool_output>"
_CLOSING_TAG = re.compile(r"</\s*tool_output\s*>", re.IGNORECASE)
_DEFUSED_CLOSE = r"<\\/tool_output>"  # a replacement template: the text <\/tool_output>


def frame_output(text: str) -> str:
    r"""``text`` between the output tags, with any closing tag inside it defused (``<\/tool_output>``)."""
    defused = _CLOSING_TAG.sub(_DEFUSED_CLOSE, text)
    return f"{OUTPUT_OPEN}\n{defused}\n{OUTPUT_CLOSE}"


def _response_text(message: ModelResponse, json_answers: bool) -> str:
    lines: list[str] = []
    for part in message.parts:
        if isinstance(part, ToolCallPart):
            lines.append(render_call(part.tool_name, part.args_as_dict()))
        elif isinstance(part, TextPart) and part.content:
            answer = json.dumps({"final_answer": part.content}, ensure_ascii=False) if json_answers else part.content
            lines.append(answer)
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
        reasoning: bool = False,
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
            reasoning: Ask for a short ``thought`` before each call (helps small models choose).
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
        self.reasoning = reasoning

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
        system_parts, chat = render_history(messages, json_answers=bool(tools))
        instructions = get_instructions(messages, params)
        head = [p for p in (instructions, *system_parts) if p]
        if tools:
            head.append(protocol_prompt(tools, allow_final=params.allow_text_output, reasoning=self.reasoning))
        prompt = [ChatMessage("system", "\n\n".join(head))] if head else []
        return prompt + trim_history(chat, self.history_chars), tools

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        """Stream the reply: a final answer's text live, as the backend writes it.

        A tool call can only be parsed once the reply is complete, so it arrives as one part at the
        end; the protocol's JSON around a final answer is never shown (``AnswerStream``).
        """
        pieces: asyncio.Queue[str] = asyncio.Queue()
        reply = asyncio.create_task(
            self._request(messages, model_settings, model_request_parameters, on_answer=pieces.put_nowait)
        )
        try:
            yield _LiveResponse(
                model_request_parameters=model_request_parameters,
                pieces=pieces,
                reply=reply,
                reply_model_name=self.model_name,
                reply_provider_name=self._system,
            )
        finally:
            if not reply.done():
                reply.cancel()
                with suppress(asyncio.CancelledError):
                    await reply

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """Render, ask the backend, parse; re-prompt up to ``max_corrections`` times on unusable replies."""
        return await self._request(messages, model_settings, model_request_parameters, on_answer=None)

    async def _request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        on_answer: Callable[[str], None] | None,
    ) -> ModelResponse:
        model_settings, params = self.prepare_request(model_settings, model_request_parameters)
        settings: dict[str, Any] = dict(model_settings or {})
        prompt, tools = self.build_prompt(messages, params)
        names = [t.name for t in tools]
        # A final answer the agent just rejected ("run the tests first") must be followed by a tool call;
        # small models otherwise repeat the same answer. The system prompt stays the same (KV cache reuse).
        allow_final = params.allow_text_output and not _final_answer_rejected(messages)
        schema = tool_call_schema(tools, allow_final=allow_final, reasoning=self.reasoning) if tools else None
        use_schema = schema if self.backend.supports_json_schema else None
        usage, errors = RequestUsage(), list[str]()
        max_tokens = int(settings.get("max_tokens", self.max_tokens))
        while True:
            completion = await self.backend.complete(
                prompt,
                json_schema=use_schema,
                max_tokens=max_tokens,
                temperature=float(settings.get("temperature", 0.0)),
                seed=settings.get("seed"),
                on_text=self._text_sink(on_answer, answer_only=bool(tools)),
            )
            usage = usage + RequestUsage(input_tokens=completion.input_tokens, output_tokens=completion.output_tokens)
            parsed = parse_reply(completion.text, names) if tools else FinalAnswer(completion.text.strip())
            if not isinstance(parsed, Malformed):
                return self._response(parsed, usage, errors, completion.text)
            errors.append(parsed.reason)
            if use_schema is not None and completion.output_tokens >= max_tokens:
                # Constrained decoding only yields broken JSON when the reply is cut off: the model is
                # stuck inside a string. The same prompt at the same temperature would do it again.
                raise MalformedReplyError(
                    f"The model {self.model_name!r} ran out of tokens ({max_tokens}) inside a tool call "
                    f"(it kept writing one string). Try a larger model or a higher max_tokens.",
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                )
            if len(errors) > self.max_corrections:
                raise MalformedReplyError(
                    f"The model {self.model_name!r} kept replying with unusable tool calls "
                    f"({len(errors)} tries; last: {parsed.reason}). Try a larger model.",
                    input_tokens=usage.input_tokens,
                    output_tokens=usage.output_tokens,
                )
            self.corrections += 1
            prompt = [*prompt, ChatMessage("assistant", completion.text), _correction(parsed.reason, params)]

    def _text_sink(self, on_answer: Callable[[str], None] | None, *, answer_only: bool) -> Callable[[str], None] | None:
        """Where one reply's streamed pieces go: raw to ``on_text``, the answer's text to ``on_answer``."""
        on_text = self.on_text
        if on_answer is None:
            return on_text
        answer = AnswerStream() if answer_only else None

        def sink(piece: str) -> None:
            if on_text is not None:
                on_text(piece)
            text = answer.feed(piece) if answer is not None else piece
            if text:
                on_answer(text)

        return sink

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


_RETRY_FEEDBACK = "<pyai:retry_feedback>"
"""How pydantic-ai fences an output validator's ``ModelRetry`` once it has prepared the messages."""


def _final_answer_rejected(messages: Sequence[ModelMessage]) -> bool:
    """True when the newest message sends a final answer back (an output validator's retry)."""
    last = messages[-1] if messages else None
    if not isinstance(last, ModelRequest):
        return False
    for part in last.parts:
        if isinstance(part, RetryFeedbackPart):
            return True
        if isinstance(part, RetryPromptPart) and part.tool_name is None:  # pyright: ignore[reportDeprecated]
            return True
        if isinstance(part, UserPromptPart) and isinstance(part.content, str) and _RETRY_FEEDBACK in part.content:
            return True
    return False


def _correction(reason: str, params: ModelRequestParameters) -> ChatMessage:
    final = ' or {"final_answer": "..."}' if params.allow_text_output else ""
    return ChatMessage(
        "user",
        f"Your last reply was not valid: {reason}. Reply with exactly one JSON object: "
        f'{{"tool_to_use": "TOOL_NAME", "parameters": {{...}}}}{final}.',
    )


@dataclass
class _LiveResponse(StreamedResponse):
    """A reply streamed as it is written: answer text as deltas, then the parsed parts."""

    pieces: asyncio.Queue[str] = field(kw_only=True)
    reply: asyncio.Task[ModelResponse] = field(kw_only=True)
    reply_model_name: str = field(kw_only=True)
    reply_provider_name: str = field(kw_only=True)
    _timestamp: datetime = field(default_factory=lambda: datetime.now(UTC), init=False)

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        streamed: list[str] = []
        while True:
            next_piece = asyncio.ensure_future(self.pieces.get())
            try:
                done, _ = await asyncio.wait({next_piece, self.reply}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not next_piece.done():  # the reply finished first, or the run was cancelled
                    next_piece.cancel()
            if next_piece not in done:
                break
            for event in self._answer_delta(next_piece.result(), streamed):
                yield event
        while not self.pieces.empty():  # pieces queued just before the reply finished
            for event in self._answer_delta(self.pieces.get_nowait(), streamed):
                yield event
        response = self.reply.result()
        self._usage = response.usage
        self.provider_details = response.provider_details
        for part in response.parts:
            if isinstance(part, ToolCallPart):
                if streamed:  # a re-prompted reply began like an answer: keep no stray text
                    yield self._parts_manager.handle_part(vendor_part_id=_ANSWER, part=TextPart(""))
                yield self._parts_manager.handle_tool_call_part(
                    vendor_part_id=_CALL, tool_name=part.tool_name, args=part.args_as_dict()
                )
            elif isinstance(part, TextPart) and part.content != "".join(streamed):
                yield self._parts_manager.handle_part(vendor_part_id=_ANSWER, part=TextPart(part.content))

    def _answer_delta(self, piece: str, streamed: list[str]) -> Iterable[ModelResponseStreamEvent]:
        streamed.append(piece)
        return self._parts_manager.handle_text_delta(vendor_part_id=_ANSWER, content=piece)

    async def close_stream(self) -> None:
        """Stop generating: the backend notices the cancelled task and frees the model."""
        self.reply.cancel()

    @property
    def model_name(self) -> str:
        return self.reply_model_name

    @property
    def provider_name(self) -> str | None:
        return self.reply_provider_name

    @property
    def provider_url(self) -> str | None:
        return None

    @property
    def timestamp(self) -> datetime:
        return self._timestamp


_ANSWER = "answer"
_CALL = "call"
