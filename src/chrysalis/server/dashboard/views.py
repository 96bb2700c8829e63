"""The dashboard's two drawn pages: the MAP-Elites archive grids and the decomposition trees.

The grid is the one ``chrysalis archive show`` prints (rows cheap/premium × fast/slow, columns
compact/verbose, each cell its bin's elite), as an HTML table whose cells are shaded by score. A
decomposition is drawn from its trace: every ``plan_node`` event's latest state, nested as the
plan nested them, each leaf linking to the sub-agent run that executed it.
"""

from __future__ import annotations

from collections.abc import Sequence

from chrysalis.server.dashboard.data import ArchiveView, Decomposition
from chrysalis.server.dashboard.html import Safe, badge, empty, esc, join, link, page, seconds, table, url, when
from chrysalis.server.dashboard.pages import status_badge
from chrysalis.stores import Pattern

__all__ = ["archive_page", "decompositions_page"]

_ROWS = (("cheap", "fast"), ("cheap", "slow"), ("premium", "fast"), ("premium", "slow"))
_COLUMNS = ("compact", "verbose")
_NODE_KIND = {"done": "ok", "failed": "bad", "cancelled": "bad", "pruned": "warn", "running": "warn"}
_MOST_DEPTH = 12
"""Nesting drawn at most (a plan is limited far below this; a corrupt parent chain must not recurse forever)."""


def archive_page(views: Sequence[ArchiveView]) -> str:
    """Every saved archive's newest version: its grid of elites and, on demand, its points."""
    if not views:
        return page(
            "Archive", empty("archives", "chrysalis compile FILE.py:NAME --train data.jsonl"), active="/archive"
        )
    return page("Archive", join(_archive(view) for view in views), active="/archive")


def _archive(view: ArchiveView) -> Safe:
    title = Safe(f'<h2>{esc(view.name)} <span class="muted">v{view.version} · {esc(when(view.saved_at))}</span></h2>')
    archive = view.archive
    if archive is None:
        return title + Safe(f'<p class="empty">{esc(view.problem)}</p>')
    limits = archive.thresholds
    unit = "tokens" if limits.cost_in_tokens else "USD"
    meta = archive.meta
    facts = Safe(
        f'<p class="muted">{len(archive.points)} variants · model {esc(meta.get("model", "?"))} · metric '
        f"{esc(meta.get('metric', '?'))} · split at the medians: cost {limits.cost:.4g} {unit}, latency "
        f"{limits.latency_ms:.0f} ms, {limits.tokens:.0f} tokens · best {esc(archive.best.id)} "
        f"({archive.best.phenotype.score:.3f})</p>"
    )
    elites = archive.elites()
    cells = []
    for cost, speed in _ROWS:
        row = [f"<th>{cost} · {speed}</th>"]
        for size in _COLUMNS:
            elite = elites.get((cost, speed, size))
            if elite is None:
                row.append('<td class="none">empty</td>')
                continue
            p = elite.phenotype
            row.append(
                f'<td class="cell" style="background:{_shade(p.score)}"><b>{p.score:.3f}</b>'
                f'{esc(elite.id)} · {esc(elite.module.strategy)}<br><span class="muted">{p.latency_ms:.0f} ms · '
                f"{p.tokens:.0f} tok · ${p.cost_usd:.2g}</span></td>"
            )
        cells.append("<tr>" + "".join(row) + "</tr>")
    grid = Safe(
        '<table class="grid"><thead><tr><th>cost · latency</th><th>compact</th><th>verbose</th></tr></thead>'
        f"<tbody>{''.join(cells)}</tbody></table>"
    )
    points = table(
        ("id", "score", "latency ms", "cost USD", "tokens", "bin", "made by", "parent"),
        [
            (
                p.id,
                f"{p.phenotype.score:.3f}",
                f"{p.phenotype.latency_ms:.0f}",
                f"{p.phenotype.cost_usd:.2g}",
                f"{p.phenotype.tokens:.0f}",
                " ".join(limits.bin_of(p.phenotype)),
                p.operator,
                p.parent or "",
            )
            for p in archive.points
        ],
        numeric=(1, 2, 3, 4),
    )
    return join(
        [
            title,
            facts,
            grid,
            Safe(f"<details><summary>all {len(archive.points)} points</summary>"),
            points,
            Safe("</details>"),
        ]
    )


