"""Keep secrets out of what Chrysalis shows the model and writes down: redaction.

A command never sees a provider key (``tools/sandbox_env.py`` filters its environment), but a tool
can still read one: ``cat .env``, ``read_file id_rsa``, a config file with a password. Everything a
tool returns, every event written to traces or printed by ``--json`` and every saved context goes
through a ``Redactor`` first, which replaces each secret with a marker such as
``[REDACTED:openai-key]``. What counts as a secret:

- the value of an environment variable whose name says it holds one (``OPENAI_API_KEY``,
  ``GITHUB_TOKEN``, ``DB_PASSWORD``; see ``env_secrets``), wherever it appears;
- well-known token shapes: OpenAI and Anthropic keys, GitHub and Slack tokens, AWS access key ids,
  Google API keys, JWTs, PEM private key blocks (also cut ones), ``Authorization`` and ``Bearer``
  headers, the password in ``scheme://user:password@host``;
- a value assigned to a secret-sounding name (``API_KEY=...``, ``"password": "..."``,
  ``aws_secret_access_key = ...``), when it looks like a literal rather than code.

One regular expression finds them all. Each of its branches starts with a literal character, so
Python's regex engine skips ahead to the next candidate character in C instead of trying every
branch at every position. The result is a fixed point: redacting twice changes nothing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

__all__ = ["MARKER", "MIN_SECRET_CHARS", "Redactor", "added_markers", "current", "env_secrets", "looks_secret"]

T = TypeVar("T")

MARKER = re.compile(r"\[REDACTED:[A-Za-z0-9_.-]{1,64}\]")
"""What stands in for a secret: ``[REDACTED:openai-key]``, ``[REDACTED:GITHUB_TOKEN]``, ``[REDACTED:secret]``."""
MIN_SECRET_CHARS = 8
"""Shorter values are not treated as secrets: they would match ordinary text everywhere."""

_ENV_FILTER = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_|^SSH_|^GPG_|^CHRYSALIS_")
_VALUE_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|COOKIE|AUTH")
"""Names whose values are redacted: narrower than the filter (``AWS_REGION``, ``CHRYSALIS_MODEL`` are no secrets)."""
_NOT_SECRET = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null", "undefined", "required"})
_PLACEHOLDER_WORDS = ("your", "xxxx", "...", "changeme", "placeholder", "redacted")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
_LINE_START = re.compile(r"(?:[ \t]*\d+\| )?(?:[ \t]*export[ \t]+)?\Z")
"""What may precede ``NAME=value`` for it to be an env file line: a ``read_file`` line number, ``export``.

Not an indentation: an indented ``name=value`` is a keyword argument in code."""
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*\Z")
_KEY_QUALIFIERS = (
    "api",
    "secret",
    "private",
    "access",
    "auth",
    "signing",
    "encryption",
    "master",
    "client",
    "app",
    "license",
    "account",
    "service",
    "session",
    "webhook",
    "deploy",
    "ssh",
)
_SECRET_WORDS = ("token", "secret", "password", "passwd", "passphrase", "pwd", "credential", "credentials", "auth")


def looks_secret(name: str) -> bool:
    """Whether a variable's name says it holds a secret (``*_API_KEY``, ``*_TOKEN``, ``AWS_*``, ...).

    This is the environment filter of commands (``tools/sandbox_env.py``): broad on purpose, it also
    holds back ``AWS_REGION`` and the ``CHRYSALIS_*`` settings. Redaction uses a narrower test.
    """
    return _ENV_FILTER.search(name.upper()) is not None


def env_secrets(environ: Mapping[str, str]) -> dict[str, str]:
    """The values to redact from ``environ``, each mapped to its variable's name.

    A variable counts when its name has ``KEY``, ``TOKEN``, ``SECRET``, ``PASSW``, ``CREDENTIAL``,
    ``PRIVATE``, ``COOKIE`` or ``AUTH`` in it, and its value is at least ``MIN_SECRET_CHARS`` long
    and is not a flag, a number or a path (``SSH_AUTH_SOCK=/tmp/...``).
    """
    found: dict[str, str] = {}
    for name, value in sorted(environ.items()):
        if not _VALUE_NAME.search(name.upper()) or not _plausible_env_value(value):
            continue
        found.setdefault(value, name)
    return found


def _plausible_env_value(value: str) -> bool:
    stripped = value.strip()
    if len(stripped) < MIN_SECRET_CHARS or stripped.lower() in _NOT_SECRET or stripped.isdigit():
        return False
    if stripped.startswith(("/", "./", "../", "~/")) or "REDACTED" in stripped:
        return False
    return not MARKER.search(value)


def _token_value(value: str) -> bool:
    """Whether a header's value is a token, not code (``auth_token``, ``self.token``) or a placeholder."""
    if _DOTTED.match(value) and not any(c.isdigit() for c in value):
        return False
    return not any(word in value.lower() for word in _PLACEHOLDER_WORDS)


