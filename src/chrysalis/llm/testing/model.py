"""``ScriptedModel``: a pydantic-ai model that plays a script of replies and records every request.

It fakes the model behind an agent session or a module call, in process (no server)::

    script = ScriptedModel([tool("read_file", path="calc.py"), final("It adds.")])
    session = AgentSession(settings, model=script.model())
    asyncio.run(session.run("what does calc.py do?"))
    script.seen[0]          # the messages of the first request
    script.instructions[0]  # its instructions
    script.offered[0]       # the names of the tools it offered

A step is one reply: ``tool`` calls a tool, ``final`` answers in text, ``output_call`` fills the
structured output (the output tool ``final_result``, as ``Predict`` asks for). The steps play in
order and the last one repeats, so ``[..., final("done")]`` answers "done" to every later request.
Each play builds a fresh ``ModelResponse``: pydantic-ai fills in the name and usage of the one it
gets, and a repeated step must not carry those of an earlier request.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ModelResponsePart, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

__all__ = ["ScriptedModel", "Step", "final", "output_call", "tool"]

_OUTPUT_TOOL = "final_result"
"""The output tool pydantic-ai offers for a structured output (and ``chrysalis.evolve.predict`` too)."""


@dataclass(frozen=True)
class Step:
    """One scripted reply: text, a tool call, both or neither; ``tool``, ``final`` and ``output_call`` build them."""

    text: str | None = None
    call: tuple[str, dict[str, Any]] | None = None
    """``(tool name, arguments)``."""
    usage: tuple[int, int] | None = None
    """``(input tokens, output tokens)``; None lets pydantic-ai estimate them, as for any ``FunctionModel``."""

    def response(self) -> ModelResponse:
        """A fresh ``ModelResponse`` for this step (an empty one when it has neither text nor call)."""
        parts: list[ModelResponsePart] = []
        if self.text is not None:
            parts.append(TextPart(self.text))
        if self.call is not None:
            name, args = self.call
            parts.append(ToolCallPart(name, args))
        if self.usage is None:
            return ModelResponse(parts=parts)
        return ModelResponse(parts=parts, usage=RequestUsage(input_tokens=self.usage[0], output_tokens=self.usage[1]))


def tool(name: str, /, **args: Any) -> Step:
    """A call of the tool ``name`` with ``args``."""
    return Step(call=(name, args))


def final(text: str) -> Step:
    """A text answer, which ends an agent run."""
    return Step(text=text)


def output_call(args: dict[str, Any], *, input_tokens: int = 10, output_tokens: int = 5) -> Step:
    """A call of the output tool ``final_result`` with ``args``, costing the given tokens."""
    return Step(call=(_OUTPUT_TOOL, args), usage=(input_tokens, output_tokens))


@dataclass
class ScriptedModel:
    """Plays ``steps`` in order (the last one repeats) as a pydantic-ai ``FunctionModel``; records every request."""

    steps: Sequence[Step]
    name: str | None = None
    """The model's name; by default pydantic-ai's for a ``FunctionModel`` (``function:respond:``)."""
    seen: list[list[ModelMessage]] = field(default_factory=list[list[ModelMessage]])
    """The messages of every request, in order."""
    infos: list[AgentInfo] = field(default_factory=list[AgentInfo])
    """What each request offered: function and output tools, instructions, settings."""
    redraws: int = 0
    """Voters' redraws of a critical step (answered with the step just played)."""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)
    """pydantic-ai calls ``respond`` in worker threads: requests made at once still play one step each, in order."""

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError("ScriptedModel needs at least one step, e.g. [final('done')]")

    def model(self) -> FunctionModel:
        """The pydantic-ai model to hand to a session, an agent or a module call."""
        return FunctionModel(self.respond, model_name=self.name)

    def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        """Record the request and play the next step.

        A voter's redraw of the request just answered (``VotingModel`` sets a ``seed`` of 1 or more)
        gets that step again, as a deterministic model would, and is counted in ``redraws``, not ``seen``.
        """
        with self._lock:
            if (info.model_settings or {}).get("seed") and self.seen:
                self.redraws += 1
                return self.steps[min(len(self.seen), len(self.steps)) - 1].response()
            self.seen.append(list(messages))
            self.infos.append(info)
            step = self.steps[min(len(self.seen), len(self.steps)) - 1]
        return step.response()

    @property
    def instructions(self) -> list[str]:
        """The instructions of each request ("" where it had none)."""
        return [_last_request(messages).instructions or "" for messages in self.seen]

    @property
    def offered(self) -> list[list[str]]:
        """The names of the function tools each request offered."""
        return [[tool.name for tool in info.function_tools] for info in self.infos]

    def tool_returns(self) -> list[Any]:
        """The tool results (and retry prompts) in the last request's history, in order."""
        out: list[Any] = []
        for message in self.seen[-1]:
            for part in message.parts:
                if part.part_kind in ("tool-return", "retry-prompt", "retry-feedback"):
                    out.append(getattr(part, "content", None))
        return out


def _last_request(messages: list[ModelMessage]) -> ModelRequest:
    last = messages[-1]
    if not isinstance(last, ModelRequest):
        raise AssertionError(f"a request ends with a ModelRequest, not {type(last).__name__}")
    return last
