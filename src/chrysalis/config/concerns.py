"""``Settings`` by concern: one frozen group per concern of the table, read where a component needs only it.

The table stays flat (``settings.level``, one entry per setting, as config files, the environment and
flags name them); a component that needs one concern takes its group instead of the whole settings:
``Policy.from_settings`` reads ``settings.security``, ``RunLimits.of`` reads ``settings.limits``. Each
group's fields are exactly the settings whose entry names that concern (``tests/test_config_table.py``
keeps them in step), so a new setting lands in its group or the suite fails.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

from chrysalis.config.choices import Mode
from chrysalis.config.coerce import Rules
from chrysalis.config.entry import Concern

__all__ = [
    "GROUPS",
    "ByConcern",
    "LimitSettings",
    "ModelChoice",
    "ProjectSettings",
    "PromptSettings",
    "RuntimeSettings",
    "SecuritySettings",
    "group",
]

G = TypeVar("G")


def group(kind: type[G], settings: object) -> G:
    """The group ``kind`` of ``settings``: its fields filled from the settings' fields of the same names."""
    values: dict[str, Any] = {item.name: getattr(settings, item.name) for item in fields(kind)}  # type: ignore[arg-type]
    return kind(**values)


@dataclass(frozen=True)
class ModelChoice:
    """Which model answers, where, and what matters when choosing (``model choice``)."""

    model: str
    auto_models: tuple[str, ...]
    base_url: str | None
    priority: str
    voting: str
    prices: Mapping[str, tuple[float, float]]


@dataclass(frozen=True)
class SecuritySettings:
    """What the agent may do: the level, the mode, approvals, rules, the sandbox and the judge (``security``)."""

    mode: Mode
    level: int
    yes: bool
    permissions: Rules
    protect_tests: bool
    sandbox_network: bool
    unsafe_no_sandbox: bool
    judge: str | None


@dataclass(frozen=True)
class LimitSettings:
    """When a run stops: money, time and steps (``limits``); ``RunLimits`` adds the plan's and the gate's."""

    budget: float | None
    timeout: float | None
    max_steps: int


@dataclass(frozen=True)
class ProjectSettings:
    """The folder worked in, how its tests run and the tool profile (``project``)."""

    workspace: Path
    test_command: str | None
    profile: str


@dataclass(frozen=True)
class PromptSettings:
    """What goes into the model's context and when it is compacted (``prompt``)."""

    compact_at: float
    memory_tokens: int
    subscription_chars: int
    embeddings: str


@dataclass(frozen=True)
class RuntimeSettings:
    """Where durable runs live and what leaves the process about them (``runtime``)."""

    daemon: bool
    database_url: str | None
    telemetry: str


GROUPS: Mapping[Concern, type[Any]] = {
    "model choice": ModelChoice,
    "security": SecuritySettings,
    "limits": LimitSettings,
    "project": ProjectSettings,
    "prompt": PromptSettings,
    "runtime": RuntimeSettings,
}
"""The group of each concern."""


class ByConcern:
    """The groups as properties of ``Settings`` (its base): ``settings.security.level`` is ``settings.level``."""

    @property
    def model_choice(self) -> ModelChoice:
        """Which model, where, and what matters when choosing it."""
        return group(ModelChoice, self)

    @property
    def security(self) -> SecuritySettings:
        """Level, mode, approvals, rules, sandbox and judge: what ``Policy.from_settings`` reads."""
        return group(SecuritySettings, self)

    @property
    def limits(self) -> LimitSettings:
        """Budget, timeout and steps: what ``RunLimits.of`` reads."""
        return group(LimitSettings, self)

    @property
    def project(self) -> ProjectSettings:
        """The workspace, its test command and the tool profile."""
        return group(ProjectSettings, self)

    @property
    def prompt(self) -> PromptSettings:
        """What goes into the model's context, and when it is compacted."""
        return group(PromptSettings, self)

    @property
    def runtime(self) -> RuntimeSettings:
        """The durable runtime's database, the daemon and telemetry."""
        return group(RuntimeSettings, self)
