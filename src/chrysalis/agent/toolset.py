"""Every tool call of a run goes through ``GatedTools``: a chain of thin wrappers in ``chrysalis.agent.gate``.

report → guards → policy → judge → approval → durable → checkpoint → run, each one concern
(``chrysalis.agent.gate.gated`` draws the chain). This module keeps the names the rest of the
code imports.
"""

from __future__ import annotations

from chrysalis.agent.gate.approval import Approver
from chrysalis.agent.gate.checkpoint import CommandSnapshot
from chrysalis.agent.gate.gated import GatedTools
from chrysalis.agent.limits import MAX_DENIALS

__all__ = ["MAX_DENIALS", "Approver", "CommandSnapshot", "GatedTools"]
