"""Fakes of the model seams, shipped with the package so every test (ours and users') uses the same ones.

- ``ScriptedModel`` (``model.py``) is a pydantic-ai model for agent sessions and module calls: it
  plays a script of steps (``tool``, ``final``, ``output_call``; the last one repeats) and records
  every request, its instructions and the tools it offered.
- ``ScriptedChatBackend`` (``chat.py``) is a ``ChatBackend`` that replays a list of replies and
  records what it was asked, for testing the text tool protocol without a model.
- ``ScriptedOpenAIServer`` (``server.py``) is a real HTTP server on 127.0.0.1 that answers
  ``/v1/chat/completions`` in the OpenAI wire format from a script of ``ScriptedReply``s; it is
  bounded, so a broken test cannot hang.

The pydantic-ai fakes load on first use (pydantic-ai takes a while to import), so a benchmark that
only needs the server does not pay for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from chrysalis.llm.testing.chat import ScriptedChatBackend
from chrysalis.llm.testing.server import ScriptedOpenAIServer, ScriptedReply

if TYPE_CHECKING:  # the real types for type checkers; at run time ``__getattr__`` imports them on first use
    from chrysalis.llm.testing.model import ScriptedModel, Step, final, output_call, tool

__all__ = [
    "ScriptedChatBackend",
    "ScriptedModel",
    "ScriptedOpenAIServer",
    "ScriptedReply",
    "Step",
    "final",
    "output_call",
    "tool",
]

_LAZY = frozenset({"ScriptedModel", "Step", "final", "output_call", "tool"})
"""The names ``model.py`` defines: they need pydantic-ai."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module("chrysalis.llm.testing.model"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
