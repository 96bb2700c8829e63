"""Settings, merged from four sources, each value remembering where it came from.

Precedence, highest first: command-line flags > environment (``CHRYSALIS_*``) > the workspace's
``.chrysalis/config.toml`` > ``$CHRYSALIS_HOME/config.toml`` > built-in defaults. Remembering the
source of every value is what lets ``chrysalis config show`` answer "why is this set?", and lets a
bad value's error name the exact file, line and key to fix.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast, get_args

from chrysalis.errors import ConfigError
from chrysalis.trust import TRUST_KEY, is_trusted, trusted_folders, withhold_untrusted

__all__ = [
    "DB_FILENAME",
    "DEFAULT_MODEL",
    "EMBEDDING_PROVIDERS",
    "LEVEL_NAMES",
    "MIN_SUBSCRIPTION_CHARS",
    "MODES",
    "PROFILES",
    "TOOL_PROFILES",
    "TRACES_FILENAME",
    "Mode",
    "Settings",
    "chrysalis_home",
    "coerce_value",
    "load_settings",
    "split_rule",
]

Mode = Literal["ask", "architect", "code", "semantic"]
MODES: tuple[str, ...] = get_args(Mode)
TELEMETRY: tuple[str, ...] = ("off", "console", "otlp")
"""Where run spans go (``Settings.telemetry``)."""
DEFAULT_MODEL = "local:qwen2.5-coder-1.5b"
EMBEDDING_PROVIDERS = ("openai", "openrouter", "ollama")
"""The ``provider:`` prefixes the ``embeddings`` setting accepts: those that speak OpenAI's ``/embeddings``."""
PRIORITY_KEYWORDS = ("fast", "cheap", "best", "verbose", "compact")
MIN_SUBSCRIPTION_CHARS = 1000
"""The smallest ``subscription_chars`` other than 0: a heading, a little content and the cut marker."""
LEVEL_NAMES = {0: "read-only", 1: "sandboxed read", 2: "write", 3: "shell"}
"""The security levels (seed 000); ``chrysalis.tools.policy`` says what each allows."""
TOOL_PROFILES: dict[str, tuple[str, ...] | None] = {
    "all": None,
    "coder": ("read_file", "list_dir", "grep", "edit_file", "write_file", "run_tests"),
    "editor": ("read_file", "list_dir", "find", "grep", "edit_file", "write_file", "apply_patch"),
    "researcher": ("read_file", "list_dir", "find", "grep", "web_search", "web_fetch"),
    "vcs": ("git_status", "git_diff", "git_log", "git_commit"),
}
"""Named tool sets (seed 000's sub-agent profiles), by tool name; ``None`` means every built-in tool."""
PROFILES = ("auto", *TOOL_PROFILES)
"""What the ``profile`` setting accepts: a tool profile, or ``auto`` (learned; ``coder`` for local models)."""
DB_FILENAME = "chrysalis.db"
"""The SQLite file of every store, in ``$CHRYSALIS_HOME``."""
TRACES_FILENAME = "traces.jsonl"
"""The JSONL file every run appends its events to, in ``$CHRYSALIS_HOME``."""
PERMISSION_ACTIONS = ("allow", "ask", "deny")
_RULE_SYNTAX = re.compile(r"^\s*(?P<tool>[A-Za-z_][\w.-]*|\*)\s*(?:\((?P<spec>.*)\))?\s*$", re.DOTALL)


def split_rule(text: Any) -> tuple[str, str | None]:
    """A permission rule ``TOOL`` or ``TOOL(SPECIFIER)`` as (tool, specifier); ``chrysalis.tools.rules`` applies it.

    Raises:
        ValueError: not that shape, or an empty specifier.
    """
    match = _RULE_SYNTAX.match(text) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f"{text!r} is not a rule: write TOOL or TOOL(SPECIFIER), e.g. 'shell(pytest:*)'")
    spec = match["spec"]
    if spec is not None and not spec.strip():
        raise ValueError(f"{text!r} has an empty specifier: drop the parentheses to match the whole tool")
    return match["tool"], spec.strip() if spec is not None else None


