"""Modules: a signature plus how to call the model on it (strategy, instructions, demos, params).

A ``Module`` is an immutable value (seed 000's ``Module(id sig strategy instructions demos params)``):
``replace`` returns a new one, so compile can keep parents and children side by side, and ``id`` is
a hash of the content, so the same variant always has the same id (the compile cache and the
archive rely on that). ``Predict(sig)`` and ``ChainOfThought(sig)`` are the two strategies.

Calling a module runs it: ``qa(question="...")`` returns a ``Prediction`` whose attributes are the
output fields, plus ``stats`` (latency, tokens, cost) that compile turns into phenotypes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from chrysalis.evolve.prediction import STRATEGIES, CallStats, Prediction, Strategy
from chrysalis.evolve.signature import Signature, as_signature

if TYPE_CHECKING:
    from pydantic_ai.models import Model

__all__ = ["STRATEGIES", "CallStats", "ChainOfThought", "Module", "Predict", "Prediction", "Strategy"]


class Module:
    """A signature with a strategy, instructions, few-shot demos and model parameters."""

    def __init__(
        self,
        signature: str | type[Signature],
        *,
        strategy: Strategy = "predict",
        instructions: str | None = None,
        demos: Sequence[Mapping[str, Any]] = (),
        params: Mapping[str, Any] | None = None,
        model: str | Model | None = None,
    ) -> None:
        """Make a module.

        Args:
            signature: A ``Signature`` subclass or shorthand text (``"question -> answer: int"``).
            strategy: ``predict`` (answer directly) or ``chain-of-thought`` (reason first).
            instructions: Overrides the signature's instructions (its docstring).
            demos: Few-shot examples, each a dict with every input and output field.
            params: Model parameters: ``temperature``, ``max_tokens``.
            model: ``provider:name`` or a pydantic-ai ``Model``; the settings' ``model`` otherwise.

        Raises:
            ValueError: unknown strategy, or a demo lacks a field of the signature.
        """
        sig = as_signature(signature)
        if not sig.fields:
            raise ValueError(f"{sig.__name__} declares no fields; give it InputField and OutputField attributes")
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy {strategy!r} is not one of {', '.join(STRATEGIES)}")
        names = [f.name for f in sig.fields]
        for i, demo in enumerate(demos):
            missing = [n for n in names if n not in demo]
            if missing:
                raise ValueError(f"demo {i} of {sig.__name__} lacks the field(s) {missing}; each demo needs {names}")
        self.signature = sig
        self.strategy: Strategy = strategy
        self.instructions = sig.instructions if instructions is None else instructions
        self.demos: tuple[dict[str, Any], ...] = tuple({n: demo[n] for n in names} for demo in demos)
        self.params: dict[str, Any] = dict(params or {})
        self.model = model

    @property
    def id(self) -> str:
        """A short hash of everything that changes the prompt: equal content, equal id."""
        return hashlib.sha256(json.dumps(self.to_spec(), sort_keys=True, default=str).encode()).hexdigest()[:12]

    def replace(self, **changes: Any) -> Module:
        """A copy with some of ``strategy``, ``instructions``, ``demos``, ``params``, ``model`` changed."""
        values: dict[str, Any] = {
            "strategy": self.strategy,
            "instructions": self.instructions,
            "demos": self.demos,
            "params": self.params,
            "model": self.model,
        }
        unknown = set(changes) - set(values)
        if unknown:
            raise TypeError(f"Module.replace() got unknown field(s) {sorted(unknown)}; use {sorted(values)}")
        values.update(changes)
        return Module(self.signature, **values)

    def to_spec(self) -> dict[str, Any]:
        """JSON-able content (the model object is not part of it; a model name is)."""
        return {
            "signature": self.signature.to_spec(),
            "strategy": self.strategy,
            "instructions": self.instructions,
            "demos": [dict(d) for d in self.demos],
            "params": dict(self.params),
        }

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any], signature: type[Signature] | None = None) -> Module:
        """Rebuild a module saved with ``to_spec``; ``signature`` (same fields) keeps the user's class."""
        sig = signature or Signature.from_spec(spec["signature"])
        return cls(
            sig,
            strategy=spec["strategy"],
            instructions=spec["instructions"],
            demos=spec["demos"],
            params=spec["params"],
        )

    async def acall(self, *, model: str | Model | None = None, **inputs: Any) -> Prediction:
        """Run the module on ``inputs`` (the signature's input fields)."""
        from chrysalis.evolve.predict import run_module

        return await run_module(self, inputs, model=model)

    def __call__(self, *, model: str | Model | None = None, **inputs: Any) -> Prediction:
        """``acall`` for code that is not async."""
        return asyncio.run(self.acall(model=model, **inputs))

    def __repr__(self) -> str:
        return (
            f"Module({self.signature.__name__}: {self.signature.shorthand()!r}, strategy={self.strategy!r}, "
            f"demos={len(self.demos)}, id={self.id!r})"
        )


class Predict(Module):
    """Ask the model for the output fields directly."""

    def __init__(self, signature: str | type[Signature], **options: Any) -> None:
        """See ``Module``; the strategy is ``predict``."""
        super().__init__(signature, strategy="predict", **options)


class ChainOfThought(Module):
    """Ask the model to reason first; the prediction's ``reasoning`` holds what it wrote."""

    def __init__(self, signature: str | type[Signature], **options: Any) -> None:
        """See ``Module``; the strategy is ``chain-of-thought``."""
        super().__init__(signature, strategy="chain-of-thought", **options)
