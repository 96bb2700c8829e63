"""The merge: defaults < ``$CHRYSALIS_HOME/config.toml`` < ``WORKSPACE/.chrysalis/config.toml`` < env < flags.

Every value keeps the source it came from, and every value is checked by its entry's parser, so a bad
one is a ``ConfigError`` naming the file and line, the variable or the flag, and what is allowed.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from chrysalis.config.choices import EMBEDDING_PROVIDERS
from chrysalis.config.coerce import without_password
from chrysalis.config.flags import SettingFlags
from chrysalis.config.narrowing import NARROWS
from chrysalis.config.settings import ENTRIES, KEYS, TABLE, Settings, chrysalis_home
from chrysalis.config.untrusted import withhold_untrusted
from chrysalis.errors import ConfigError
from chrysalis.trust import TRUST_KEY, is_trusted, trusted_folders

__all__ = ["coerce_value", "load_settings"]

_Raw = dict[str, tuple[Any, str]]
"""Settings as read: key -> (value, where it came from)."""


def load_settings(
    flags: SettingFlags | Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge defaults, user config, project config, environment and flags into ``Settings``.

    ``flags`` holds only the flags the user actually gave (a mapping is read with ``SettingFlags.from_mapping``,
    ``None`` values ignored); ``environ`` is ``os.environ`` unless given.
    Raises ``ConfigError`` naming the file, line, key and allowed values for any bad input.
    """
    env = dict(os.environ if environ is None else environ)
    given = _as_flags(flags).given()
    home = chrysalis_home(env)
    user = _read_toml(home / "config.toml", user_config=True)
    trusted = trusted_folders(*user.pop(TRUST_KEY)) if TRUST_KEY in user else []
    workspace = _early_workspace(given, env)
    project = _read_toml(workspace / ".chrysalis" / "config.toml")
    warnings: list[str] = []
    if project and not is_trusted(workspace, trusted):
        baseline = {key: coerce_value(key, *user[key]) if key in user else getattr(Settings, key) for key in NARROWS}
        project, withheld = withhold_untrusted(project, baseline)
        if withheld:
            warnings.append(
                f"{workspace} is not a trusted folder, so its config may not set: {'; '.join(withheld)}. "
                "These are ignored. Run `chrysalis trust` there if you trust this repository."
            )
    from_env = {key: (env[TABLE[key].env], f"env {TABLE[key].env}") for key in KEYS if TABLE[key].env in env}
    from_flags = {key: (value, f"flag {TABLE[key].flag}") for key, value in given.items()}
    here = {"workspace": (str(workspace), "default (current folder)")}
    values, sources = _merge((here, user, project, from_env, from_flags))
    _check_embeddings(values, sources)
    sources["home"] = "env CHRYSALIS_HOME" if "CHRYSALIS_HOME" in env else "default"
    return Settings(**values, warnings=tuple(warnings), home=home, sources=sources)


def _as_flags(flags: SettingFlags | Mapping[str, Any] | None) -> SettingFlags:
    return flags if isinstance(flags, SettingFlags) else SettingFlags.from_mapping(flags or {})


def _early_workspace(flags: Mapping[str, Any], env: Mapping[str, str]) -> Path:
    """The workspace must be known before its project config can be read."""
    raw = flags.get("workspace") or env.get(TABLE["workspace"].env)
    return Path(str(raw)).expanduser().resolve() if raw else Path.cwd()


def _merge(layers: tuple[_Raw, ...]) -> tuple[dict[str, Any], dict[str, str]]:
    """Each setting's typed value and its source: the highest layer's, or every layer's added up for an ``adds`` one.

    Only settings some layer sets have a value; the others keep their default (and the source ``default``).
    """
    values: dict[str, Any] = {}
    sources = dict.fromkeys(KEYS, "default")
    for entry in ENTRIES:
        found = [raw[entry.name] for raw in layers if entry.name in raw]
        if not found:
            continue
        if entry.adds:  # permission rules: all are kept (deny wins anyway), each naming its own source
            values[entry.name] = tuple(
                (*rule[:2], source) for value, source in found for rule in coerce_value(entry.name, value, source)
            )
            sources[entry.name] = ", ".join(dict.fromkeys(source for _, source in found))
        else:
            values[entry.name] = coerce_value(entry.name, *found[-1])
            sources[entry.name] = found[-1][1]
    return values, sources


def _read_toml(path: Path, *, user_config: bool = False) -> _Raw:
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
    result: _Raw = {}
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


def _line_of(text: str, key: str) -> int:
    match = re.search(rf"^[ \t]*(?:{re.escape(key)}[ \t]*=|\[{re.escape(key)}\])", text, flags=re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def coerce_value(key: str, value: Any, source: str) -> Any:
    """``value`` for the setting ``key`` in its typed form, checked as a flag or config line would be.

    The loader checks every value so; so do callers that take settings from elsewhere (the HTTP service's
    request body, with ``source`` such as ``"request field 'level'"``, the REPL's ``/level``), so they
    refuse a bad value with the same words and allowed values.

    Raises:
        ConfigError: the value is not allowed (the message names ``source``, the key and the allowed values).
    """
    entry = TABLE[key]
    try:
        return entry.coerce(value)
    except (TypeError, ValueError) as exc:
        detail = f" ({exc})" if str(exc) else ""
        shown = without_password(value) if isinstance(value, str) else value
        raise ConfigError(f"{source}: bad value {shown!r} for {key!r}{detail}. Allowed: {entry.allowed}.") from exc


def _check_embeddings(values: Mapping[str, Any], sources: Mapping[str, str]) -> None:
    """A model name without a known provider is a model on ``base_url``'s server, so it needs ``base_url``."""
    spec = values.get("embeddings")
    if spec is None or spec in ("lexical", "local") or values.get("base_url"):
        return
    if spec.partition(":")[0] in ("local", *EMBEDDING_PROVIDERS):
        return
    raise ConfigError(
        f"{sources['embeddings']}: bad value {spec!r} for 'embeddings' (no provider, and no base_url to send it to). "
        f"Allowed: {TABLE['embeddings'].allowed}."
    )
