"""The cost of redaction: MB/s of ``Redactor.text`` on a realistic 1 MB tool output, against plain passes.

The text is what tools return: this project's own Python source (as ``read_file`` shows it, with
line numbers), pytest output and ``git log`` lines, with a handful of secrets sprinkled in. Each
row times its pass over the text: ``str.replace`` of one word (the floor: one C pass that copies
the text), one ``re.sub`` of a literal (the floor for a regex pass), and the redactor (with a few
environment secrets, as a run has) on the text without secrets (one pass) and with them (a second
pass confirms the fixed point). Medians, MB/s and ratios to ``str.replace``.

    python bench/redact.py [--repeats 9] [--megabytes 1]

Writes bench/results/redact.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from chrysalis.redact import Redactor
from chrysalis.tools.text import number_lines

RESULTS = Path(__file__).resolve().parent / "results" / "redact.json"
SRC = Path(__file__).resolve().parents[1] / "src" / "chrysalis"
SECRETS = (
    "OPENAI_API_KEY=sk-proj-Zq3xT9bLm2Vw8Rk5Np7Hs4Jd6Fg1Yc0Ua9Ei3Ob\n",
    "token: ghp_4fJk9Lm2Np7Qr5St8Uv1Wx3Yz6Ab0Cd9Ef2Gh\n",
    "DATABASE_URL=postgres://app:Vx7pQ2mZk9@db.internal:5432/app\n",
)
PYTEST = "tests/test_calc.py::test_subtract PASSED                                   [ 50%]\n"
GIT_LOG = "3f2a9c1e0b7d4e5f6a7b8c9d0e1f2a3b4c5d6e7f fix: keep the head and tail of long outputs\n"


def tool_output(megabytes: float, *, secrets: bool = True) -> str:
    """About ``megabytes`` of tool output: numbered source, test and git lines, a secret every ~30 KB."""
    sources = [number_lines(p.read_text().splitlines(), 1) for p in sorted(SRC.rglob("*.py"))]
    parts: list[str] = []
    size = 0
    index = 0
    while size < megabytes * 1_000_000:
        chunk = sources[index % len(sources)] + "\n" + PYTEST * 20 + GIT_LOG * 20
        if secrets and index % 3 == 0:
            chunk += SECRETS[index % len(SECRETS)]
        parts.append(chunk)
        size += len(chunk)
        index += 1
    return "".join(parts)


def median_seconds(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for round_ in range(repeats + 1):  # round 0 warms up and is dropped
        started = time.perf_counter()
        fn()
        if round_:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def measure(megabytes: float = 1.0, repeats: int = 9) -> dict[str, Any]:
    """Time the three passes over the same text; the redactor must find every sprinkled secret."""
    text = tool_output(megabytes)
    clean = tool_output(megabytes, secrets=False)
    redactor = Redactor({"Vx7pQ2mZk9-not-in-text": "DB_PASSWORD", "s3cr3t-env-value-1": "SERVICE_TOKEN"})
    redacted = redactor.text(text)
    if any(secret.split("=", 1)[-1].split(": ")[-1].strip() in redacted for secret in SECRETS):
        raise RuntimeError("a sprinkled secret survived redaction")
    literal = re.compile(re.escape("PASSED"))
    rows = {
        "str.replace": median_seconds(lambda: text.replace("PASSED", "passed"), repeats),
        "re.sub literal": median_seconds(lambda: literal.sub("passed", text), repeats),
        "Redactor, clean": median_seconds(lambda: redactor.text(clean), repeats),
        "Redactor, secrets": median_seconds(lambda: redactor.text(text), repeats),
    }
    base = rows["str.replace"]
    size_mb = len(text.encode()) / 1_000_000
    return {
        "megabytes": round(size_mb, 3),
        "markers": redacted.count("[REDACTED:"),
        "rows": {
            name: {"ms": round(s * 1000, 2), "mb_per_s": round(size_mb / s, 1), "ratio": round(s / base, 1)}
            for name, s in rows.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--megabytes", type=float, default=1.0)
    args = parser.parse_args()
    result = measure(args.megabytes, args.repeats)
    print(f"{result['megabytes']} MB of tool output, {result['markers']} secrets redacted")
    print(f"{'pass':<20}{'ms':>9}{'MB/s':>9}{'ratio':>8}")
    for name, row in result["rows"].items():
        print(f"{name:<20}{row['ms']:>9}{row['mb_per_s']:>9}{row['ratio']:>7}x")
    result["machine"] = {"python": platform.python_version(), "platform": platform.platform()}
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
