"""Chrysalis Forge: a local-first, self-improving, safety-gated agent framework.

The public names are loaded lazily so that ``import chrysalis`` (and ``chrysalis --help``) stay
fast: the model runtimes and pydantic-ai are imported only when a run needs them.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY: dict[str, str] = {
    "Agent": "chrysalis.agent.api",
    "configure": "chrysalis.agent.api",
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
}

__all__ = [
    "Agent",
    "ChainOfThought",
    "ChrysalisError",
    "CompileOptions",
    "CompiledModule",
    "InputField",
    "MetricError",
    "Module",
    "ModuleArchive",
    "OutputField",
    "OutputValidationError",
    "Phenotype",
    "Predict",
    "Prediction",
    "Signature",
    "__version__",
    "compile",
    "configure",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chrysalis' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