def _url_password(value: str) -> bool:
    """Whether a URL's password is one, not the ``user:password@host`` of documentation or a variable."""
    lowered = value.lower()
    if lowered in ("pass", "password", "passwd", "pwd", "pw", "secret") or value.startswith(("$", "{", "<")):
        return False
    return not any(word in lowered for word in _PLACEHOLDER_WORDS)


@dataclass(frozen=True)
class _Branch:
    """One branch of the pattern: its first character (a literal, outside the group) and the rest."""

    label: str
    """The marker's label; ``""`` for an assignment, labelled by what its value looks like."""
    first: str
    rest: str
    kind: Literal["whole", "value", "assign"]
    """Redact the whole match, only its ``v`` group, or the ``v`` group if the assignment holds a secret."""
    check: Callable[[str], bool] | None = None
    """For ``value``: whether the ``v`` group is a secret (not ``auth_token``, not ``user:password@`` in docs)."""


_TOKEN = "[A-Za-z0-9_-]"
_NOT_MARKER = r"(?!\[REDACTED:)"
_QUOTED_OR_BARE = rf"""(?:"{_NOT_MARKER}[^"\s]{{8,}}"|'{_NOT_MARKER}[^'\s]{{8,}}'|[^\s"'`,;(){{}}\[\]<>\\]{{8,}})"""
_PEM_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_LINE_NUMBER = re.compile(r"[ \t]*(?:\d+\|[ \t]?)?")
_KEY_LINE = re.compile(r"[ \t]*(?:\d+\|[ \t]?)?[A-Za-z0-9+/=]+[ \t]*\r?")
_AUTHORIZATION = (
    r"(?i:uthorization)[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?i:bearer|basic|token|digest)[ \t]+)?"
    rf"(?P<v>{_NOT_MARKER}[A-Za-z0-9._~+/=-]{{8,}})"
)
_BEARER = r"(?i:earer)[ \t]+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)"

_BRANCHES = (
    _Branch(
        "private-key",
        "-",
        r"----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)"
        r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        "whole",
    ),
    _Branch(
        "private-key",
        "-",
        r"----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"  # cut short: the lines after
        r"(?:[ \t]*\r?\n(?:[ \t]*\r?\n)?[ \t]*(?:\d+\|[ \t]?)?"
        r"(?:[A-Za-z-]+: [^\n]*|[A-Za-z0-9+/=]+[ \t]*(?=\r?\n|$)))+",
        "whole",
    ),
    _Branch("openai-key", "s", rf"(?<!{_TOKEN}s)k-(?={_TOKEN}*\d){_TOKEN}{{20,}}", "whole"),  # sk-ant-: anthropic-key
    _Branch(
        "github-token", "g", r"(?<![A-Za-z0-9_]g)(?:h[pousr]_[A-Za-z0-9]{36,}|ithub_pat_[A-Za-z0-9_]{22,})", "whole"
    ),
    _Branch("slack-token", "x", rf"(?<!{_TOKEN}x)ox[abeoprs]-[A-Za-z0-9-]{{10,}}", "whole"),
    _Branch("aws-access-key-id", "A", r"(?<![A-Za-z0-9]A)(?:KIA|SIA)[0-9A-Z]{16}(?![A-Za-z0-9])", "whole"),
    _Branch("google-api-key", "A", rf"(?<![A-Za-z0-9]A)Iza{_TOKEN}{{35}}", "whole"),
    _Branch("jwt", "e", rf"(?<!{_TOKEN}e)yJ{_TOKEN}{{8,}}\.eyJ{_TOKEN}{{8,}}\.{_TOKEN}{{8,}}", "whole"),
    _Branch("authorization", "A", r"(?<![A-Za-z0-9]A)" + _AUTHORIZATION, "value", _token_value),
    _Branch("bearer-token", "B", r"(?<![A-Za-z0-9]B)" + _BEARER, "value", _token_value),
    _Branch("bearer-token", "b", r"(?<![A-Za-z0-9]b)" + _BEARER, "value", _token_value),
    _Branch(
        "url-password",
        ":",
        rf"//[^\s:/?#@\"'<>\[\]]{{1,128}}:(?P<v>{_NOT_MARKER}[^\s@/?#\"'<>]{{1,256}})@",
        "value",
        _url_password,
    ),
)
_LABELS = ("secret", "anthropic-key", *sorted({branch.label for branch in _BRANCHES}))


