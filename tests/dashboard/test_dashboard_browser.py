"""``chrysalis ui`` as a user meets it: a subprocess prints its URL, a real headless browser opens every page.

Debian's chromium (``/usr/bin/chromium``, installed by CI) driven by playwright; no browser is ever
downloaded. Each page is screenshotted into the test's tmp dir, and each screenshot is checked to be
a real image that is not one flat colour (decoded by the same browser on a blank page), while the
page's text must hold the seeded numbers.
"""

from __future__ import annotations

import base64
import os
import re
import select
import signal
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from chrysalis.config import load_settings
from chrysalis.runtime.database import database_url, open_engine
from chrysalis.runtime.runs import RunStore
from tests.helpers import CHRYSALIS, CLI_HANG_GUARD

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PAGES = {
    "runs": ("/", ["run-ok-1", "run-err-2", "plan-3", "0.0123", "succeeded", "stopped"]),
    "run": ("/runs/run-ok-1", ["Fix the <script>alert('pwned')</script> bug", "1200 in / 80 out", "The bug is fixed."]),
    "stats": ("/stats", ["75%", "0.0600", "67%", "researcher", "local:qwen2.5-coder-1.5b"]),
    "archive": ("/archive", ["sum.<b>bold</b>", "0.900", "0.800", "0.700", "0.625", "cheap · fast"]),
    "decompositions": ("/decompositions", ["Write tests for lexer.py", "pytest failed twice", "decompose@0, spawn@1"]),
    "queue": ("/queue", ["q-waiting", "q-done", "Queued <b>task</b>", "high", "cancelled 1"]),
    "queued-run": ("/queue/q-done", ["forty-two", "read_file", "w-1"]),
}
"""Each page: its path and text the seeded stores put on it (as text: markup in a task shows as written)."""

_COLOURS = """async (src) => {
    const img = new Image(); img.src = src; await img.decode();
    const canvas = document.createElement('canvas'); canvas.width = img.width; canvas.height = img.height;
    const context = canvas.getContext('2d'); context.drawImage(img, 0, 0);
    const data = context.getImageData(0, 0, img.width, img.height).data;
    const counts = new Map();
    for (let i = 0; i < data.length; i += 4) {
        const key = (data[i] << 16) | (data[i + 1] << 8) | data[i + 2];
        counts.set(key, (counts.get(key) || 0) + 1);
    }
    return [counts.size, Math.max(...counts.values()) / (data.length / 4)];
}"""
"""Distinct colours in a PNG and the share of its commonest one, counted by the browser on about:blank."""


@pytest.fixture
def dashboard(seeded: Path) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``chrysalis ui --port 0`` over the seeded stores: its printed URL and its process (Ctrl-C'd at the end).

    The queued run is cancelled first, so no page is live: a page that reloads itself every few
    seconds could reload while the test reads it (the reload itself is checked in test_dashboard.py).
    """
    with RunStore(open_engine(database_url(load_settings({})))) as runs:
        runs.set_status("q-waiting", "cancelled")
    process = subprocess.Popen(
        [*CHRYSALIS, "ui", "--port", "0"],
        env=dict(os.environ),
        text=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], CLI_HANG_GUARD)
        assert ready, "chrysalis ui printed no URL"
        line = process.stdout.readline().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{20,}", line), line
        yield line, process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def png_size(shot: bytes) -> tuple[int, int]:
    """The width and height a PNG's header declares (after checking it is a PNG)."""
    assert shot[:8] == b"\x89PNG\r\n\x1a\n" and shot[12:16] == b"IHDR"
    width, height = struct.unpack(">II", shot[16:24])
    return width, height


def check_screenshot(shot: bytes, blank: Page, name: str) -> None:
    """A real PNG at least the viewport's size, with many colours and none covering almost all of it."""
    width, height = png_size(shot)
    assert (width, height) >= (1280, 800) and len(shot) > 10_000, (name, width, height, len(shot))
    colours, commonest = blank.evaluate(_COLOURS, "data:image/png;base64," + base64.b64encode(shot).decode())
    assert colours > 20 and commonest < 0.95, (name, colours, commonest)


def test_every_page_in_a_headless_browser(dashboard: tuple[str, subprocess.Popen[str]], tmp_path: Path) -> None:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run this test")
    from playwright.sync_api import sync_playwright

    url, process = dashboard
    base = url.split("/?", 1)[0]
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(url)
            assert page.url == base + "/"  # the token moved into a cookie
            page.click("text=Stats")  # links work with the cookie alone
            assert page.url == base + "/stats" and "By task type and model" in page.inner_text("main")
            blank = browser.new_page()
            for name, (path, expected) in PAGES.items():
                reply = page.goto(base + path)
                assert reply is not None and reply.status == 200, (name, reply and reply.status)
                shown = page.inner_text("body")
                for value in expected:
                    assert value in shown, (name, value)
                check_screenshot(page.screenshot(path=str(tmp_path / f"{name}.png"), full_page=True), blank, name)
            anonymous = browser.new_context().new_page()
            refused = anonymous.goto(base + "/stats")
            assert refused is not None and refused.status == 403 and "printed" in anonymous.inner_text("body")
        finally:
            browser.close()
    process.send_signal(signal.SIGINT)
    _out, err = process.communicate(timeout=CLI_HANG_GUARD)
    assert process.returncode == 0, err
    assert "Dashboard stopped." in err and "Traceback" not in err
