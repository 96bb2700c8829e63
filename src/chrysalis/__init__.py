"""Chrysalis Forge: a local-first, self-improving, safety-gated agent framework.

The public names are loaded lazily so that ``import chrysalis`` (and ``chrysalis --help``) stay
fast: the model runtimes and pydantic-ai are imported only when a run needs them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the real types for type checkers; at run time ``__getattr__`` imports them on first use
    from chrysalis.agent.api import Agent, configure
    from chrysalis.decomposition.api import decompose
    from chrysalis.decomposition.run import DecompositionResult
    from chrysalis.errors import ChrysalisError, MetricError, OutputValidationError
    from chrysalis.events import RunResult
    from chrysalis.evolve.archive import ModuleArchive, Phenotype
    from chrysalis.evolve.compile import CompiledModule, compile
    from chrysalis.evolve.module import ChainOfThought, Module, Predict, Prediction
    from chrysalis.evolve.options import CompileOptions
    from chrysalis.evolve.signature import InputField, OutputField, Signature
    from chrysalis.voting import Vote, VoteError, VotingConfig, vote, vote_async

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "Agent": "chrysalis.agent.api",
    "configure": "chrysalis.agent.api",
    "RunResult": "chrysalis.events",
    "ChrysalisError": "chrysalis.errors",
    "OutputValidationError": "chrysalis.errors",
    "MetricError": "chrysalis.errors",
    "Signature": "chrysalis.evolve.signature",
    "InputField": "chrysalis.evolve.signature",
    "OutputField": "chrysalis.evolve.signature",
    "Module": "chrysalis.evolve.module",
    "Predict": "chrysalis.evolve.module",
    "ChainOfThought": "chrysalis.evolve.module",
    "Prediction": "chrysalis.evolve.module",
    "compile": "chrysalis.evolve.compile",
    "CompiledModule": "chrysalis.evolve.compile",
    "CompileOptions": "chrysalis.evolve.options",
    "ModuleArchive": "chrysalis.evolve.archive",
    "Phenotype": "chrysalis.evolve.archive",
    "decompose": "chrysalis.decomposition.api",
    "vote": "chrysalis.voting",
    "vote_async": "chrysalis.voting",
    "VotingConfig": "chrysalis.voting",
    "Vote": "chrysalis.voting",
    "VoteError": "chrysalis.voting",
    "DecompositionResult": "chrysalis.decomposition.run",
}

__all__ = [
    "Agent",
    "ChainOfThought",
    "ChrysalisError",
    "CompileOptions",
    "CompiledModule",
    "DecompositionResult",
    "InputField",
    "MetricError",
    "Module",
    "ModuleArchive",
    "OutputField",
    "OutputValidationError",
    "Phenotype",
    "Predict",
    "Prediction",
    "RunResult",
    "Signature",
    "Vote",
    "VoteError",
    "VotingConfig",
    "__version__",
    "compile",
    "configure",
    "decompose",
    "vote",
    "vote_async",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chrysalis' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