def _assignment_branches() -> list[_Branch]:
    """``NAME = value``, found at its separator: fixed-width lookbehinds check the name's last word.

    The separator is common in code, so a one-character lookbehind on the word's last letter
    (``[yY]`` for key, ...) turns most candidates away before the words are compared.
    """
    words: dict[int, list[str]] = {}
    for word in (*_SECRET_WORDS, "key"):
        words.setdefault(len(word), []).append(word)
    last = "".join(sorted({c for word in (*_SECRET_WORDS, "key") for c in (word[-1], word[-1].upper())}))
    branches: list[_Branch] = []
    for separator, after in (("=", ">?"), (":", "=?")):
        sep = re.escape(separator)
        gaps = []
        for gap in ("", "[\"' \\t]", "[\"'][ \\t]"):
            behind = "|".join(f"(?<=(?i:{'|'.join(group)}){gap}{sep})" for group in words.values())
            gaps.append(f"(?<=[{last}]{gap}{sep})(?:{behind})")
        rest = rf"(?:{'|'.join(gaps)}){after}[ \t]*(?P<v>{_QUOTED_OR_BARE})"
        branches.append(_Branch("", separator, rest, "assign"))
    return branches


_ALL_BRANCHES = (*_BRANCHES, *_assignment_branches())


class Redactor:
    """Replaces secrets in text, and in JSON-like values (dicts, lists, tuples, strings), with markers."""

    def __init__(self, secrets: Mapping[str, str] | None = None) -> None:
        """Find the token shapes, plus each of ``secrets`` (a value -> the label its marker shows).

        Values shorter than ``MIN_SECRET_CHARS`` are ignored; ``env_secrets`` gives the environment's.
        """
        given = secrets or {}
        vocabulary = " ".join(_marker(_label(label)) for label in [*given.values(), *_LABELS])
        self._secrets = {  # a value inside a marker would be redacted again in every pass
            value: label for value, label in given.items() if len(value) >= MIN_SECRET_CHARS and value not in vocabulary
        }
        literal = [
            _Branch(_label(label), value[0], re.escape(value[1:]), "whole")
            for value, label in sorted(self._secrets.items(), key=lambda item: -len(item[0]))
        ]
        self._branches = (*literal, *_ALL_BRANCHES)
        self._pattern = re.compile(
            "|".join(
                f"{re.escape(b.first)}(?P<g{index}>{b.rest.replace('(?P<v>', f'(?P<v{index}>')})"
                for index, b in enumerate(self._branches)
            )
        )

    def text(self, text: str) -> str:
        """``text`` with every secret replaced by its marker (a fixed point: redacting again changes nothing).

        One pass nearly always suffices; another runs after any change, because a marker can
        complete what was not a token before (``x`` + secret + ``sk-...`` leaves ``]sk-...``).
        """
        for _ in range(8):
            redacted = self._pattern.sub(self._replace, text)
            if "PRIVATE KEY" in redacted:
                redacted = _cut_key_tails(redacted)
            if redacted == text:
                break
            text = redacted
        return text

    def value(self, value: T) -> T:
        """``value`` with every string in it redacted: dict keys and values, list and tuple items."""
        return cast(T, self._walk(value, None))

    def _walk(self, value: Any, key: str | None) -> Any:
        if isinstance(value, str):
            if key is not None and _secret_name(key, env_style=False) and _plausible(value, quoted=True):
                return _marker(self._label_of(value))
            return self.text(value)
        if isinstance(value, dict):
            return {self._walk(k, None): self._walk(v, k if isinstance(k, str) else None) for k, v in value.items()}
        if isinstance(value, list):
            return [self._walk(item, None) for item in value]
        if isinstance(value, tuple):
            return tuple(self._walk(item, None) for item in value)
        return value

    def _replace(self, match: re.Match[str]) -> str:
        group = match.lastgroup
        assert group is not None  # every branch is a named group
        rule = self._branches[int(group[1:])]
        if rule.kind == "whole":
            label = "anthropic-key" if match.group().startswith("sk-ant-") else rule.label
            return _marker(label)
        start, end = match.span("v" + group[1:])
        text = match.string
        value = text[start:end]
        label = rule.label
        if rule.check is not None and not rule.check(value):
            return match.group()
        if rule.kind == "assign":
            quoted = value[0] in "\"'"
            if quoted:
                start, end, value = start + 1, end - 1, value[1:-1]
            if not _assigned_secret(text, match.start(), value, quoted=quoted):
                inner = self._pattern.sub(self._replace, value)  # a known token may still hide in it
                return text[match.start() : start] + inner + text[end : match.end()]
            label = self._label_of(value)
        return text[match.start() : start] + _marker(label) + text[end : match.end()]

    def _label_of(self, value: str) -> str:
        """The label of a secret found by its name: the variable it came from, or the token shape, or ``secret``."""
        if value in self._secrets:
            return _label(self._secrets[value])
        found = self._pattern.fullmatch(value)
        if found is not None and found.lastgroup is not None:
            branch = self._branches[int(found.lastgroup[1:])]
            if branch.kind == "whole":
                return "anthropic-key" if value.startswith("sk-ant-") else branch.label
        return "secret"