def chrysalis_home(environ: Mapping[str, str] | None = None) -> Path:
    """The user's Chrysalis folder: ``$CHRYSALIS_HOME``, or ``~/.chrysalis``."""
    env = os.environ if environ is None else environ
    raw = env.get("CHRYSALIS_HOME")
    return Path(raw).expanduser() if raw else Path.home() / ".chrysalis"


@dataclass(frozen=True)
class Settings:
    """The effective settings of one run; ``sources`` says where each value came from."""

    model: str = DEFAULT_MODEL
    """Which model to use, as ``provider:name`` (``local:``, ``openai:``, ``anthropic:``, ...), or ``auto``."""
    auto_models: tuple[str, ...] = ()
    """The models ``model = "auto"`` chooses among; empty means the local default plus each keyed provider."""
    base_url: str | None = None
    """An OpenAI-compatible server to send requests to (then ``model``'s name is passed as is)."""
    mode: Mode = "code"
    """What work is allowed: ``ask`` (no writes), ``architect`` (plans and docs only), ``code``, ``semantic``."""
    level: int = 2
    """Security level, 0 to 3 (``LEVEL_NAMES``): what the agent may do; ``chrysalis.tools.policy`` decides."""
    priority: str = "best"
    """What matters now: fast, cheap, best, verbose, compact, or a sentence."""
    budget: float | None = None
    """Most USD a run may spend; ``None`` for no limit (local models cost 0)."""
    timeout: float | None = 900.0
    """Seconds a run may take before it stops with a clear reason; ``None`` for no limit."""
    max_steps: int = 30
    """Most model requests a run may make."""
    workspace: Path = field(default_factory=Path.cwd)
    """The folder the agent works in; no path may escape it."""
    yes: bool = False
    """Approve, without asking, every action the security level allows."""
    test_command: str | None = None
    """How to run the project's tests (the run_tests tool); unset means detect it from the project files."""
    profile: str = "auto"
    """Which tools the model is offered: all, coder, editor, researcher, vcs; ``auto`` = coder for local models."""
    protect_tests: bool = True
    """Refuse edits to test files, so the agent fixes code instead of weakening tests."""
    sandbox_network: bool = False
    """Let commands in the sandbox use the network (``chrysalis.tools.sandbox``); off by default."""
    unsafe_no_sandbox: bool = False
    """Where no sandbox works, run commands unconfined instead of refusing them (``--unsafe-no-sandbox``)."""
    judge: str | None = None
    """A model that labels each command ``[SAFE]`` or ``[UNSAFE]`` before it runs (seed 000's judge); off when unset."""
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict[str, tuple[float, float]])
    """USD per million (input, output) tokens for models with no known price (``[prices]`` in config)."""
    daemon: bool = False
    """Start the warm process (``chrysalis daemon``) when a run finds none, so later runs start fast."""
    database_url: str | None = None
    """The durable runtime's database: ``postgresql://...`` for many workers; unset means SQLite under ``home``."""
    memory_tokens: int = 400
    """Most tokens (four characters each) of saved memories that match the task in a run's system prompt; 0 for none."""
    subscription_chars: int = 6000
    """Most characters of the conversation's subscriptions (files, globs, memory queries) in a run's system prompt,
    headings and the cut marker included; 0 leaves them out (they stay subscribed)."""
    embeddings: str = "lexical"
    """What turns memories into vectors: ``lexical`` (nothing to load), ``local`` / ``local:NAME`` (the embedded
    model), or ``provider:NAME`` / a name on ``base_url``'s server (an OpenAI-compatible ``/embeddings`` endpoint)."""
    permissions: tuple[tuple[str, str, str], ...] = ()
    """Permission rules as (action, rule, source), from every config file, env and flags together."""
    compact_at: float = 0.7
    """Compact the conversation before a run once it fills this fraction of the model's context window."""
    telemetry: str = "off"
    """OpenTelemetry spans of runs, steps, model and tool calls: ``off``, ``console`` (stderr) or ``otlp``
    (the standard ``OTEL_EXPORTER_OTLP_*`` variables say where); needs the ``telemetry`` extra."""
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


