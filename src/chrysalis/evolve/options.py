"""What compile searches and how much it may spend, as one typed, frozen value.

    CompileOptions
    ├── search: Search    the shape of the search: demos, seed population, MAP-Elites, screening, seed
    ├── budget: Budget    rollouts and USD
    ├── name              the archive's name in the store
    └── save              whether to save the archive

Each field is checked when the object is made, so a bad value is an ``OptionError`` (a
``ValueError``) that names the option, the value and what is allowed, before any model call.
``compile(qa, trainset=rows, rollouts=150, seed=0)`` builds its options with
``CompileOptions().replace(rollouts=150, seed=0)``: flat names, each the field of one group, so
the DSPy-style call keeps working; an unknown name is a ``TypeError`` listing the allowed ones.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from chrysalis.evolve.reflect import DEFAULT_MUTATIONS

__all__ = ["Budget", "CompileOptions", "OptionError", "Search", "check_count"]


class OptionError(ValueError):
    """An option holds a value that is not allowed; ``option``, ``value`` and ``allowed`` say which and why."""

    def __init__(self, option: str, value: object, allowed: str) -> None:
        self.option = option
        self.value = value
        self.allowed = allowed
        super().__init__(self.naming(option))

    def naming(self, name: str) -> str:
        """The message, calling the option ``name`` (the CLI passes its flag, e.g. ``--k-demos``)."""
        return f"{name} must be {self.allowed}, got {self.value!r}"


def check_count(option: str, value: object, least: int = 0) -> None:
    """Raise ``OptionError`` unless ``value`` is a whole number of at least ``least``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(option, value, f"a whole number, {least} or more")
    if value < least:
        raise OptionError(option, value, f"{least} or more")


@dataclass(frozen=True, kw_only=True)
class Search:
    """The shape of the search: how many variants compile makes, of which kind, and how it screens them."""

    k_demos: int = 3
    """Few-shot demos per variant (a ``demos`` child samples k-1, k or k+1); 3 by default."""
    iterations: int = 3
    """MAP-Elites iterations after the seed population; 3 by default."""
    children: int = 3
    """Children per iteration, each made by one operator from a random elite; 3 by default."""
    mutations: Sequence[str] = DEFAULT_MUTATIONS
    """Instruction mutations appended to the base instructions in the seed population (and by the
    ``mutation`` operator); seed 000's three by default. Stored as a tuple."""
    generated: int = 1
    """Instructions the meta model writes from scratch for the seed population; 1 by default."""
    minibatch: int = 5
    """Dev examples a new variant is screened on before the whole dev set; 0, or a dev set no
    bigger, scores every variant on all of dev. 5 by default."""
    seed: int = 0
    """Seeds every random choice: the same seed and inputs give the same compile. 0 by default."""

    def __post_init__(self) -> None:
        for option in ("k_demos", "iterations", "children", "generated", "minibatch"):
            check_count(option, getattr(self, option))
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise OptionError("seed", self.seed, "a whole number")
        if isinstance(self.mutations, str) or not all(isinstance(m, str) for m in self.mutations):
            raise OptionError("mutations", self.mutations, "a list of instruction strings, e.g. ['Be concise.']")
        object.__setattr__(self, "mutations", tuple(self.mutations))


@dataclass(frozen=True, kw_only=True)
class Budget:
    """How much compile may spend; it stops before a variant it cannot afford. No limit by default."""

    rollouts: int | None = None
    """Most rollouts in all: runs of a variant on one example (a validation retry is part of its
    rollout) and meta-model proposals. It must cover one evaluation of the dev set, because the base
    module is measured first. ``model_calls`` in the archive's ``meta`` counts the requests."""
    budget_usd: float | None = None
    """Most USD to spend (failed calls are paid for too)."""

    def __post_init__(self) -> None:
        if self.rollouts is not None:
            check_count("rollouts", self.rollouts, least=1)
        usd = self.budget_usd
        if usd is not None and (isinstance(usd, bool) or not isinstance(usd, int | float) or not usd > 0):
            raise OptionError("budget_usd", usd, "a number of USD above 0")


@dataclass(frozen=True, kw_only=True)
class CompileOptions:
    """Everything that tunes one compile; the run-time seams (models, data, home, progress) are arguments."""

    search: Search = Search()
    """What to try: demos, seed population, MAP-Elites iterations, screening, seed."""
    budget: Budget = Budget()
    """How much to spend: rollouts and USD; no limit by default."""
    name: str | None = None
    """The archive's name in the store; the signature's class name by default."""
    save: bool = True
    """Save the archive as the next version of ``name``; True by default."""

    def __post_init__(self) -> None:
        if not isinstance(self.search, Search):
            raise OptionError("search", self.search, "a Search(...)")
        if not isinstance(self.budget, Budget):
            raise OptionError("budget", self.budget, "a Budget(...)")
        if self.name is not None and (not isinstance(self.name, str) or not self.name.strip()):
            raise OptionError("name", self.name, "a non-empty string")
        if not isinstance(self.save, bool):
            raise OptionError("save", self.save, "True or False")

    @staticmethod
    def names() -> tuple[str, ...]:
        """The flat option names ``replace`` (and ``compile(...)``) accept, group by group."""
        return (*_field_names(Search), *_field_names(Budget), "name", "save")

    def replace(self, **changes: Any) -> CompileOptions:
        """A copy with ``changes`` applied, by flat name: ``replace(rollouts=150, seed=0, name="qa")``.

        Raises:
            TypeError: a name that is not an option; the message lists the allowed ones.
            OptionError: a value that is not allowed.
        """
        unknown = [name for name in changes if name not in self.names()]
        if unknown:
            close = [m for name in unknown for m in difflib.get_close_matches(name, self.names(), n=1)]
            hint = f" (did you mean {', '.join(map(repr, close))}?)" if close else ""
            raise TypeError(
                f"unknown compile option(s) {', '.join(map(repr, unknown))}{hint}; "
                f"the options are {', '.join(self.names())}"
            )
        search = {k: v for k, v in changes.items() if k in _field_names(Search)}
        budget = {k: v for k, v in changes.items() if k in _field_names(Budget)}
        own = {k: v for k, v in changes.items() if k in ("name", "save")}
        return dataclasses.replace(
            self,
            search=dataclasses.replace(self.search, **search) if search else self.search,
            budget=dataclasses.replace(self.budget, **budget) if budget else self.budget,
            **own,
        )


def _field_names(cls: type[Search] | type[Budget]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))