def _marker(label: str) -> str:
    return f"[REDACTED:{label}]"


def _label(name: str) -> str:
    """A variable's name as a marker label (only the characters a marker may hold)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:64] or "secret"


def _assigned_secret(text: str, separator: int, value: str, *, quoted: bool) -> bool:
    """Whether ``value``, assigned at ``separator`` in ``text``, is a secret literal and not code."""
    end = separator
    if end and text[end - 1] in " \t":
        end -= 1
    if end and text[end - 1] in "\"'":
        end -= 1
    begin = end
    while begin and text[begin - 1] in _NAME_CHARS:
        begin -= 1
    line_start = text.rfind("\n", 0, begin) + 1
    env_style = (
        end == separator
        and text[separator] == "="
        and text[separator + 1 : separator + 2] not in (" ", "\t")
        and _LINE_START.match(text, line_start, begin) is not None
    )
    if not _secret_name(text[begin:end], env_style=env_style):
        return False
    if env_style or quoted:
        return _plausible(value, quoted=quoted and not env_style)
    if text[separator] == ":" and text[separator + 1 : separator + 2] not in (" ", "\t"):
        return False  # ``oauth:token-type:x509``, a URN or a path, not ``password: value``
    if value.isdigit() or not any(c.isdigit() for c in value) or _DOTTED.match(value):
        return False  # code (``api_key = settings.key``), a type annotation, or a number
    return _plausible(value, quoted=False)


def _secret_name(name: str, *, env_style: bool) -> bool:
    """Whether a name says its value is a secret: ``*token``, ``*password``, ``api_key``, not ``sort_key``."""
    lowered = name.lower()
    if lowered.endswith(_SECRET_WORDS):
        return True
    if not lowered.endswith("key"):
        return False
    squashed = re.sub(r"[_.-]", "", lowered)
    return env_style or squashed.endswith(tuple(q + "key" for q in _KEY_QUALIFIERS))


def _plausible(value: str, *, quoted: bool) -> bool:
    """Whether a value could be a secret literal: long enough, not a placeholder, a path or a name."""
    if len(value) < MIN_SECRET_CHARS or value.lower() in _NOT_SECRET or MARKER.search(value):
        return False
    if value.startswith(("$", "<", "{", "[", "(", "^", "\\", "%", "/", "./", "../", "~/", "*")) or "${" in value:
        return False
    if "{{" in value:
        return False
    lowered = value.lower()
    if len(set(value)) <= 2 or any(word in lowered for word in _PLACEHOLDER_WORDS):
        return False
    if quoted and value.isidentifier() and not any(c.isdigit() for c in value):
        return False  # a name (``"OPENAI_API_KEY"``, ``"nextToken"``), not a secret
    return True


def _cut_key_tails(text: str) -> str:
    """Redact the end of a private key whose beginning was cut off (a truncated tool output's tail).

    The key's lines before its ``END`` line go too: each line of base64 (numbered or not) above it.
    """
    for found in reversed(list(_PEM_END.finditer(text))):
        begin = found.start()
        line = text.rfind("\n", 0, begin) + 1
        if _LINE_NUMBER.fullmatch(text, line, begin):  # END starts its line: take the key's lines above too
            begin = line
            while begin:
                above = text.rfind("\n", 0, begin - 1) + 1
                if not _KEY_LINE.fullmatch(text, above, begin - 1):
                    break
                begin = above
        text = text[:begin] + _marker("private-key") + text[found.end() :]
    return text


def added_markers(old: str, new: str) -> list[str]:
    """The markers ``new`` holds more often than ``old``: a write that would put them in a file.

    A model that read a redacted file and writes it back would replace the secret with the marker.
    """
    counts: dict[str, int] = {}
    for found in MARKER.finditer(new):
        counts[found.group()] = counts.get(found.group(), 0) + 1
    return [marker for marker, count in counts.items() if count > old.count(marker)]


def current(environ: Mapping[str, str] | None = None) -> Redactor:
    """The redactor for this process's environment now (``os.environ``), built once per set of secrets."""
    secrets = env_secrets(os.environ if environ is None else environ)
    return _redactor_for(tuple(sorted(secrets.items())))


@functools.lru_cache(maxsize=8)
def _redactor_for(secrets: tuple[tuple[str, str], ...]) -> Redactor:
    return Redactor(dict(secrets))
