"""The dashboard's pages that are tables: runs and one run's events, the eval stats, the durable queue.

Each function takes what ``DashboardData`` read and returns a whole document; the archive grid and
the decomposition trees are in ``views.py``. A page with nothing to show says which
command would fill it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from chrysalis.server.dashboard.html import (
    Safe,
    badge,
    empty,
    esc,
    join,
    link,
    page,
    pct,
    seconds,
    table,
    url,
    usd,
    when,
)
from chrysalis.stores import ProfileStats, RunSummary
from chrysalis.stores.evals import ModelStats

if TYPE_CHECKING:
    from chrysalis.runtime.runs import RunRecord

__all__ = [
    "QUIET_S",
    "events_table",
    "forbidden_page",
    "is_live",
    "missing_page",
    "problem_page",
    "queue_page",
    "queued_run_page",
    "run_page",
    "runs_page",
    "stats_page",
    "status_badge",
]

_QUEUE_KIND = {
    "queued": "idle",
    "running": "warn",
    "waiting_approval": "warn",
    "done": "ok",
    "failed": "bad",
    "cancelled": "bad",
}


QUIET_S = 600.0
"""A traced run unfinished but silent this long was killed, most likely: its page stops reloading."""


def is_live(run: RunSummary, now: float) -> bool:
    """Whether ``run`` is still going: no final event, and an event within the last ``QUIET_S``.

    A run killed mid-way never records its end, so "unfinished" alone would reload its page forever.
    """
    return run.status == "unfinished" and now - run.ended_at < QUIET_S


def status_badge(run: RunSummary) -> Safe:
    """How a traced run ended, in the words ``chrysalis stats`` uses."""
    if run.status == "final":
        return badge("succeeded", "ok") if run.success else badge("failed", "bad")
    if run.status == "error":
        return badge("stopped", "bad")
    return badge("unfinished", "idle")


def runs_page(runs: Sequence[RunSummary], now: float | None = None) -> str:
    """The latest runs, each linking to its events; live while one of them is (``now``: the clock by default)."""
    if not runs:
        return page("Runs", empty("runs", 'chrysalis run "TASK"'), active="/")
    rows = [
        (
            link(url("runs", r.run_id), r.run_id),
            when(r.started_at),
            r.task or "",
            r.model or "",
            status_badge(r),
            r.events,
            seconds(r.ended_at - r.started_at),
            usd(r.cost_usd),
        )
        for r in runs
    ]
    body = Safe(f'<p class="muted">The {len(runs)} latest run(s), newest first.</p>')
    headers = ("run", "started", "task", "model", "status", "events", "seconds", "USD")
    at = time.time() if now is None else now
    live = any(is_live(r, at) for r in runs)
    return page("Runs", body + table(headers, rows, numeric=(5, 6, 7)), active="/", live=live)


def run_page(run: RunSummary, events: Sequence[dict[str, Any]], now: float | None = None) -> str:
    """One run: what it was asked, how it ended, and its events in order; live while it runs."""
    facts = table(
        ("task", "model", "status", "started", "seconds", "events", "USD"),
        [
            (
                run.task or "",
                run.model or "",
                status_badge(run),
                when(run.started_at),
                seconds(run.ended_at - run.started_at),
                run.events,
                usd(run.cost_usd),
            )
        ],
    )
    live = is_live(run, time.time() if now is None else now)
    return page(f"Run {run.run_id}", facts + Safe("<h2>Events</h2>") + events_table(events), active="/", live=live)


def events_table(events: Sequence[dict[str, Any]]) -> Safe:
    """Events in order: time since the first, type, a one-line summary, the whole event on demand.

    Consecutive ``text_delta`` events are one row (the streamed text, joined): a long answer is
    hundreds of deltas, which as rows would bury everything else.
    """
    if not events:
        return Safe('<p class="empty">This run recorded no events.</p>')
    first = _ts(events[0])
    rows = []
    for index, (event, count) in enumerate(_merged(events), start=1):
        kind = str(event.get("type", "?"))
        whole = json.dumps(event, ensure_ascii=False, indent=2, default=str)
        details = Safe(f"<details><summary>{esc(_summary(event))}</summary><pre>{esc(whole)}</pre></details>")
        label = f"{kind} ×{count}" if count > 1 else kind
        rows.append((index, f"+{_ts(event) - first:.2f}s", label, details))
    return table(("#", "at", "type", "event"), rows, numeric=(0, 1))


def _merged(events: Sequence[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], int]]:
    """Each event with how many it stands for (a run of ``text_delta`` becomes one with the joined text)."""
    pending: list[dict[str, Any]] = []
    for event in events:
        if event.get("type") == "text_delta":
            pending.append(event)
            continue
        if pending:
            yield _joined(pending), len(pending)
            pending = []
        yield event, 1
    if pending:
        yield _joined(pending), len(pending)


def _joined(deltas: list[dict[str, Any]]) -> dict[str, Any]:
    return {**deltas[0], "text": "".join(str(d.get("text", "")) for d in deltas)}


def _ts(event: dict[str, Any]) -> float:
    value = event.get("ts")
    return float(value) if isinstance(value, int | float) else 0.0


def _summary(event: dict[str, Any]) -> str:
    """One line that says what the event was; the details hold the rest."""
    describe = _SUMMARIES.get(str(event.get("type")))
    if describe is not None:
        return describe(event)
    rest = {key: value for key, value in event.items() if key not in ("type", "run_id", "ts")}
    return _cut(json.dumps(rest, ensure_ascii=False, default=str))


def _usd(event: dict[str, Any]) -> str:
    return f"${float(event.get('cost_usd') or 0):.4f}"


def _call(e: dict[str, Any]) -> str:
    return f"{e.get('tool')} {_cut(json.dumps(e.get('args'), ensure_ascii=False, default=str), 120)}"


def _result(e: dict[str, Any]) -> str:
    return f"{e.get('tool')} → " + (_cut(f"ok: {e.get('result')}") if e.get("ok") else _cut(f"error: {e.get('error')}"))


_SUMMARIES: dict[str, Callable[[dict[str, Any]], str]] = {
    "start": lambda e: f"{e.get('task')} · {e.get('model')} · mode {e.get('mode')}, level {e.get('level')}",
    "text_delta": lambda e: _cut(str(e.get("text", ""))),
    "tool_call": _call,
    "approval_request": lambda e: f"{_call(e)} · {'approved' if e.get('approved') else 'refused'}",
    "tool_result": _result,
    "model_call": lambda e: (
        f"{e.get('model')} · {e.get('input_tokens')} in / {e.get('output_tokens')} out · "
        f"{float(e.get('duration_ms') or 0) / 1000:.1f} s · {_usd(e)}"
    ),
    "check": lambda e: f"{e.get('command')}: {'passed' if e.get('passed') else 'failed'}",
    "final": lambda e: (
        f"{'succeeded' if e.get('success') else 'failed'} in {e.get('steps')} step(s), {_usd(e)}: "
        f"{_cut(str(e.get('output', '')))}"
    ),
    "error": lambda e: f"{e.get('reason')}: {_cut(str(e.get('message', '')))}",
    "plan_node": lambda e: f"[{e.get('op')}] {e.get('status')}: {_cut(str(e.get('task', '')))}",
}
"""A one-line description per event type (docs/events.md); other types show their fields."""


def _cut(text: str, most: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= most else flat[: most - 1] + "…"


def stats_page(profiles: Sequence[ProfileStats], models: Sequence[ModelStats]) -> str:
    """The eval store: totals, then success, time and cost by profile/task type/model and by model."""
    if not profiles:
        return page("Stats", empty("task outcomes", 'chrysalis run "TASK"'), active="/stats")
    runs = sum(p.runs for p in profiles)
    wins = sum(p.successes for p in profiles)
    cost = sum(p.total_cost_usd for p in profiles)
    cards = Safe(
        '<div class="cards">'
        + "".join(
            f'<div class="card"><span class="muted">{esc(label)}</span><b>{esc(value)}</b></div>'
            for label, value in (("runs", runs), ("succeeded", pct(wins / runs)), ("total USD", usd(cost)))
        )
        + "</div>"
    )
    by_profile = table(
        ("profile", "task type", "model", "runs", "success", "mean s", "total USD", "tokens in / out"),
        [
            (
                p.profile,
                p.task_type,
                p.model,
                p.runs,
                pct(p.success_rate),
                seconds(p.mean_duration_ms / 1000),
                usd(p.total_cost_usd),
                f"{p.input_tokens:,} / {p.output_tokens:,}",
            )
            for p in profiles
        ],
        numeric=(3, 4, 5, 6, 7),
    )
    by_model = table(
        ("task type", "model", "runs", "success", "mean s", "mean USD"),
        [
            (
                m.task_type,
                m.model,
                m.runs,
                pct(m.success_rate),
                seconds(m.mean_duration_ms / 1000),
                usd(m.mean_cost_usd),
            )
            for m in models
        ],
        numeric=(2, 3, 4, 5),
    )
    body = join(
        [
            cards,
            Safe("<h2>By profile, task type and model</h2>"),
            by_profile,
            Safe("<h2>By task type and model</h2>"),
            by_model,
        ]
    )
    return page("Stats", body, active="/stats")


def queue_page(runs: Sequence[RunRecord] | None, problem: str | None) -> str:
    """The durable runs, newest first, with their states."""
    if problem is not None:
        return page("Queue", Safe(f'<p class="empty">{esc(problem)}</p>'), active="/queue")
    if not runs:
        return page("Queue", empty("queued runs", 'chrysalis submit "TASK"'), active="/queue")
    counts: dict[str, int] = {}
    for record in runs:
        counts[record.status] = counts.get(record.status, 0) + 1
    summary = join((badge(f"{status} {n}", _QUEUE_KIND.get(status, "idle")) for status, n in counts.items()), " ")
    rows = [
        (
            link(url("queue", r.id), r.id),
            badge(r.status, _QUEUE_KIND.get(r.status, "idle")),
            r.urgency,
            r.task,
            r.options.get("workspace", ""),
            when(r.created_at),
            when(r.updated_at),
            r.worker or "",
            r.error or "",
        )
        for r in runs
    ]
    headers = ("run", "status", "urgency", "task", "workspace", "submitted", "updated", "worker", "error")
    live = not all(r.finished for r in runs)  # queued, running or waiting for approval: it will still change
    return page("Queue", Safe(f"<p>{summary}</p>") + table(headers, rows), active="/queue", live=live)


def queued_run_page(record: RunRecord, events: Sequence[dict[str, Any]]) -> str:
    """One durable run: its state, its answer, its events."""
    facts = table(
        ("task", "status", "urgency", "submitted", "updated", "worker"),
        [
            (
                record.task,
                badge(record.status, _QUEUE_KIND.get(record.status, "idle")),
                record.urgency,
                when(record.created_at),
                when(record.updated_at),
                record.worker or "",
            )
        ],
    )
    parts: list[object] = [facts]
    if record.error:
        parts.append(Safe(f'<div class="box"><b>Error</b><pre>{esc(record.error)}</pre></div>'))
    if record.result and record.result.get("output"):
        parts.append(Safe(f'<div class="box"><b>Answer</b><pre>{esc(record.result["output"])}</pre></div>'))
    parts += [Safe("<h2>Events</h2>"), events_table(events)]
    return page(f"Queued run {record.id}", join(parts), active="/queue", live=not record.finished)


def missing_page(what: str, back: str, active: str) -> str:
    """A 404 page: nothing by that id here, and where to look."""
    return page("Not found", Safe(f'<p class="empty">No {esc(what)}. {link(back, "See the list.")}</p>'), active=active)


def problem_page(message: str) -> str:
    """A 500 page for a store that cannot be read, with the error's own advice."""
    return page("Cannot read the stores", Safe(f'<p class="empty">{esc(message)}</p>'))


def forbidden_page() -> str:
    """The 403 page: a request without the dashboard's token."""
    body = Safe(
        '<p class="empty">This dashboard needs its token. Open the URL that <code>chrysalis ui</code> '
        "printed (it ends in <code>?token=…</code>).</p>"
    )
    return page("Token needed", body)
