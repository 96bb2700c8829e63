"""The dashboard's HTML: one page layout, a table, a few formatters, and escaping that cannot be forgotten.

Every value shown comes from a model or a user (tasks, answers, tool arguments), so the rule is
structural: a ``Safe`` string is markup we built, anything else is text and is escaped where it is
placed (``esc``). Helpers accept either and escape what is not ``Safe``; pages only concatenate
``Safe`` pieces. Nothing here reaches the network: the CSS is inline, the fonts are the system's,
and there is no script (the Content-Security-Policy in ``dashboard.py`` forbids any).
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable, Sequence
from urllib.parse import quote

__all__ = [
    "REFRESH_S",
    "Safe",
    "badge",
    "empty",
    "esc",
    "join",
    "link",
    "page",
    "pct",
    "seconds",
    "table",
    "url",
    "usd",
    "when",
]

REFRESH_S = 5
"""How often a live page (one showing what still changes) reloads itself."""

NAV = (
    ("/", "Runs"),
    ("/stats", "Stats"),
    ("/archive", "Archive"),
    ("/decompositions", "Decompositions"),
    ("/queue", "Queue"),
)


class Safe(str):
    """Markup built by this module's helpers: already escaped, placed as is."""

    __slots__ = ()

    def __add__(self, other: str) -> Safe:
        """Markup followed by ``other``: escaped unless it is markup too, so ``+`` keeps the rule."""
        return Safe(str.__add__(self, esc(other)))


Cell = object
"""A table cell: ``Safe`` markup, or any value shown as escaped text."""


def esc(value: object) -> Safe:
    """``value`` as HTML text (quotes too, so it is safe in attributes); ``Safe`` markup passes unchanged."""
    if isinstance(value, Safe):
        return value
    return Safe(html.escape("" if value is None else str(value), quote=True))


def join(parts: Iterable[object], sep: str = "") -> Safe:
    """Escape each part that is not ``Safe`` and concatenate them."""
    return Safe(sep.join(esc(part) for part in parts))


def url(*segments: str) -> str:
    """A path of ours with each segment percent-encoded (ids come from the stores, never trusted)."""
    return "/" + "/".join(quote(segment, safe="") for segment in segments)


def link(href: str, text: object) -> Safe:
    """``<a>`` to one of our own paths."""
    return Safe(f'<a href="{esc(href)}">{esc(text)}</a>')


def badge(text: str, kind: str) -> Safe:
    """A small coloured label (``kind``: ok, bad, warn, idle)."""
    return Safe(f'<span class="badge {esc(kind)}">{esc(text)}</span>')


def empty(what: str, command: str) -> Safe:
    """The friendly "nothing yet" line: what would be here, and the command that fills it."""
    return Safe(f'<p class="empty">No {esc(what)} yet. <code>{esc(command)}</code> fills this page.</p>')


def table(headers: Sequence[str], rows: Iterable[Sequence[Cell]], *, numeric: Sequence[int] = ()) -> Safe:
    """A table; ``numeric`` columns (by index) are right-aligned."""
    head = "".join(f"<th{_align(i, numeric)}>{esc(h)}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{_align(i, numeric)}>{esc(cell)}</td>" for i, cell in enumerate(row)) + "</tr>"
        for row in rows
    )
    return Safe(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>")


def _align(index: int, numeric: Sequence[int]) -> str:
    return ' class="num"' if index in numeric else ""


def when(ts: float | None) -> str:
    """A timestamp in local time, to the second."""
    return "" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def seconds(value: float | None) -> str:
    """Seconds with one decimal."""
    return "" if value is None else f"{value:.1f}"


def usd(value: float | None) -> str:
    """USD with four decimals (local models cost 0.0000)."""
    return "" if value is None else f"{value:.4f}"


def pct(rate: float) -> str:
    """A 0..1 rate as a whole percentage."""
    return f"{rate * 100:.0f}%"


def page(title: str, body: Safe, *, active: str = "", live: bool = False) -> str:
    """A whole document: the navigation (``active`` is the current section's path) and ``body``.

    A ``live`` page shows something still changing (a running run, a queue with work in it): it
    reloads itself every ``REFRESH_S`` seconds with a ``<meta http-equiv="refresh">``, since the
    pages have no script to update them in place.
    """
    nav = "".join(f'<a href="{path}"{_ON if path == active else ""}>{label}</a>' for path, label in NAV)
    refresh = f'<meta http-equiv="refresh" content="{REFRESH_S}">' if live else ""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="referrer" content="no-referrer">{refresh}'
        f"<title>{esc(title)} · Chrysalis</title><style>{CSS}</style></head><body>"
        f'<header><span class="brand">Chrysalis</span><nav>{nav}</nav></header>'
        f"<main><h1>{esc(title)}</h1>{body}</main></body></html>"
    )


_ON = ' class="on"'

CSS = """
:root { --fg:#1d232b; --muted:#66707c; --line:#dde2e8; --bg:#f6f7f9; --card:#fff; --accent:#3b5bdb; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color:var(--fg);
       background:var(--bg); }
header { display:flex; gap:24px; align-items:center; padding:10px 24px; background:#1d232b; color:#fff; }
.brand { font-weight:700; letter-spacing:.02em; }
nav a { color:#c9d1dc; text-decoration:none; margin-right:16px; padding:4px 0; }
nav a.on, nav a:hover { color:#fff; border-bottom:2px solid #8ea2ff; }
main { padding:16px 24px 40px; max-width:1280px; }
h1 { font-size:20px; margin:6px 0 14px; }
h2 { font-size:16px; margin:22px 0 8px; }
a { color:var(--accent); }
table { border-collapse:collapse; background:var(--card); border:1px solid var(--line); margin:6px 0 14px;
        width:100%; }
th, td { padding:5px 9px; border-bottom:1px solid var(--line); text-align:left; vertical-align:top; }
th { background:#eef1f5; font-weight:600; font-size:13px; }
td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; white-space:nowrap; }
code, pre { font:12px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; }
pre { margin:4px 0 0; padding:8px; background:#f0f2f5; border-radius:4px; white-space:pre-wrap;
      word-break:break-word; max-height:320px; overflow:auto; }
details summary { cursor:pointer; color:var(--muted); }
.empty { padding:14px 16px; background:var(--card); border:1px dashed #b8c0cc; border-radius:6px; }
.muted { color:var(--muted); }
.cards { display:flex; gap:12px; flex-wrap:wrap; margin:4px 0 10px; }
.card { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:8px 14px; min-width:120px; }
.card b { display:block; font-size:20px; }
.badge { display:inline-block; padding:1px 7px; border-radius:9px; font-size:12px; background:#e9ecef; }
.badge.ok { background:#d3f2dc; color:#14532d; } .badge.bad { background:#fde0e0; color:#7f1d1d; }
.badge.warn { background:#fff1c2; color:#713f12; } .badge.idle { background:#e9ecef; color:#374151; }
.grid td.cell { width:38%; text-align:center; }
.grid td.cell b { font-size:18px; display:block; }
.grid td.none { color:#9aa3ae; background:#f3f4f6; text-align:center; }
ul.tree { list-style:none; padding-left:20px; margin:4px 0; border-left:1px solid var(--line); }
ul.tree.root { border-left:none; padding-left:0; }
ul.tree li { margin:3px 0; }
.op { color:#0e7490; font-family:ui-monospace, monospace; font-size:12px; }
.box { background:var(--card); border:1px solid var(--line); border-radius:6px; padding:10px 14px; margin:8px 0 14px; }
"""
