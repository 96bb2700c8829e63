"""Read the front matter of a SKILL.md: a strict subset of YAML that keeps the line of every key.

A SKILL.md starts with ``---``, a few ``key: value`` lines and another ``---``. Other tools read the
same files with a full YAML parser, so this reader refuses what YAML would refuse (a plain value
holding ``": "``, tabs for indentation, an unclosed quote) instead of guessing, and says on which
line. It reads plain, single- and double-quoted values, ``|`` and ``>`` blocks (with ``-``/``+``),
values folded over indented lines, and comments; a key with only an indented block under it (a
``metadata:`` map, a list) keeps that block as text, which is enough because only ``name`` and
``description`` are interpreted. Why not PyYAML: lint messages need the line of each key (YAML
loaders drop it), and a dependency for ten lines of a file is not worth its weight.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["FrontMatter", "FrontMatterError", "FrontMatterField", "split_front_matter"]

_FENCE = "---"
_KEY = re.compile(r"(?P<key>[A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(?P<value>.*?))?[ \t]*\Z")
_BLOCK_HEADER = re.compile(r"(?P<style>[|>])(?P<chomp>[+-]?)[ \t]*(?:#.*)?\Z")
_COMMENT = re.compile(r"[ \t]+#.*\Z")
_RESERVED_START = ("@", "`", "&", "*", "!", "%", "]", "}", ",", "- ", "? ")
"""Characters that cannot start a plain YAML value, or start what this reader does not read (anchors, tags)."""


class FrontMatterError(ValueError):
    """The front matter cannot be read; ``line`` is the file's line (1-based) where the problem is."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass(frozen=True)
class FrontMatterField:
    """One key's value and the line the key is on."""

    value: str
    line: int


@dataclass(frozen=True)
class FrontMatter:
    """What a file's front matter says, and where its body starts."""

    fields: Mapping[str, FrontMatterField]
    end: int
    """The line of the closing ``---``."""
    body: str
    """Everything after the closing ``---``."""

    @property
    def body_line(self) -> int:
        """The line the body starts on (for messages about it)."""
        return self.end + 1


def split_front_matter(text: str) -> FrontMatter:
    """Split ``text`` into its front matter (parsed) and body.

    Raises:
        FrontMatterError: There is no front matter, it is never closed, or a line is not what YAML allows.
    """
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if lines[0].rstrip() != _FENCE:
        raise FrontMatterError(
            1,
            "no front matter: the file must start with a line '---', then 'name:' and 'description:' lines, "
            "then another '---'",
        )
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == _FENCE), None)
    if end is None:
        raise FrontMatterError(1, "the front matter opened here is never closed: add a line '---' after its last key")
    return FrontMatter(_fields(lines, end), end + 1, "\n".join(lines[end + 1 :]))


def _fields(lines: Sequence[str], end: int) -> dict[str, FrontMatterField]:
    """The keys of ``lines[1:end]`` (0-based indexes; messages use 1-based lines)."""
    fields: dict[str, FrontMatterField] = {}
    i = 1
    while i < end:
        line = lines[i]
        if not line.strip() or line.startswith("#"):
            i += 1
            continue
        if line[0] in " \t":
            raise FrontMatterError(i + 1, "this line is indented but belongs to no key; start it at the margin")
        match = _KEY.match(line)
        if match is None:
            raise FrontMatterError(i + 1, f"expected 'key: value' (a space after the colon), got {line.strip()!r}")
        key, value = match["key"], match["value"]
        if value and value.startswith("#"):  # `key: # note` is an empty value with a comment
            value = None
        if key in fields:
            raise FrontMatterError(i + 1, f"{key!r} is set twice (first on line {fields[key].line}); keep one")
        j = i + 1
        while j < end and _continues(lines[j], nested=not value):
            j += 1
        fields[key] = FrontMatterField(_value(value or "", lines[i + 1 : j], i + 1), i + 1)
        i = j
    return fields


def _continues(line: str, *, nested: bool) -> bool:
    """Whether ``line`` belongs to the value above it: indented, blank, or a list item under an empty key."""
    return not line.strip() or line[0] in " \t" or (nested and (line == "-" or line.startswith("- ")))


