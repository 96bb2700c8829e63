"""The settings table: each field of ``Settings`` is one setting, its ``Entry`` (``entry.py``) the rest of it.

To add a setting, add a field here (name, type, default and entry) and its line in ``SettingFlags``
(``flags.py``; ``tests/test_config_table.py`` says so if it is missing). Loading from files, the
environment and flags, the error for a bad value, ``chrysalis config show`` and the REPL read it from here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any

from chrysalis.config.choices import (
    DEFAULT_MODEL,
    EMBEDDING_PROVIDERS,
    LEVEL_NAMES,
    MIN_SUBSCRIPTION_CHARS,
    MODES,
    PRIORITY_KEYWORDS,
    PROFILES,
    TELEMETRY,
    VOTING_CHOICES,
    Mode,
)
from chrysalis.config.coerce import (
    OneOf,
    Rules,
    as_bool,
    as_command,
    as_database_url,
    as_embeddings,
    as_fraction,
    as_int_in,
    as_judge,
    as_model,
    as_model_list,
    as_optional_float,
    as_prices,
    as_priority,
    as_rules,
    as_subscription_chars,
    as_url,
    as_workspace,
)
from chrysalis.config.concerns import ByConcern
from chrysalis.config.entry import Entry, computed, entry_of, setting

__all__ = ["DB_FILENAME", "ENTRIES", "KEYS", "TABLE", "TRACES_FILENAME", "Settings", "chrysalis_home", "env_var"]

DB_FILENAME = "chrysalis.db"
"""The SQLite file of every store, in ``$CHRYSALIS_HOME``."""
TRACES_FILENAME = "traces.jsonl"
"""The JSONL file every run appends its events to, in ``$CHRYSALIS_HOME``."""
_BOOL = "true or false"
_MODEL = "'provider:name' model such as 'openai:gpt-4o-mini' or 'local:qwen2.5-coder-1.5b'"


def chrysalis_home(environ: Mapping[str, str] | None = None) -> Path:
    """The user's Chrysalis folder: ``$CHRYSALIS_HOME``, or ``~/.chrysalis``."""
    env = os.environ if environ is None else environ
    raw = env.get("CHRYSALIS_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".chrysalis"


@dataclass(frozen=True)
class Settings(ByConcern):
    """The effective settings of one run; ``sources`` says where each value came from.

    Flat, as config files, the environment and flags name them; grouped by concern as properties
    (``settings.security``, ``settings.limits``, ...: ``chrysalis.config.concerns``).
    """

    model: str = setting(
        DEFAULT_MODEL,
        Entry(
            concern="model choice",
            coerce=as_model,
            example="openai:gpt-4o-mini",
            hint="provider:name",
            allowed="a 'provider:name' string such as 'local:qwen2.5-coder-1.5b' or 'openai:gpt-4o-mini', or 'auto'",
            help="Which model to use, as provider:name (local:, openai:, anthropic:, ...), or auto.",
        ),
    )
    auto_models: tuple[str, ...] = setting(
        (),
        Entry(
            concern="model choice",
            coerce=as_model_list,
            example="local:qwen2.5-coder-1.5b,openai:gpt-4o-mini",
            allowed='a list of \'provider:name\' models such as ["local:qwen2.5-coder-1.5b", "openai:gpt-4o-mini"]'
            " (in the environment: comma-separated); empty for the default",
            help='The models `model = "auto"` chooses among; empty means the local default plus each keyed provider.',
        ),
    )
    base_url: str | None = setting(
        None,
        Entry(
            concern="model choice",
            coerce=as_url,
            example="http://127.0.0.1:8080/v1",
            allowed="an http(s) URL such as 'http://127.0.0.1:8080/v1'",
            help="An OpenAI-compatible server to send requests to (then the model's name is passed as is).",
        ),
    )
    priority: str = setting(
        "best",
        Entry(
            concern="model choice",
            coerce=as_priority,
            example="cheap",
            hint="|".join(PRIORITY_KEYWORDS) + "|<sentence>",
            allowed="one of " + ", ".join(PRIORITY_KEYWORDS) + ", or a sentence",
            help="What matters now: fast, cheap, best, verbose, compact, or a sentence.",
        ),
    )
    voting: str = setting(
        "auto",
        Entry(
            concern="model choice",
            coerce=OneOf(VOTING_CHOICES),
            example="none",
            help="How critical steps are voted on: auto (the priority's level), or none, low, medium, high, critical.",
        ),
    )
    prices: Mapping[str, tuple[float, float]] = computed(
        dict[str, tuple[float, float]],
        Entry(
            concern="model choice",
            coerce=as_prices,
            example='{"my-model": {"input": 0.5, "output": 1.5}}',
            allowed='a table of USD per million tokens per model, e.g. [prices] "my-model" = { input = 0.5, output = '
            "1.5 } (in the environment: the same as JSON)",
            help="USD per million (input, output) tokens for models with no known price ([prices] in config).",
        ),
    )
    mode: Mode = setting(
        "code",
        Entry(
            concern="security",
            coerce=OneOf(MODES),
            example="ask",
            help="What work is allowed: ask (no writes), architect (plans and docs only), code, semantic.",
        ),
    )
    level: int = setting(
        2,
        Entry(
            concern="security",
            coerce=as_int_in(0, 3),
            example="3",
            hint="0..3",
            allowed="an integer from 0 to 3 (" + ", ".join(f"{n} {name}" for n, name in LEVEL_NAMES.items()) + ")",
            help="Security level, 0 to 3: what the agent may do (chrysalis.tools.policy decides).",
        ),
    )
    yes: bool = setting(
        False,
        Entry(
            concern="security",
            coerce=as_bool,
            example="true",
            allowed=_BOOL,
            help="Approve, without asking, every action the security level allows.",
        ),
    )
    permissions: Rules = setting(
        (),
        Entry(
            concern="security",
            coerce=as_rules,
            adds=True,
            example='{"allow": ["shell(pytest:*)"], "deny": ["write_file(docs/**)"]}',
            allowed="a table [permissions] with lists allow, ask and deny of rules such as 'shell(pytest:*)' or "
            "'write_file(docs/**)' (in the environment: the same as JSON)",
            help="Permission rules as (action, rule, source), from every config file, env and flags together.",
        ),
    )
    protect_tests: bool = setting(
        True,
        Entry(
            concern="security",
            coerce=as_bool,
            example="false",
            allowed=_BOOL,
            help="Refuse edits to test files, so the agent fixes code instead of weakening tests.",
        ),
    )
    sandbox_network: bool = setting(
        False,
        Entry(
            concern="security",
            coerce=as_bool,
            example="true",
            allowed=_BOOL,
            help="Let commands in the sandbox use the network (chrysalis.tools.sandbox); off by default.",
        ),
    )
    unsafe_no_sandbox: bool = setting(
        False,
        Entry(
            concern="security",
            coerce=as_bool,
            example="true",
            allowed=_BOOL,
            help="Where no sandbox works, run commands unconfined instead of refusing them (--unsafe-no-sandbox).",
        ),
    )
    judge: str | None = setting(
        None,
        Entry(
            concern="security",
            coerce=as_judge,
            example="openai:gpt-4o-mini",
            allowed=f"a {_MODEL}, or 'off'",
            help="A model that labels each write, command, network request and MCP call [SAFE] or [UNSAFE] before "
            "it runs (seed 000's judge); off when unset.",
        ),
    )
    budget: float | None = setting(
        None,
        Entry(
            concern="limits",
            coerce=as_optional_float(0.0, strict=False),
            example="0.5",
            allowed="a non-negative number of USD",
            help="Most USD a run may spend; none for no limit (local models cost 0).",
        ),
    )
    timeout: float | None = setting(
        900.0,
        Entry(
            concern="limits",
            coerce=as_optional_float(0.0, strict=True),
            example="60",
            allowed="a positive number of seconds",
            help="Seconds a run may take before it stops with a clear reason; none for no limit.",
        ),
    )
    max_steps: int = setting(
        30,
        Entry(
            concern="limits",
            coerce=as_int_in(1, None),
            example="10",
            allowed="a positive integer",
            help="Most model requests a run may make.",
        ),
    )
    workspace: Path = computed(
        Path.cwd,
        Entry(
            concern="project",
            coerce=as_workspace,
            example="/tmp",
            allowed="an existing folder",
            help="The folder the agent works in; no path may escape it.",
        ),
    )
    test_command: str | None = setting(
        None,
        Entry(
            concern="project",
            coerce=as_command,
            example="python -m pytest -q",
            allowed="a shell command such as 'python -m pytest -q'",
            help="How to run the project's tests (the run_tests tool); unset means detect it from the project files.",
        ),
    )
    profile: str = setting(
        "auto",
        Entry(
            concern="project",
            coerce=OneOf(PROFILES),
            example="coder",
            help="Which tools the model is offered: all, coder, editor, researcher, vcs; auto means coder for local "
            "models.",
        ),
    )
    compact_at: float = setting(
        0.7,
        Entry(
            concern="prompt",
            coerce=as_fraction(0.1, 0.95),
            example="0.5",
            allowed="a fraction of the model's context window between 0.1 and 0.95, e.g. 0.7",
            help="Compact the conversation before a run once it fills this fraction of the model's context window.",
        ),
    )
    memory_tokens: int = setting(
        400,
        Entry(
            concern="prompt",
            coerce=as_int_in(0, None),
            example="0",
            allowed="a whole number of tokens, 0 or more (0 leaves memories out of the prompt)",
            help="Most tokens (four characters each) of saved memories that match the task in a run's system prompt.",
        ),
    )
    subscription_chars: int = setting(
        6000,
        Entry(
            concern="prompt",
            coerce=as_subscription_chars,
            example="2000",
            allowed=f"0 (subscriptions left out of the prompt) or a whole number of characters from "
            f"{MIN_SUBSCRIPTION_CHARS}, e.g. 6000",
            help="Most characters of the conversation's subscriptions (files, globs, memory queries) in a run's "
            "system prompt, headings and the cut marker included; 0 leaves them out (they stay subscribed).",
        ),
    )
    embeddings: str = setting(
        "lexical",
        Entry(
            concern="prompt",
            coerce=as_embeddings,
            example="local",
            allowed="'lexical' (the default), 'local' or 'local:NAME' (the embedded model), or an embedding model "
            "of a provider with an OpenAI-compatible endpoint ("
            + ", ".join(f"'{p}:NAME'" for p in EMBEDDING_PROVIDERS)
            + ", e.g. 'openai:text-embedding-3-small'), or a model NAME on the server of base_url",
            help="What turns memories into vectors: lexical (nothing to load), local / local:NAME (the embedded "
            "model), or provider:NAME / a name on base_url's server (an OpenAI-compatible /embeddings endpoint).",
        ),
    )
    daemon: bool = setting(
        False,
        Entry(
            concern="runtime",
            coerce=as_bool,
            example="true",
            allowed=_BOOL,
            help="Start the warm process (chrysalis daemon) when a run finds none, so later runs start fast.",
        ),
    )
    database_url: str | None = setting(
        None,
        Entry(
            concern="runtime",
            coerce=as_database_url,
            example="postgresql://chrysalis@localhost/db",
            allowed="sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DB, e.g. postgresql://chrysalis@localhost/db",
            help="The durable runtime's database: postgresql://... for many workers; unset means SQLite under home.",
        ),
    )
    telemetry: str = setting(
        "off",
        Entry(
            concern="runtime",
            coerce=OneOf(TELEMETRY),
            example="console",
            help="OpenTelemetry spans of runs, steps, model and tool calls: off, console (stderr) or otlp (the "
            "standard OTEL_EXPORTER_OTLP_* variables say where); needs the telemetry extra.",
        ),
    )
    warnings: tuple[str, ...] = field(default=(), compare=False)
    """What the user should know about these settings (keys an untrusted folder's config may not set)."""
    home: Path = field(default_factory=chrysalis_home)
    """Where the stores, traces, keys and model cache live (``$CHRYSALIS_HOME``)."""
    sources: Mapping[str, str] = field(default_factory=dict[str, str], compare=False)
    """For each key, where its value came from (``default``, ``env CHRYSALIS_LEVEL``, a file and line, a flag)."""

    @property
    def db_path(self) -> Path:
        """The SQLite file of all stores."""
        return self.home / DB_FILENAME

    @property
    def traces_path(self) -> Path:
        """The JSONL file every run appends its events to."""
        return self.home / TRACES_FILENAME


ENTRIES: tuple[Entry[Any], ...] = tuple(entry for item in fields(Settings) if (entry := entry_of(item)) is not None)
"""Every setting, in the table's order."""
TABLE: Mapping[str, Entry[Any]] = MappingProxyType({entry.name: entry for entry in ENTRIES})
"""Every setting by name."""
KEYS: tuple[str, ...] = tuple(TABLE)
"""The names of the settings: the keys a config file may set."""


def env_var(key: str) -> str:
    """The environment variable that sets ``key``."""
    return TABLE[key].env
