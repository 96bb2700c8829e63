"""The reflective meta-optimizer: read what a variant got wrong, propose better instructions.

In the spirit of GEPA: the proposer sees the task, the current instructions and a few failed
examples with what the model answered (or the validation error it hit), and writes new
instructions. It is itself a module (``Predict(ProposeInstructions)``), run on the meta model,
so it is typed, validated and priced like any other call. ``generate`` asks for fresh phrasings
without failures, for the seed population.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chrysalis.evolve.module import CallStats, Module, Predict
from chrysalis.evolve.signature import InputField, OutputField, Signature

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["DEFAULT_MUTATIONS", "ProposeInstructions", "describe_failures", "propose"]

DEFAULT_MUTATIONS: tuple[str, ...] = ("Be concise.", "Think step-by-step.", "Output STRICT JSON.")
"""Seed 000's instruction mutations, appended to the base instructions."""

_MAX_INSTRUCTIONS = 1500


class ProposeInstructions(Signature):
    """You improve the instructions given to a language model for a task.

    Read the task, the current instructions and the examples the model got wrong, then write new
    instructions that would avoid those mistakes on new inputs. Keep them general and short (at
    most five sentences); do not copy the examples' answers into them.
    """

    task: str = InputField(desc="the task's input and output fields")
    current_instructions: str = InputField()
    failures: str = InputField(desc="inputs, the expected outputs and what the model gave")
    new_instructions: str = OutputField(desc="the improved instructions")


def describe_failures(
    failures: Sequence[Mapping[str, Any]], input_names: Sequence[str], output_names: Sequence[str]
) -> str:
    """Render failed examples for the proposer: inputs, expected, got (or the error)."""
    blocks: list[str] = []
    for i, failure in enumerate(failures, 1):
        example, got = failure["example"], failure.get("output")
        lines = [f"Example {i}:"]
        lines += [f"  {name}: {_short(example[name])}" for name in input_names]
        lines += [f"  expected {name}: {_short(example[name])}" for name in output_names]
        if failure.get("error"):
            lines.append(f"  error: {_short(failure['error'])}")
        else:
            lines += [f"  model gave {name}: {_short((got or {}).get(name))}" for name in output_names]
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 3] + "..."


async def propose(module: Module, failures: str, *, model: str | Model | None) -> tuple[str | None, CallStats]:
    """New instructions for ``module`` from its ``failures`` (``None`` when the proposal is unusable)."""
    proposer = Predict(ProposeInstructions, params={"max_tokens": 400})
    prediction = await proposer.acall(
        model=model,
        task=module.signature.shorthand(),
        current_instructions=module.instructions,
        failures=failures or "(none recorded: write clearer, more specific instructions)",
    )
    text = str(prediction.new_instructions).strip()
    usable = bool(text) and len(text) <= _MAX_INSTRUCTIONS and text != module.instructions.strip()
    return (text if usable else None), prediction.stats
