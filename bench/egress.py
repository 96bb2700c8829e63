"""The cost of the egress check (``chrysalis.tools.egress.check``) against the request it guards.

Each ``web_fetch`` and ``web_search`` request, and each redirect, is checked first: the URL split,
the host resolved (``socket.getaddrinfo``) and every address judged. Timed here, in the same run:

- ``check`` of an address literal (``http://127.0.0.1:PORT/page``: no resolver call);
- ``check`` of ``localhost`` (a resolver call, answered from /etc/hosts);
- ``check`` refusing a loopback URL (no allow rule: the refusal and its message);
- the request alone as the tool sends it (one GET to the checked address on a loopback server, a
  fresh client with the process's one TLS context, the body read), and ``httpx.get`` of the same
  URL (what the tool did before: a new client loads the CA bundle each time, ~70 ms);
- the whole ``web_fetch`` call (check, request, text extraction).

Medians over ``--repeats`` rounds of ``--checks`` checks and ``--requests`` requests; the ratio is
each check's median to the request's. A loopback request is the cheapest there is: against a real
site (tens of milliseconds) the check's share is smaller still.

    python bench/egress.py [--checks 1000] [--requests 50] [--repeats 3]

Writes bench/results/egress.json with the command, commit and date.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from chrysalis.tools.base import ToolContext
from chrysalis.tools.egress import EgressRefused, HostRules, check
from chrysalis.tools.web import _get_checked, web_fetch

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results" / "egress.json"
PAGE = b"<html><body><h1>Docs</h1><p>" + b"Some text. " * 200 + b"</p></body></html>"


class _Handler(BaseHTTPRequestHandler):
    disable_nagle_algorithm = True  # headers and body are two writes: Nagle and delayed ACKs would add 40 ms each

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def loopback_server() -> Iterator[int]:
    """A small HTML page on 127.0.0.1; yields the port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def median_us(fn: Callable[[], object], count: int, repeats: int) -> float:
    """The median over ``repeats`` rounds (after one warm-up round) of the mean microseconds per call."""
    rounds = []
    for round_ in range(repeats + 1):
        started = time.perf_counter()
        for _ in range(count):
            fn()
        if round_:
            rounds.append((time.perf_counter() - started) / count * 1e6)
    return statistics.median(rounds)


def refused(url: str) -> None:
    try:
        check(url, HostRules())
    except EgressRefused:
        return
    raise RuntimeError(f"{url} was not refused")


def measure(checks: int, requests: int, repeats: int) -> dict[str, Any]:
    """Every row in one run, against one loopback server."""
    allowed = HostRules(allowed=("127.0.0.1", "localhost"))
    context = ToolContext(workspace=BENCH, hosts=allowed)
    with loopback_server() as port:
        url = f"http://127.0.0.1:{port}/page"
        target = check(url, allowed)
        if not web_fetch({"url": url}, context).ok:
            raise RuntimeError("the loopback fetch failed")
        rows = {
            "check, address literal": median_us(lambda: check(url, allowed), checks, repeats),
            "check, localhost": median_us(lambda: check(f"http://localhost:{port}/page", allowed), checks, repeats),
            "check, refused": median_us(lambda: refused(url), checks, repeats),
            "request to the checked address": median_us(lambda: _get_checked(target), requests, repeats),
            "httpx.get (before)": median_us(lambda: httpx.get(url, trust_env=False).text, requests, repeats),
            "web_fetch, whole call": median_us(lambda: web_fetch({"url": url}, context), requests, repeats),
        }
    request = rows["request to the checked address"]
    return {
        "rows": {name: {"us": round(us, 1), "ratio_to_request": round(us / request, 4)} for name, us in rows.items()},
        "checks": checks,
        "requests": requests,
        "repeats": repeats,
    }


def provenance() -> dict[str, Any]:
    """The command (a URL's password hidden), the commit measured (and whether src/ had uncommitted changes), the
    date and the machine.

    The machine's load average (1, 5 and 15 minutes, when the results are written) says how busy the shared
    cores were: wall-clock figures depend on it.
    """

    def git(*args: str) -> str | None:
        done = subprocess.run(["git", *args], cwd=BENCH, capture_output=True, text=True, timeout=10, check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    status = git("status", "--porcelain", "--", "../src")
    return {
        "command": re.sub(r"://([^:/@\s]+):[^@\s]+@", r"://\1:***@", " ".join(["python", *sys.argv])),
        "commit": git("rev-parse", "--short", "HEAD"),
        "src_uncommitted_changes": None if status is None else bool(status),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average": [round(load, 2) for load in os.getloadavg()],
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = measure(args.checks, args.requests, args.repeats)
    print(f"{'row':<34}{'us':>10}{'ratio':>10}")
    for name, row in result["rows"].items():
        print(f"{name:<34}{row['us']:>10}{row['ratio_to_request']:>10}")
    result.update(provenance())
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
