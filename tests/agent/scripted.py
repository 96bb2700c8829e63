"""A scripted pydantic-ai FunctionModel: each step is a tool call or a final answer, in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel


@dataclass
class Script:
    steps: list[tuple[str, Any]]
    seen: list[list[ModelMessage]] = field(default_factory=list)

    def model(self) -> FunctionModel:
        def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            self.seen.append(list(messages))
            index = min(len(self.seen) - 1, len(self.steps) - 1)
            kind, payload = self.steps[index]
            if kind == "final":
                return ModelResponse(parts=[TextPart(payload)])
            name, args = payload
            return ModelResponse(parts=[ToolCallPart(name, args)])

        return FunctionModel(respond)

    def tool_returns(self) -> list[Any]:
        """The tool results the model saw, in order."""
        out: list[Any] = []
        for message in self.seen[-1]:
            for part in message.parts:
                if part.part_kind in ("tool-return", "retry-prompt", "retry-feedback"):
                    out.append(getattr(part, "content", None))
        return out


def tool(name: str, **args: Any) -> tuple[str, Any]:
    return ("tool", (name, args))


def final(text: str) -> tuple[str, Any]:
    return ("final", text)