def _shade(score: float) -> str:
    """Red (0) through amber to green (1), pale enough for dark text."""
    return f"hsl({max(0.0, min(1.0, score)) * 120:.0f}, 70%, 88%)"


def decompositions_page(plans: Sequence[Decomposition], patterns: Sequence[Pattern]) -> str:
    """The latest decompositions as trees, then the pattern archive they learn from."""
    if not plans and not patterns:
        return page("Decompositions", empty("decompositions", 'chrysalis decompose "TASK"'), active="/decompositions")
    parts: list[object] = [_plan(plan) for plan in plans]
    if not plans:
        parts.append(empty("decomposition runs", 'chrysalis decompose "TASK"'))
    if patterns:
        parts.append(Safe("<h2>Pattern archive</h2>"))
        parts.append(
            table(
                ("task type", "bin", "score", "task", "priority", "steps"),
                [(p.task_type, p.bin, f"{p.score:.3f}", p.task, p.priority, _steps(p)) for p in patterns],
                numeric=(2,),
            )
        )
    return page("Decompositions", join(parts), active="/decompositions")


def _plan(plan: Decomposition) -> Safe:
    """One decomposition: its task, how it ended (its ``plan_end``: a decomposition has no ``final``), its tree."""
    run, end = plan.run, plan.end
    if end is None:
        verdict = status_badge(run) if run.status == "error" else badge("unfinished", "idle")
    else:
        verdict = badge("succeeded", "ok") if end.get("success") else badge("failed", "bad")
    head = Safe(
        f"<h2>{link(url('runs', run.run_id), run.run_id)} · {esc(run.task or '')}</h2>"
        f'<p class="muted">{esc(when(run.started_at))} · {esc(seconds(run.ended_at - run.started_at))} s · '
        f"{len(plan.nodes)} nodes · {verdict}</p>"
    )
    tree = _nodes(plan, None, 0, root=True)
    if end is None:
        return head + tree
    phenotype = ", ".join(f"{k} {v:g}" for k, v in (end.get("phenotype") or {}).items() if isinstance(v, int | float))
    archived = " · archived" if end.get("archived") else ""
    outcome = Safe(f'<div class="box">{esc(phenotype)}{archived}<pre>{esc(end.get("output", ""))}</pre></div>')
    return head + tree + outcome


def _nodes(plan: Decomposition, parent: str | None, depth: int, *, root: bool = False) -> Safe:
    children = plan.children(parent)
    if not children or depth > _MOST_DEPTH:
        return Safe("")
    items = []
    for node in children:
        status = str(node.get("status", "?"))
        label = Safe(
            f'{badge(status, _NODE_KIND.get(status, "idle"))} <span class="op">[{esc(node.get("op"))}]</span> '
            f'{esc(node.get("task", ""))} <span class="muted">{esc(node.get("profile", ""))}</span>'
        )
        agent = node.get("agent_run_id")
        if isinstance(agent, str) and agent:
            label += Safe(" · ") + link(url("runs", agent), "sub-agent run")
        detail = " ".join(str(node.get("detail") or "").split())
        if detail:
            label += Safe(f'<br><span class="muted">{esc(detail[:300])}</span>')
        items.append(f"<li>{label}{_nodes(plan, str(node.get('node_id')), depth + 1)}</li>")
    return Safe(f'<ul class="tree{" root" if root else ""}">{"".join(items)}</ul>')


def _steps(pattern: Pattern) -> str:
    """A pattern's shape in one line: each step's op and depth (``decompose@0, spawn@1, spawn@1``)."""
    shape = ", ".join(f"{step.get('op', '?')}@{step.get('depth', '?')}" for step in pattern.steps)
    return shape if len(shape) <= 120 else shape[:119] + "…"
