"""Which model and tool profile a run uses, and which stronger model takes over a failed draft.

Under ``--model auto`` the model is drawn from the eval store's posteriors (``llm/routing.py``),
weighted by the session's priority; the tool profile is the configured one, the one the eval store
learned for this task type and model, or the model's default (``agent/learning.py``). The priority
may also ask for a draft→refine chain (seed 001): a cheaper model first, a stronger one when the
check fails. ``AgentSession`` asks here at the start of each run and applies the answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chrysalis.agent.learning import ProfileChoice, choose_profile, needs
from chrysalis.agent.priority import plan_for
from chrysalis.config import Settings
from chrysalis.stores.evals import EvalStore

if TYPE_CHECKING:
    from chrysalis.llm.routing import ModelRouter, RoutingChoice

__all__ = ["RunChoice", "RunChooser"]


@dataclass(frozen=True)
class RunChoice:
    """One run's model pick under ``auto`` (with the router's reasons), tool profile and refiner."""

    routing: RoutingChoice | None
    profile: ProfileChoice
    refiner: str | None


@dataclass(frozen=True)
class RunChooser:
    """Chooses each run's model, profile and refiner for one session.

    The settings are passed at each choice, not kept: the REPL's ``/priority`` changes them between runs.
    """

    evals: EvalStore
    rng: random.Random
    """Draws for ``auto`` model routing; ``random.Random(seed)`` makes picks reproducible."""
    candidates: tuple[str, ...]
    """The models ``auto`` picks among; empty when the model is fixed."""
    model_given: bool
    """The caller passed a model object: its name in settings says nothing of its profile."""
    tools_given: bool
    """The caller passed the tools: there is no profile to choose."""
    refines: bool
    """A failed draft may be handed to a stronger model (never in a sub-agent)."""

    @classmethod
    def for_session(
        cls,
        settings: Settings,
        evals: EvalStore,
        rng: random.Random,
        *,
        model_given: bool,
        tools_given: bool,
        sub_agent: bool,
    ) -> RunChooser:
        """A chooser whose ``auto`` candidates are checked now, so a bad ``auto_models`` fails before any run.

        Raises:
            ConfigError: ``model`` is ``auto`` and ``auto_models`` holds a bad value.
        """
        from chrysalis.llm.routing import AUTO, auto_candidates

        candidates = () if model_given or settings.model != AUTO else auto_candidates(settings)
        return cls(evals, rng, candidates, model_given, tools_given, refines=not sub_agent)

    def choose(self, settings: Settings, kind: str, current_profile: str) -> RunChoice:
        """The model and profile for a run of task type ``kind``; ``current_profile`` stays when tools were given."""
        routing = None
        if self.candidates:
            routing = _router(settings, self.evals).choose(kind, self.candidates, rng=self.rng, need=needs(kind))
        model = routing.model if routing else settings.model
        if self.tools_given:
            profile = ProfileChoice(current_profile, "tools given by the caller")
        else:
            profile = choose_profile(
                settings, task_type=kind, model=model, evals=self.evals, model_given=self.model_given
            )
        return RunChoice(routing, profile, self._refiner(settings, kind, model))

    def _refiner(self, settings: Settings, kind: str, model: str) -> str | None:
        """The stronger model that takes over a failed check, when ``auto`` and the priority ask for a chain."""
        if not self.candidates or not plan_for(settings.priority).refine or not self.refines:
            return None
        return _router(settings, self.evals).refiner(kind, self.candidates, model, need=needs(kind))


def _router(settings: Settings, evals: EvalStore) -> ModelRouter:
    """The ``auto`` router under the priority, with the catalogue (``$CHRYSALIS_HOME/models.json``)."""
    from chrysalis.llm.model_catalog import Catalog
    from chrysalis.llm.routing import PRIOR_WEIGHT, ModelRouter

    preference = plan_for(settings.priority).preference()
    weight = max(PRIOR_WEIGHT, preference.cost + preference.speed + preference.strength)
    return ModelRouter(evals, prior_weight=weight, preference=preference, catalog=Catalog.load(settings.home))
