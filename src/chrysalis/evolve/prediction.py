"""What one module call involves, below ``module.py`` and ``predict.py``: the strategies, what the runner reads.

``Module`` (``module.py``) runs itself through ``predict.run_module``, which builds the ``Prediction``
and its ``CallStats``. The values they share live here, and ``predict.py`` reads a module through the
``ModuleLike`` protocol, so neither of the two imports the other both ways. ``module.py`` re-exports
``Strategy``, ``STRATEGIES``, ``CallStats`` and ``Prediction``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from chrysalis.evolve.signature import Signature

__all__ = ["STRATEGIES", "CallStats", "ModuleLike", "Prediction", "Strategy"]

Strategy = Literal["predict", "chain-of-thought"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)


@dataclass(frozen=True)
class CallStats:
    """What one module call cost: the numbers a phenotype is made of."""

    latency_ms: float
    input_tokens: int
    output_tokens: int
    cost_usd: float
    model: str
    """``provider:name`` of the model that answered."""
    retries: int = 0
    """Validation retries (0 or 1)."""

    @property
    def tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


class Prediction:
    """The outputs of one call, as attributes (``pred.answer``), with ``reasoning`` for chain of thought."""

    def __init__(self, outputs: Mapping[str, Any], stats: CallStats, reasoning: str | None = None) -> None:
        self._outputs = dict(outputs)
        self.stats = stats
        self.reasoning = reasoning

    def __getattr__(self, name: str) -> Any:
        outputs = self.__dict__.get("_outputs", {})
        if name in outputs:
            return outputs[name]
        raise AttributeError(f"prediction has no field {name!r}; it has {sorted(outputs)}")

    def to_dict(self) -> dict[str, Any]:
        """The output fields as a plain dict."""
        return dict(self._outputs)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self._outputs.items())
        return f"Prediction({fields})"


class ModuleLike(Protocol):
    """What running a module reads off it; ``chrysalis.evolve.module.Module`` is the implementation."""

    @property
    def signature(self) -> type[Signature]:
        """What the call takes and gives."""
        ...

    @property
    def strategy(self) -> Strategy:
        """``predict`` or ``chain-of-thought``."""
        ...

    @property
    def instructions(self) -> str:
        """The first lines of the system message."""
        ...

    @property
    def demos(self) -> tuple[dict[str, Any], ...]:
        """Few-shot examples, each with every field."""
        ...

    @property
    def params(self) -> dict[str, Any]:
        """Model parameters: ``temperature``, ``max_tokens``."""
        ...

    @property
    def model(self) -> str | Model | None:
        """The module's own model, if any."""
        ...
