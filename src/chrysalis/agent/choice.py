"""Which model and tool profile a run uses, and which stronger model takes over a failed draft.

Under ``--model auto`` the model is drawn from the eval store's posteriors (``llm/routing.py``),
weighted by the session's priority; the tool profile is the configured one, the one the eval store
learned for this task type and model, or the model's default (``agent/learning.py``). The priority
may also ask for a draft→refine chain (seed 001): a cheaper model first, a stronger one when the
check fails. ``AgentSession`` asks here at the start of each run and applies the answer.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from chrysalis.agent.durability import Durability
from chrysalis.agent.judge import SecurityJudge
from chrysalis.agent.learning import ProfileChoice, choose_profile, needs, tool_profile
from chrysalis.agent.step_vote import StepVoting
from chrysalis.config import Settings
from chrysalis.errors import UsageError
from chrysalis.events import Start
from chrysalis.evolve.priority import plan_for, plan_of
from chrysalis.stores.evals import EvalStore
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.registry import profile_tools

if TYPE_CHECKING:
    from pydantic_ai.models import Model

    from chrysalis.llm.routing import ModelRouter, RoutingChoice

__all__ = ["RunChoice", "RunChooser", "SessionModels", "routed_model", "start_event"]


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


def routed_model(settings: Settings, evals: EvalStore, kind: str) -> str:
    """The model a task of type ``kind`` runs on: ``settings.model``, or the router's pick when it is ``auto``.

    Raises:
        ConfigError: ``model`` is ``auto`` and ``auto_models`` holds a bad value.
    """
    from chrysalis.llm.routing import AUTO, auto_candidates

    if settings.model != AUTO:
        return settings.model
    return _router(settings, evals).choose(kind, auto_candidates(settings), need=needs(kind)).model


def _router(settings: Settings, evals: EvalStore) -> ModelRouter:
    """The ``auto`` router under the priority, with the catalogue (``$CHRYSALIS_HOME/models.json``)."""
    from chrysalis.llm.model_catalog import Catalog
    from chrysalis.llm.routing import PRIOR_WEIGHT, ModelRouter

    preference = plan_for(settings.priority).preference()
    weight = max(PRIOR_WEIGHT, preference.cost + preference.speed + preference.strength)
    return ModelRouter(evals, prior_weight=weight, preference=preference, catalog=Catalog.load(settings.home))


class SessionModels:
    """What a session's runs use and rebuild when it changes: the model, the judge's model, the profile, the tools.

    Settings are passed at each call, not kept: the REPL changes them between runs (``/model``, ``/priority``).
    """

    def __init__(
        self,
        settings: Settings,
        evals: EvalStore,
        *,
        model: Model | None,
        judge_model: Model | None,
        tools: dict[str, ToolSpec] | None,
        rng: random.Random | None,
        sub_agent: bool,
        durability: Durability | None,
    ) -> None:
        """Raises ``ConfigError`` when ``model`` is ``auto`` and ``auto_models`` holds a bad value."""
        self._evals, self._sub_agent, self._durability = evals, sub_agent, durability
        self._model = model if model is None or durability is None else durability.wrap_model(model)
        self._model_given, self._tools_given = model is not None, tools is not None
        self._judge_model = judge_model
        """The security judge's model when given (tests); else built from ``settings.judge`` on first use."""
        self._built_for: str | None = None
        self._rng = rng or random.Random()
        """Draws for ``auto`` model routing; pass ``random.Random(seed)`` for reproducible picks."""
        self.active_model = settings.model
        """The model the latest run used (under ``auto``, the one picked), as recorded in the eval store."""
        self.profile = "custom" if tools is not None else tool_profile(settings, model_given=model is not None)
        self.tools = tools if tools is not None else profile_tools(self.profile)
        self._chooser = self._new_chooser(settings)

    @property
    def model_given(self) -> bool:
        """The caller gave a model object, not a name: nothing else can sample it by its name."""
        return self._model_given

    @property
    def tools_given(self) -> bool:
        """The caller chose the tools: there is no profile to choose, and capabilities add none."""
        return self._tools_given

    def model(self, settings: Settings) -> Model:
        """The model, built on first use (a bad name fails only when a run needs it); rebuilt when ``auto`` moves."""
        if self._model is None or (not self._model_given and self._built_for != self.active_model):
            from chrysalis.llm.providers import build_model

            reasoning = plan_for(settings.priority).reasoning
            self._model = build_model(dataclasses.replace(settings, model=self.active_model), reasoning=reasoning)
            if self._durability is not None:
                self._model = self._durability.wrap_model(self._model)
            self._built_for = self.active_model
        return self._model

    def judge(self, settings: Settings) -> SecurityJudge | None:
        """The security judge of the next run (``settings.judge``); one naming the run's model reuses it."""
        name = settings.judge
        if name is None:
            return None
        if self._judge_model is None:
            self._judge_model = self.model(settings) if name == self.active_model else self._build_judge(settings)
        return SecurityJudge(self._judge_model, name)

    def _build_judge(self, settings: Settings) -> Model:
        """The judge's model, read like ``--model`` (with ``--base-url``, except for the embedded model)."""
        from chrysalis.llm.providers import build_model

        name = settings.judge or ""
        base_url = None if name.startswith("local:") else settings.base_url
        try:
            model = build_model(dataclasses.replace(settings, model=name, base_url=base_url))
        except UsageError as exc:
            raise UsageError(f"--judge {name}: {exc}".replace("--model", "--judge")) from exc
        return model if self._durability is None else self._durability.wrap_model(model)

    def for_child(self, settings: Settings, profile: str) -> tuple[Model, Model | None, dict[str, ToolSpec]]:
        """A sub-agent's model and judge (this session's) and its tools: those ``profile`` names.

        The child's level and mode (never wider than this session's) decide which of them are offered
        and which calls run, as for any run: a ``vcs`` leaf under the embedded default (whose own
        profile, ``coder``, has no git tools) can commit when the level allows it. Tools a caller
        gave this session (``tools=``) are a limit the caller chose: then only those of them.
        """
        wanted = profile_tools(profile)
        if self._tools_given:
            wanted = {name: spec for name, spec in wanted.items() if name in self.tools}
        return self.model(settings), self._judge_model, wanted

    def reset(self, settings: Settings) -> None:
        """Forget the built model so the next run builds it from the (changed) settings."""
        self._model, self._model_given, self._built_for = None, False, None
        self.active_model = settings.model
        self._chooser = self._new_chooser(settings)
        if not self._tools_given:
            self.profile = tool_profile(settings)
            self.tools = profile_tools(self.profile)

    async def choose(self, settings: Settings, kind: str) -> RunChoice:
        """The run's model, profile and refiner, applied; a ``--budget`` it cannot enforce is refused here.

        The eval store moves on while a durable run waits or lies crashed; its resumed run must make
        the choices it made then, or its recorded steps would not fit. They are recorded as a plain tuple.
        """
        from chrysalis.llm.pricing import check_budget

        if self._durability is None:
            choice = self._chooser.choose(settings, kind, self.profile)
        else:

            def choose() -> tuple[RoutingChoice | None, ProfileChoice, str | None]:
                made = self._chooser.choose(settings, kind, self.profile)
                return made.routing, made.profile, made.refiner

            choice = RunChoice(*await self._durability.once("plan", choose))
        self.active_model = choice.routing.model if choice.routing else settings.model
        if not self._tools_given and choice.profile.profile != self.profile:
            self.profile, self.tools = choice.profile.profile, profile_tools(choice.profile.profile)
        check_budget(self.active_model, settings.budget, settings.prices, settings.sources.get("budget", "budget"))
        return choice

    def _new_chooser(self, settings: Settings) -> RunChooser:
        """Run choices for the current settings (again after ``reset``: ``auto`` may be new)."""
        return RunChooser.for_session(
            settings,
            self._evals,
            self._rng,
            model_given=self._model_given,
            tools_given=self._tools_given,
            sub_agent=self._sub_agent,
        )


def start_event(
    run_id: str,
    task: str,
    kind: str,
    settings: Settings,
    models: SessionModels,
    choice: RunChoice,
    *,
    parent_run_id: str | None,
    session_id: str | None,
    voting: StepVoting | None = None,
) -> Start:
    """The ``start`` event of a run: what it runs with, and why (the router's and the profile's reasons)."""
    s, routing, profile = settings, choice.routing, choice.profile
    return Start(
        run_id=run_id,
        task=task,
        model=models.active_model,
        mode=s.mode,
        level=s.level,
        workspace=str(s.workspace),
        task_type=kind,
        profile=profile.profile,
        profile_reason=profile.reason,
        model_reason=routing.explain() if routing else None,
        candidates=tuple(p.to_json() for p in routing.posteriors) if routing else None,
        priority=s.priority,
        priority_plan=plan_of(s).to_json(),
        parent_run_id=parent_run_id,
        refine_model=choice.refiner,
        session_id=session_id,
        voting=voting.to_json() if voting is not None else None,
    )
