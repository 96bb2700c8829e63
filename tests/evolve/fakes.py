"""Fake models and clocks for the evolve tests: pydantic-ai ``FunctionModel``s that read the prompt."""

from __future__ import annotations

import random
import re
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

TRAIN = [{"question": f"{a} + {2 * a}", "answer": 3 * a} for a in range(1, 17)]
"""Sixteen sums; compile splits them into eight for demos and eight for scoring."""

CAREFUL = "Add the two numbers carefully."
"""What the fake meta model proposes; the fake answers better when its instructions say 'carefully'."""


def system_prompt(messages: list[ModelMessage]) -> str:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return next(p.content for p in first.parts if isinstance(p, SystemPromptPart))


def user_prompt(messages: list[ModelMessage]) -> str:
    first = messages[0]
    assert isinstance(first, ModelRequest)
    return next(str(p.content) for p in first.parts if isinstance(p, UserPromptPart))


def reply(args: dict[str, Any], *, input_tokens: int = 10, output_tokens: int = 5) -> ModelResponse:
    """A call of the output tool ``final_result`` with ``args``."""
    usage = RequestUsage(input_tokens=input_tokens, output_tokens=output_tokens)
    return ModelResponse(parts=[ToolCallPart("final_result", args)], usage=usage)


def output_properties(info: AgentInfo) -> list[str]:
    """The fields of the output tool's schema, in order."""
    return list(info.output_tools[0].parameters_json_schema["properties"])


class Adder:
    """The model behind the compile tests: sums ``a + b``, better with help, best (and dearest) when reasoning.

    - plain predict: one too many whenever ``a`` is odd (score 0.5 on ``TRAIN``);
    - predict with demos in the prompt, or "carefully" in the instructions: wrong only when ``a % 4 == 1``;
    - chain of thought: always right, with 100 output tokens of reasoning, so the best variant is the expensive one;
    - asked for instructions (``ProposeInstructions``): proposes ``CAREFUL``.

    ``broken_reasoning=True`` makes every chain-of-thought answer "many", which never validates as an int.
    """

    def __init__(self, *, broken_reasoning: bool = False, name: str = "adder") -> None:
        self.broken_reasoning = broken_reasoning
        self.calls = 0
        self.model = FunctionModel(self, model_name=name)

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.calls += 1
        system = system_prompt(messages)
        if "You improve the instructions" in system:
            return reply({"new_instructions": CAREFUL})
        a, b = (int(n) for n in re.findall(r"\d+", user_prompt(messages)))
        tokens = len(system) // 4
        if "reasoning" in output_properties(info):
            answer: Any = "many" if self.broken_reasoning else a + b
            return reply({"reasoning": f"{a} plus {b}", "answer": answer}, input_tokens=tokens, output_tokens=105)
        helped = "Example 1" in system or "carefully" in system
        wrong = a % 4 == 1 if helped else a % 2 == 1
        return reply({"answer": a + b + int(wrong)}, input_tokens=tokens)


class FakeClock:
    """Stands in for ``time`` in ``chrysalis.evolve.predict``: every reading advances by a step.

    Steps are multiples of 1/1024 s, so differences are exact and latencies never depend on float noise.
    With ``jitter``, each step is a random 1 to 8 ticks (from ``random.Random(jitter)``), as a busy machine would give.
    """

    TICK = 1 / 1024

    def __init__(self, jitter: int | None = None) -> None:
        self.now = 0.0
        self._rng = random.Random(jitter) if jitter is not None else None

    def monotonic(self) -> float:
        self.now += self.TICK * (self._rng.randint(1, 8) if self._rng else 1)
        return self.now
