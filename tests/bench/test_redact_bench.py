"""bench/redact.py runs end to end on a small text (its numbers are not checked: never assert on time)."""

from __future__ import annotations

from tests.helpers import load_bench_module

bench = load_bench_module("redact")


def test_every_row_is_measured_and_every_secret_redacted() -> None:
    result = bench.measure(megabytes=0.05, repeats=1)
    assert set(result["rows"]) == {"str.replace", "re.sub literal", "Redactor, clean", "Redactor, secrets"}
    assert result["markers"] >= 1
    assert all(row["mb_per_s"] > 0 for row in result["rows"].values())


def test_the_text_is_tool_output_with_secrets_only_when_asked() -> None:
    assert "sk-proj-" in bench.tool_output(0.05)
    clean = bench.tool_output(0.05, secrets=False)
    assert "sk-proj-" not in clean and "   1| " in clean
