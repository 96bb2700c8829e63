from __future__ import annotations

import pytest

from chrysalis.evolve import predict
from tests.helpers import FakeClock


@pytest.fixture
def steady_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Every call takes the same time: wall-clock latency would move the fast/slow bins from run to run."""
    clock = FakeClock()
    monkeypatch.setattr(predict, "time", clock)
    return clock
