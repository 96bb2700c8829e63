"""What a run takes from the eval store before it starts: its model (``auto``) and its tool profile (``auto``).

The model: ``chrysalis.llm.routing.ModelRouter`` (Thompson sampling with a cost prior) picks among
the ``auto`` candidates for the task's type. The tool profile is learned more conservatively, because
a wrong profile can hide the tools a task needs: the default (``coder`` for embedded models, ``all``
otherwise) stays unless the store holds at least ``MIN_RUNS`` runs of this task type on this model
and ``EvalStore.suggest_profile`` names a profile with at least ``MIN_PROFILE_RUNS`` of them whose
smoothed success rate, ``(successes + 1) / (runs + 2)``, beats the default's by ``MARGIN`` or more.
"""

from __future__ import annotations

from dataclasses import dataclass

from chrysalis.config import TOOL_PROFILES, Settings
from chrysalis.stores.evals import EvalStore, ProfileStats

__all__ = [
    "MARGIN",
    "MIN_PROFILE_RUNS",
    "MIN_RUNS",
    "ProfileChoice",
    "choose_profile",
    "default_profile",
    "needs",
    "task_type",
    "tool_profile",
]

MIN_RUNS = 5
"""Recorded runs of a task type on a model before its profile is learned rather than defaulted."""
MIN_PROFILE_RUNS = 3
"""Runs a profile needs on that task type and model before it can replace the default."""
MARGIN = 0.2
"""How much higher the learned profile's smoothed success rate must be than the default's."""


@dataclass(frozen=True)
class ProfileChoice:
    """The tool profile of one run, and why (for the ``start`` event)."""

    profile: str
    reason: str


def task_type(task: str) -> str:
    """A coarse task category for the eval store, so success rates can be compared per kind of task."""
    words = task.lower()
    for kind, keys in (
        ("fix", ("fix", "bug", "failing", "error", "broken")),
        ("test", ("test",)),
        ("refactor", ("refactor", "rename", "clean")),
        ("explain", ("explain", "what", "why", "how", "describe", "?")),
        ("write", ("write", "add", "create", "implement")),
    ):
        if any(k in words for k in keys):
            return kind
    return "other"


CODING_TASKS = frozenset({"fix", "test", "refactor", "write"})


def needs(task_type: str) -> frozenset[str]:
    """The model capabilities a task type needs (``llm/model_catalog.py``): code for the kinds that change code."""
    return frozenset({"coding"}) if task_type in CODING_TASKS else frozenset()


def tool_profile(settings: Settings, *, model_given: bool = False) -> str:
    """The tool profile before anything is learned: the embedded models do better with fewer, coding-only tools."""
    if settings.profile != "auto":
        return settings.profile
    return default_profile(settings.model, model_given=model_given)


def default_profile(model: str, *, model_given: bool = False) -> str:
    """``coder`` for the embedded models (a 1.5B model picks better among six tools), ``all`` otherwise."""
    return "coder" if model.startswith("local:") and not model_given else "all"


def choose_profile(
    settings: Settings, *, task_type: str, model: str, evals: EvalStore, model_given: bool = False
) -> ProfileChoice:
    """The profile for a run of ``task_type`` on ``model``: the configured one, the learned one, or the default."""
    if settings.profile != "auto":
        return ProfileChoice(settings.profile, f"set by {settings.sources.get('profile', 'config')}")
    default = default_profile(model, model_given=model_given)
    kind = "the default for embedded models" if default == "coder" else "the default"
    records = {row.profile: row for row in evals.summary(task_type=task_type, model=model)}
    runs = sum(row.runs for row in records.values())
    if runs < MIN_RUNS:
        return ProfileChoice(default, f"{kind}; {runs} of {MIN_RUNS} {task_type!r} runs on this model recorded")
    suggested = evals.suggest_profile(task_type, MIN_PROFILE_RUNS, model=model)
    if suggested is None or suggested == default or suggested not in TOOL_PROFILES:
        return ProfileChoice(default, f"{kind}; no profile has a better record on {task_type!r} tasks")
    best, base = records[suggested], records.get(default)
    if _smoothed(best) - _smoothed(base) < MARGIN:
        return ProfileChoice(
            default, f"{kind}; {suggested} ({_record(best)}) is not clearly better than {default} ({_record(base)})"
        )
    return ProfileChoice(
        suggested, f"learned: {suggested} {_record(best)} on {task_type!r} tasks, {default} {_record(base)}"
    )


def _smoothed(row: ProfileStats | None) -> float:
    """Laplace's rule: a success rate that does not trust two runs as much as twenty."""
    return 0.5 if row is None else (row.successes + 1) / (row.runs + 2)


def _record(row: ProfileStats | None) -> str:
    return "no runs" if row is None else f"{row.successes}/{row.runs} succeeded"