# Keys a user may set, with the environment variable that sets each.
KEYS: tuple[str, ...] = (
    "model",
    "base_url",
    "mode",
    "level",
    "priority",
    "budget",
    "timeout",
    "max_steps",
    "workspace",
    "yes",
    "protect_tests",
    "profile",
    "test_command",
    "auto_models",
    "prices",
    "daemon",
    "permissions",
    "sandbox_network",
    "unsafe_no_sandbox",
    "judge",
    "database_url",
    "telemetry",
    "compact_at",
    "memory_tokens",
    "subscription_chars",
    "embeddings",
)
_ALLOWED: dict[str, str] = {
    "model": "a 'provider:name' string such as 'local:qwen2.5-coder-1.5b' or 'openai:gpt-4o-mini', or 'auto'",
    "auto_models": 'a list of \'provider:name\' models such as ["local:qwen2.5-coder-1.5b", "openai:gpt-4o-mini"]'
    " (in the environment: comma-separated); empty for the default",
    "base_url": "an http(s) URL such as 'http://127.0.0.1:8080/v1'",
    "database_url": "sqlite:///PATH or postgresql://USER:PASSWORD@HOST/DB, e.g. postgresql://chrysalis@localhost/db",
    "mode": "one of " + ", ".join(MODES),
    "level": "an integer from 0 to 3 (" + ", ".join(f"{n} {name}" for n, name in LEVEL_NAMES.items()) + ")",
    "priority": "one of " + ", ".join(PRIORITY_KEYWORDS) + ", or a sentence",
    "budget": "a non-negative number of USD",
    "timeout": "a positive number of seconds",
    "max_steps": "a positive integer",
    "memory_tokens": "a whole number of tokens, 0 or more (0 leaves memories out of the prompt)",
    "subscription_chars": f"0 (subscriptions left out of the prompt) or a whole number of characters from "
    f"{MIN_SUBSCRIPTION_CHARS}, e.g. 6000",
    "embeddings": "'lexical' (the default), 'local' or 'local:NAME' (the embedded model), or an embedding model "
    "of a provider with an OpenAI-compatible endpoint ("
    + ", ".join(f"'{p}:NAME'" for p in EMBEDDING_PROVIDERS)
    + ", e.g. 'openai:text-embedding-3-small'), or a model NAME on the server of base_url",
    "workspace": "an existing folder",
    "yes": "true or false",
    "protect_tests": "true or false",
    "profile": "one of " + ", ".join(PROFILES),
    "test_command": "a shell command such as 'python -m pytest -q'",
    "daemon": "true or false",
    "telemetry": "one of " + ", ".join(TELEMETRY),
    "compact_at": "a fraction of the model's context window between 0.1 and 0.95, e.g. 0.7",
    "sandbox_network": "true or false",
    "unsafe_no_sandbox": "true or false",
    "judge": "a 'provider:name' model such as 'openai:gpt-4o-mini' or 'local:qwen2.5-coder-1.5b', or 'off'",
    "permissions": "a table [permissions] with lists allow, ask and deny of rules such as 'shell(pytest:*)' or "
    "'write_file(docs/**)' (in the environment: the same as JSON)",
    "prices": 'a table of USD per million tokens per model, e.g. [prices] "my-model" = { input = 0.5, output = 1.5 }'
    " (in the environment: the same as JSON)",
}


def env_var(key: str) -> str:
    """The environment variable that sets ``key``."""
    return "CHRYSALIS_" + key.upper()


