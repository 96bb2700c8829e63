"""The council's public names: the ones issue 34 pins, and every name in ``__all__`` resolves."""

from __future__ import annotations

import chrysalis.council as council

PINNED = {"Arbiter", "Candidate", "Persona", "builtin_personas", "load_personas", "Gate", "gate", "GateResult", "Turn"}


def test_the_pinned_names_are_exported_and_every_export_resolves() -> None:
    assert PINNED <= set(council.__all__)
    assert all(getattr(council, name) is not None for name in council.__all__)
