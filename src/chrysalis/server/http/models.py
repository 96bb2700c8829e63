"""The HTTP service's bodies: what a client sends and gets back, as pydantic models.

They are the ``/openapi.json`` schema, so they say as much as a schema can: a task with a
non-space character, a level from 0 to 3, a mode from the list, a model name of safe characters.
Each field is then checked by the config's own coercion (``config.coerce_value``), so a bad value is
refused with the words and allowed values ``--level 9`` gets on the command line; what no schema can
say (a workspace that exists, a level above the server's) is checked when the run is queued.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from chrysalis.config import SettingFlags, coerce_value
from chrysalis.errors import ConfigError
from chrysalis.stores.evals import ProfileStats
from chrysalis.stores.traces import RunSummary

__all__ = [
    "ErrorBody",
    "ErrorDetail",
    "Health",
    "ModelsView",
    "RunCreated",
    "RunList",
    "RunRequest",
    "RunStatus",
    "RunView",
    "StatsView",
]

RunStatus = Literal["queued", "running", "done", "failed", "cancelled"]
"""A run's status as the service reports it (the queue's ``waiting_approval`` shows as ``running``)."""

_MODEL_PATTERN = r"^[A-Za-z0-9._/@+-]+(:[A-Za-z0-9._/@+-]+)*$"
"""Stricter than the config (which takes any ``provider:name``), so whatever the schema allows, the config takes."""


class RunRequest(BaseModel):
    """``POST /v1/runs``: the task, and the run settings that differ from the server's (``chrysalis serve`` flags)."""

    model_config = ConfigDict(extra="forbid", strict=True, regex_engine="python-re")

    task: Annotated[str, Field(min_length=1, max_length=100_000, pattern=r"\S", description="What the agent does.")]
    model: Annotated[str | None, Field(max_length=200, pattern=_MODEL_PATTERN, description="provider:name")] = None
    base_url: Annotated[str | None, Field(max_length=2000, pattern=r"^https?://[^\s/]+")] = None
    level: Annotated[int | None, Field(ge=0, le=3, description="0 read-only … 3 shell; not above the server's")] = None
    mode: Literal["ask", "architect", "code", "semantic"] | None = None
    workspace: Annotated[str | None, Field(min_length=1, max_length=4096, description="An existing folder.")] = None
    urgency: Literal["critical", "high", "normal", "low", "idle"] = "normal"

    @field_validator("task", "model", "base_url", "workspace", mode="before")
    @classmethod
    def _text(cls, value: Any, info: ValidationInfo) -> Any:
        """Text that can be stored (no lone surrogates, which JSON allows and UTF-8 does not); a task not blank."""
        if not isinstance(value, str):
            return value
        try:
            value.encode()
        except UnicodeEncodeError as exc:
            msg = f"{info.field_name}: not valid Unicode text ({exc.reason} at position {exc.start})."
            raise ValueError(msg) from exc
        if info.field_name == "task" and not value.strip():
            msg = 'The task is empty: say what the agent should do, e.g. {"task": "fix the failing test"}.'
            raise ValueError(msg)
        return value

    @field_validator("model", "base_url", "level", "mode", "workspace", mode="before")
    @classmethod
    def _as_the_config_would(cls, value: Any, info: ValidationInfo) -> Any:
        """A bad value gets the config's message (with the allowed values); a good one goes on to the schema's rules."""
        if value is None:
            return value
        name = str(info.field_name)
        try:
            coerce_value(name, value, f"request field {name!r}")
        except ConfigError as exc:
            raise ValueError(str(exc)) from exc
        except OSError as exc:  # a workspace path the system cannot even look at (too long, ...)
            msg = f"request field {name!r}: {exc.strerror or exc}. Allowed: an existing folder on the server."
            raise ValueError(msg) from exc
        if name == "level" and isinstance(value, float):  # JSON Schema's integers include 2.0 (the config took it)
            return int(value)
        return value

    def settings_flags(self) -> SettingFlags:
        """The fields given, as the flags ``load_settings`` takes (the task and urgency are not settings)."""
        return SettingFlags(
            model=self.model, base_url=self.base_url, level=self.level, mode=self.mode, workspace=self.workspace
        )


class RunCreated(BaseModel):
    """The answer to ``POST /v1/runs``: the queued run's id (``GET /v1/runs/{id}`` follows it)."""

    id: str
    status: RunStatus


class RunView(BaseModel):
    """``GET /v1/runs/{id}``: where a run stands and, once finished, what it answered and cost."""

    id: str
    status: RunStatus
    waiting_approval: bool = Field(description="Running, but waiting for a signed approval (`chrysalis approve`).")
    task: str
    urgency: str
    workspace: str | None
    answer: str | None = Field(description="The agent's final answer; null until the run is done.")
    success: bool | None
    verified: bool | None
    problem: str | None
    steps: int | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    duration_ms: float | None
    error: str | None
    worker: str | None
    created_at: float
    updated_at: float


class RunList(BaseModel):
    """``GET /v1/runs``: the latest runs, newest first."""

    runs: list[RunView]


class ErrorDetail(BaseModel):
    """What went wrong: the request field at fault (``null`` when none is) and what to do about it."""

    field: str | None
    message: str


class ErrorBody(BaseModel):
    """Every error the service answers (400, 401, 404, 405, 409) has this shape."""

    error: ErrorDetail


class ModelCard(BaseModel):
    """One model of the catalogue, as ``chrysalis models --json`` prints it."""

    model: str
    capabilities: list[str]
    speed: str
    cost_tier: str
    strength: int
    context: int
    source: str


class ModelsView(BaseModel):
    """``GET /v1/models``: the catalogue and the candidates of ``--model auto`` (``chrysalis models --json``)."""

    models: list[ModelCard]
    auto: list[str]
    default: str = Field(description="The model a run gets when its request names none (the server's).")


class StatsView(BaseModel):
    """``GET /v1/stats``: the eval store's summary and the latest runs (``chrysalis stats``)."""

    profiles: list[ProfileStats]
    recent_runs: list[RunSummary]


class Health(BaseModel):
    """``GET /v1/health``: the service answers (and the cheapest request, the benchmark's baseline)."""

    status: Literal["ok"]
    version: str