def load_settings(
    flags: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge defaults, user config, project config, environment and flags into ``Settings``.

    ``flags`` holds only the flags the user actually gave (``None`` values are ignored).
    Raises ``ConfigError`` naming the file, line, key and allowed values for any bad input.
    """
    env = dict(os.environ if environ is None else environ)
    given_flags = {k: v for k, v in (flags or {}).items() if v is not None}
    home = chrysalis_home(env)
    raw: dict[str, tuple[Any, str]] = {}
    rules: list[tuple[str, str, str]] = []  # permissions add up across sources instead of replacing each other
    user_file = home / "config.toml"
    user = _read_toml(user_file, user_config=True)
    trusted = trusted_folders(*user.pop(TRUST_KEY)) if TRUST_KEY in user else []
    _merge(raw, user, rules)
    workspace = _early_workspace(given_flags, env)
    project = _read_toml(workspace / ".chrysalis" / "config.toml")
    warnings: list[str] = []
    if project and not is_trusted(workspace, trusted):
        baseline = _coerce("level", *raw["level"]) if "level" in raw else Settings.level
        project, withheld = withhold_untrusted(project, baseline)
        if withheld:
            warnings.append(
                f"{workspace} is not a trusted folder, so its config may not set: {'; '.join(withheld)}. "
                "These are ignored. Run `chrysalis trust` there if you trust this repository."
            )
    _merge(raw, project, rules)
    _merge(raw, {k: (env[env_var(k)], f"env {env_var(k)}") for k in KEYS if env_var(k) in env}, rules)
    _merge(raw, {k: (v, f"flag --{k.replace('_', '-')}") for k, v in given_flags.items()}, rules)
    raw.setdefault("workspace", (str(workspace), "default (current folder)"))
    values = {key: _coerce(key, value, source) for key, (value, source) in raw.items()}
    _check_embeddings(values, raw)
    sources = {key: raw[key][1] if key in raw else "default" for key in KEYS}
    sources["home"] = "env CHRYSALIS_HOME" if "CHRYSALIS_HOME" in env else "default"
    return Settings(**values, permissions=tuple(rules), warnings=tuple(warnings), home=home, sources=sources)


def _early_workspace(flags: Mapping[str, Any], env: Mapping[str, str]) -> Path:
    """The workspace must be known before its project config can be read."""
    raw = flags.get("workspace") or env.get(env_var("workspace"))
    return Path(str(raw)).expanduser().resolve() if raw else Path.cwd()


_Raw = dict[str, tuple[Any, str]]
"""Settings as read: key -> (value, where it came from)."""


def _merge(into: _Raw, new: Mapping[str, tuple[Any, str]], rules: list[tuple[str, str, str]]) -> None:
    """Later sources replace earlier ones, except permission rules, which are all kept (deny wins anyway)."""
    for key, (value, source) in new.items():
        if key == "permissions":
            rules.extend(_as_rules(value, source))
        else:
            into[key] = (value, source)


def _read_toml(path: Path, *, user_config: bool = False) -> dict[str, tuple[Any, str]]:
    """Read one config file into ``{key: (value, "file:line")}``; unknown keys are errors.

    ``trusted_folders`` is read only from the user's own config: a repository cannot trust itself.
    """
    if not path.is_file():
        return {}
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}). Save it as UTF-8.") from exc
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror or exc}).") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc}). Fix the syntax or delete the file.") from exc
    except RecursionError as exc:  # tomllib recurses once per nested array or inline table
        raise ConfigError(f"{path}: values are nested too deeply to read. Fix the file or delete it.") from exc
    result: dict[str, tuple[Any, str]] = {}
    for key, value in data.items():
        line = _line_of(text, key)
        if key == TRUST_KEY and not user_config:
            raise ConfigError(
                f"{path}:{line}: {TRUST_KEY} can only be set in $CHRYSALIS_HOME/config.toml "
                "(with `chrysalis trust`), not in a project's config."
            )
        if key not in KEYS and key != TRUST_KEY:
            raise ConfigError(f"{path}:{line}: unknown key {key!r}. Allowed keys: {', '.join(KEYS)}.")
        result[key] = (value, f"{path}:{line}")
    return result


def _as_rules(value: Any, source: str) -> list[tuple[str, str, str]]:
    """``{"allow": [...], "ask": [...], "deny": [...]}`` (a TOML table, or JSON from the environment) as rules."""
    try:
        table = json.loads(value) if isinstance(value, str) else value
        if not isinstance(table, dict) or set(table) - set(PERMISSION_ACTIONS):
            raise ValueError("use the lists allow, ask and deny")
        rules: list[tuple[str, str, str]] = []
        for action, texts in table.items():
            if not isinstance(texts, list):
                raise ValueError(f"{action} must be a list of rules")
            for text in texts:
                split_rule(text)
                rules.append((action, text, source))
    except ValueError as exc:
        raise ConfigError(
            f"{source}: bad value {value!r} for 'permissions' ({exc}). Allowed: {_ALLOWED['permissions']}."
        ) from exc
    return rules


def _line_of(text: str, key: str) -> int:
    match = re.search(rf"^[ \t]*(?:{re.escape(key)}[ \t]*=|\[{re.escape(key)}\])", text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _coerce(key: str, value: Any, source: str) -> Any:
    """Turn a raw value (TOML value, env string or flag) into its typed form, or explain why not."""
    try:
        return _COERCERS[key](value)
    except (TypeError, ValueError) as exc:
        detail = f" ({exc})" if str(exc) else ""
        shown = without_password(value) if isinstance(value, str) else value
        raise ConfigError(f"{source}: bad value {shown!r} for {key!r}{detail}. Allowed: {_ALLOWED[key]}.") from exc


def coerce_value(key: str, value: Any, source: str) -> Any:
    """``value`` for the setting ``key`` in its typed form, checked as a flag or config line would be.

    For callers that take settings from elsewhere (the HTTP service's request body, with ``source``
    such as ``"request field 'level'"``), so they refuse a bad value with the same words and allowed values.

    Raises:
        ConfigError: the value is not allowed (the message names ``source``, the key and the allowed values).
    """
    return _coerce(key, value, source)


_URL_PASSWORD = re.compile(r"(://[^/:@\s]*:)[^/@\s]*@")
"""The password in ``scheme://user:password@host``: never echoed in an error message."""


def without_password(text: str) -> str:
    """``text`` with the password of any ``scheme://user:password@host`` in it shown as ``***``."""
    return _URL_PASSWORD.sub(r"\1***@", text)


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise ValueError("")


def _as_int_in(low: int, high: int | None) -> Any:
    def convert(value: Any) -> int:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError("")
        number = int(value)
        if number < low or (high is not None and number > high):
            raise ValueError("")
        return number

    return convert


def _as_subscription_chars(value: Any) -> int:
    """0, or enough characters for the section's heading, one item and the cut marker."""
    number = int(_as_int_in(0, None)(value))
    if 0 < number < MIN_SUBSCRIPTION_CHARS:
        raise ValueError("")
    return number


def _as_fraction(low: float, high: float) -> Any:
    def convert(value: Any) -> float:
        if isinstance(value, bool):
            raise ValueError("")
        number = float(value)
        if not low <= number <= high:
            raise ValueError("")
        return number

    return convert


def _as_optional_float(minimum: float, *, strict: bool) -> Any:
    def convert(value: Any) -> float | None:
        if isinstance(value, str) and value.strip().lower() in ("", "none", "off"):
            return None
        if isinstance(value, bool):
            raise ValueError("")
        number = float(value)
        if number < minimum or (strict and number == minimum):
            raise ValueError("")
        return number

    return convert


def _as_model(value: Any) -> str:
    # A bare name (no 'provider:') is allowed: it means an OpenAI-compatible server given by base_url.
    text = str(value).strip()
    if not text or text.startswith(":") or text.endswith(":"):
        raise ValueError("empty provider or name")
    return text


def _as_judge(value: Any) -> str | None:
    """A model for the security judge, or ``off`` / an empty string for none."""
    text = str(value).strip()
    return None if text.lower() in ("", "off", "none", "false") else _as_model(text)


def _as_model_list(value: Any) -> tuple[str, ...]:
    """A TOML list, a list from Python, or a comma-separated string (environment); duplicates dropped."""
    if isinstance(value, str):
        entries: list[Any] = [part for part in value.split(",") if part.strip()]
    elif isinstance(value, list | tuple):
        entries = list(value)
    else:
        raise ValueError("not a list")
    models: list[str] = []
    for entry in entries:
        text = str(entry).strip() if isinstance(entry, str) else ""
        if not text or text.startswith(":") or text.endswith(":") or text == "auto":
            raise ValueError(f"entry {entry!r} is not a 'provider:name' model")
        if text not in models:
            models.append(text)
    return tuple(models)


def _as_embeddings(value: Any) -> str:
    """``lexical``, ``local``, ``local:NAME``, ``provider:NAME``, or a bare name (checked against base_url later)."""
    text = value.strip() if isinstance(value, str) else ""
    if text.lower() in ("lexical", "local"):
        return text.lower()
    prefix, sep, name = text.partition(":")
    if not text or (sep and not (prefix.strip() and name.strip())):
        raise ValueError("empty provider or name")
    if prefix == "anthropic":
        raise ValueError("Anthropic has no embeddings endpoint")
    return text


def _check_embeddings(values: Mapping[str, Any], raw: _Raw) -> None:
    """A model name without a known provider is a model on ``base_url``'s server, so it needs ``base_url``."""
    spec = values.get("embeddings")
    if spec is None or spec in ("lexical", "local") or values.get("base_url"):
        return
    if spec.partition(":")[0] in ("local", *EMBEDDING_PROVIDERS):
        return
    raise ConfigError(
        f"{raw['embeddings'][1]}: bad value {spec!r} for 'embeddings' (no provider, and no base_url to send it to). "
        f"Allowed: {_ALLOWED['embeddings']}."
    )


def _as_url(value: Any) -> str | None:
    text = str(value).strip()
    if not text:
        return None
    if not re.match(r"^https?://[^\s/]+", text):
        raise ValueError("")
    return text.rstrip("/")


def _as_database_url(value: Any) -> str | None:
    text = str(value).strip()
    if not text:
        return None
    if not re.match(r"^(sqlite|postgresql)(\+\w+)?://", text):
        raise ValueError("")
    return text


def _as_mode(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in MODES:
        raise ValueError("")
    return text


def _as_priority(value: Any) -> str:
    text = str(value).strip()
    if not text:
        raise ValueError("empty")
    return text


def _as_command(value: Any) -> str | None:
    text = str(value).strip()
    return text or None


def _as_telemetry(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in TELEMETRY:
        raise ValueError("")
    return text


def _as_profile(value: Any) -> str:
    text = str(value).strip().lower()
    if text not in PROFILES:
        raise ValueError("")
    return text


def _as_prices(value: Any) -> dict[str, tuple[float, float]]:
    """``{model: {input = USD, output = USD}}`` per million tokens; a JSON string from the environment."""
    if isinstance(value, str):
        value = json.loads(value)
    if not isinstance(value, dict):
        raise ValueError("not a table")
    prices: dict[str, tuple[float, float]] = {}
    for model, price in cast(dict[str, Any], value).items():
        if not isinstance(price, dict) or set(cast(dict[str, Any], price)) != {"input", "output"}:
            raise ValueError(f"{model!r} needs exactly 'input' and 'output'")
        pair = (float(price["input"]), float(price["output"]))
        if min(pair) < 0:
            raise ValueError(f"{model!r} has a negative price")
        prices[str(model)] = pair
    return prices


def _as_workspace(value: Any) -> Path:
    path = Path(str(value)).expanduser().resolve()
    if not path.is_dir():
        raise ValueError("no such folder")
    return path


_COERCERS: dict[str, Any] = {
    "daemon": _as_bool,
    "model": _as_model,
    "auto_models": _as_model_list,
    "base_url": _as_url,
    "database_url": _as_database_url,
    "mode": _as_mode,
    "level": _as_int_in(0, 3),
    "priority": _as_priority,
    "budget": _as_optional_float(0.0, strict=False),
    "timeout": _as_optional_float(0.0, strict=True),
    "max_steps": _as_int_in(1, None),
    "memory_tokens": _as_int_in(0, None),
    "subscription_chars": _as_subscription_chars,
    "embeddings": _as_embeddings,
    "workspace": _as_workspace,
    "yes": _as_bool,
    "protect_tests": _as_bool,
    "sandbox_network": _as_bool,
    "unsafe_no_sandbox": _as_bool,
    "judge": _as_judge,
    "profile": _as_profile,
    "test_command": _as_command,
    "prices": _as_prices,
    "telemetry": _as_telemetry,
    "compact_at": _as_fraction(0.1, 0.95),
}