def _value(first: str, more: Sequence[str], line: int) -> str:
    """The value that starts with ``first`` on ``line`` and goes on over the lines ``more``."""
    for offset, extra in enumerate(more, line + 1):
        if extra.startswith("\t") and extra.strip():
            raise FrontMatterError(offset, "YAML cannot be indented with tabs; indent with spaces")
    if not first:  # a nested map or list (metadata:, allowed-tools:) kept as text
        return "\n".join(_dedent(more)).strip("\n")
    if first[0] in "|>":
        header = _BLOCK_HEADER.match(first)
        if header is None:
            raise FrontMatterError(line, f"a block starts with |, |-, |+, >, >- or >+ alone on the line, not {first!r}")
        return _block(header["style"], header["chomp"], _dedent(more, line + 1))
    if first[0] in "\"'":
        return _quoted(_fold([first, *(extra.strip() for extra in more)]), line)
    if first[0] in "[{":  # a flow list or map: kept as written
        return _fold([first, *(extra.strip() for extra in more)])
    return _plain([first, *(extra.strip() for extra in more)], line)


def _plain(parts: Sequence[str], line: int) -> str:
    """A plain (unquoted) value, folded over its lines, comments removed; refuses what YAML would misread."""
    if parts[0].startswith(_RESERVED_START):
        raise FrontMatterError(line, f"a plain value cannot start with {parts[0][:1]!r} in YAML; put it in quotes")
    kept = [_COMMENT.sub("", part) for part in parts]
    for offset, part in enumerate(kept):
        if ": " in part or part.endswith(":"):
            where = line + offset if offset else line
            raise FrontMatterError(
                where, "a plain value may not hold ': ' (YAML reads a nested key); put the whole value in quotes"
            )
    return _fold(kept)


def _fold(parts: Sequence[str]) -> str:
    """Lines of a flow value joined as YAML does: one space between lines, a newline for each blank line."""
    out = ""
    for part in parts:
        if not part:
            out += "\n"
        elif out and not out.endswith("\n"):
            out += " " + part
        else:
            out += part
    return out.strip(" ")


def _quoted(text: str, line: int) -> str:
    """A single- or double-quoted value; only a comment may follow the closing quote."""
    quote = text[0]
    i = 1
    while i < len(text):
        if quote == '"' and text[i] == "\\":
            i += 2
            continue
        if text[i] == quote and not (quote == "'" and text[i + 1 : i + 2] == "'"):
            break
        i += 2 if text[i] == quote else 1
    else:
        raise FrontMatterError(line, f"the value's opening {quote} is never closed; close it before the next key")
    rest = text[i + 1 :]
    if rest.strip() and not rest.lstrip().startswith("#"):
        raise FrontMatterError(line, f"only a comment may follow a quoted value, not {rest.strip()!r}")
    inner = text[1:i]
    if quote == "'":
        return inner.replace("''", "'")
    try:  # YAML's common escapes are JSON's (\n \t \" \\ \/ \uXXXX)
        decoded: str = json.loads(f'"{inner}"')
    except json.JSONDecodeError:
        raise FrontMatterError(
            line,
            "the double-quoted value has an escape this reader does not know; "
            'use \\n, \\t, \\\\, \\" or \\uXXXX, or single quotes',
        ) from None
    return decoded


def _dedent(lines: Sequence[str], first_line: int = 0) -> list[str]:
    """``lines`` without the indentation of their first non-blank line ('' for blank lines).

    A line indented less than that first line is refused when ``first_line`` is given (block values).
    """
    indents = [len(line) - len(line.lstrip(" ")) for line in lines if line.strip()]
    if not indents:
        return ["" for _ in lines]
    width = indents[0] if first_line else min(indents)
    out: list[str] = []
    for offset, line in enumerate(lines):
        if not line.strip():
            out.append("")
        elif len(line) - len(line.lstrip(" ")) < width:
            raise FrontMatterError(first_line + offset, "this line is indented less than the block's first line")
        else:
            out.append(line[width:])
    return out


def _block(style: str, chomp: str, lines: Sequence[str]) -> str:
    """A ``|`` (lines kept) or ``>`` (lines folded) block, with YAML's chomping of the final newlines."""
    core = list(lines)
    trailing = 0
    while core and not core[-1]:
        core.pop()
        trailing += 1
    text = "\n".join(core) if style == "|" else _fold_block(core)
    if not core:
        return "\n" * trailing if chomp == "+" else ""
    if chomp == "-":
        return text
    return text + "\n" * (1 + trailing if chomp == "+" else 1)


def _fold_block(lines: Sequence[str]) -> str:
    """A ``>`` block's lines: joined by spaces, a blank line a newline, more-indented lines kept as they are."""
    out = ""
    previous = ""  # "text", "indented", "blank" or "" at the start
    for line in lines:
        kind = "blank" if not line else "indented" if line[0] in " \t" else "text"
        if kind == "blank":
            out += "\n"
        elif previous == "text" and kind == "text":
            out += " " + line
        elif previous in ("text", "indented"):
            out += "\n" + line
        else:
            out += line
        previous = kind
    return out
