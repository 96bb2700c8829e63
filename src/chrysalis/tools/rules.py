"""Permission rules from config, in Claude Code's syntax: ``TOOL`` or ``TOOL(SPECIFIER)``.

    shell(pytest:*)            a command that starts with the word ``pytest``
    shell(git status)          exactly ``git status``
    write_file(docs/**)        writes under docs/ (a glob against the paths the call writes)
    read_file(*.env)           reads of .env files (a glob against the ``path`` argument)
    web_fetch(domain:pypi.org) fetches from that host (and its subdomains)
    git_commit, *              a whole tool; every tool

A shell command is split at its operators (``;``, ``&&``, ``||``, ``|``, ``&``, newlines) and
judged part by part: a deny rule matches if any part matches, an allow rule only if every part
does, and never a command with substitutions or redirections (``$(…)``, backticks, ``>``, ``<``),
whose effect no prefix can tell. So ``shell(pytest:*)`` allows ``pytest -q`` and ``pytest && pytest
tests/a``, and not ``pytest; rm -rf ~`` or ``pytest > /etc/passwd``.
"""

from __future__ import annotations

import fnmatch
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal
from urllib.parse import urlsplit

from chrysalis.config import split_rule
from chrysalis.tools.base import ToolSpec
from chrysalis.tools.egress import host_matches

__all__ = ["Action", "Rule", "command_parts"]

Action = Literal["allow", "ask", "deny"]
_OPERATOR_CHARS = frozenset(";&|\n")
_OPAQUE = ("$(", "`", "<(", ">(", ">", "<")
"""What makes a command's effect unknowable from its words: never allowed by a prefix rule."""


@dataclass(frozen=True)
class Rule:
    """One permission rule and where it came from (shown in every decision it makes)."""

    action: Action
    tool: str
    specifier: str | None
    source: str

    @classmethod
    def parse(cls, text: str, action: Action, source: str) -> Rule:
        """Read ``TOOL`` or ``TOOL(SPECIFIER)``.

        Raises:
            ValueError: not that shape, or an empty specifier.
        """
        tool, specifier = split_rule(text)
        return cls(action, tool, specifier, source)

    def __str__(self) -> str:
        return self.tool + (f"({self.specifier})" if self.specifier is not None else "")

    def matches(self, tool: ToolSpec, args: Any) -> bool:
        """Whether this rule covers a call of ``tool`` with validated ``args``."""
        if self.tool not in ("*", tool.name):
            return False
        if self.specifier is None:
            return True
        if tool.effect == "shell" and hasattr(args, "command"):
            return self._matches_command(str(args.command))
        if self.specifier.startswith("domain:") and hasattr(args, "url"):
            return _host_matches(str(args.url), self.specifier.removeprefix("domain:"))
        return any(_glob_matches(path, self.specifier) for path in _paths_of(tool, args))

    def _matches_command(self, command: str) -> bool:
        parts = command_parts(command)
        if parts is None:  # cannot be read: deny rules assume the worst, allow rules the opposite
            return self.action == "deny"
        if self.action == "allow" and (any(mark in command for mark in _OPAQUE) or not parts):
            return False
        hits = [_command_matches(part, self.specifier or "") for part in parts]
        return all(hits) if self.action == "allow" else any(hits)


def command_parts(command: str) -> list[str] | None:
    """The simple commands of ``command`` (split at shell operators), or None if it does not tokenize."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    parts: list[list[str]] = [[]]
    try:
        for token in lexer:
            if set(token) <= _OPERATOR_CHARS:
                parts.append([])
            else:
                parts[-1].append(token)
    except ValueError:  # an unclosed quote
        return None
    return [" ".join(words) for words in parts if words]


def _command_matches(command: str, specifier: str) -> bool:
    if specifier.endswith(":*"):
        prefix = specifier[:-2].strip()
        return command == prefix or command.startswith(prefix + " ")
    return command == " ".join(specifier.split())


def _paths_of(tool: ToolSpec, args: Any) -> list[str]:
    paths = list(tool.write_targets(args))
    for name in ("path", "file"):
        value = getattr(args, name, None)
        if isinstance(value, str):
            paths.append(value)
    return paths


def _glob_matches(path: str, pattern: str) -> bool:
    pure = str(PurePosixPath(path.replace("\\", "/")))
    pure = pure.removeprefix("./")
    if "/" not in pattern.rstrip("/*"):  # a bare name pattern (*.env) matches the file name anywhere
        return fnmatch.fnmatch(PurePosixPath(pure).name, pattern) or fnmatch.fnmatch(pure, pattern)
    return fnmatch.fnmatch(pure, pattern) or (pattern.endswith("/**") and pure.startswith(pattern[:-3] + "/"))


def _host_matches(url: str, domain: str) -> bool:
    return host_matches(urlsplit(url).hostname or "", domain)
