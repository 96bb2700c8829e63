"""Options whose value may be left out (``council --diff [REF]``), which typer cannot declare.

click can make an option's value optional (``flag_value``), but typer's options drop that, so
``--diff`` alone would be "requires an argument". Before typer parses, a bare ``--diff`` (the
last word, or followed by another option) becomes ``--diff=HEAD``. ``--diff main`` and
``--diff=main`` are left as they are; as with click, a word after ``--diff`` is its REF, so the
topic goes first: ``chrysalis council "TOPIC" --diff``.
"""

from __future__ import annotations

__all__ = ["OPTIONAL_VALUES", "with_optional_values"]

OPTIONAL_VALUES = {"council": {"--diff": "HEAD"}}
"""For each command, the options whose value may be left out, and the value they then take."""


def with_optional_values(argv: list[str]) -> list[str]:
    """``argv`` with each bare optional-value option of its command given its default value."""
    command = next((word for word in argv if word in OPTIONAL_VALUES), None)
    if command is None:
        return argv
    defaults = OPTIONAL_VALUES[command]
    out = list(argv)
    for i, word in enumerate(out):
        if word in defaults and (i + 1 == len(out) or out[i + 1].startswith("-")):
            out[i] = f"{word}={defaults[word]}"
    return out
