from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from chrysalis.stores import Stores


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def stores(home: Path) -> Iterator[Stores]:
    with Stores.open(home) as opened:
        yield opened


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path
