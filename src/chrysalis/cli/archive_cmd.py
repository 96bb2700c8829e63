"""``chrysalis archive show [NAME] [--version N] [--png FILE]``: look inside a compiled module's archive.

Without a name it lists the saved archives. With one it prints the MAP-Elites grid as a table
(rows: cheap/premium × fast/slow; columns: compact/verbose; each cell the bin's elite) and every
point with its lineage; ``--png`` also draws the grid and the point cloud with matplotlib (the
``plot`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from chrysalis.evolve.archive import ModuleArchive

__all__ = ["archive_show_command", "render_archive", "write_png"]


def archive_show_command(name: str | None, version: int | None, png: Path | None, home: Path, console: Console) -> int:
    """Print one archive (or the list of them); 0 on success."""
    from chrysalis.evolve.archive import ModuleArchive
    from chrysalis.stores import Stores

    if name is None:
        with Stores.open(home) as stores:
            names = stores.archives.names()
        if not names:
            console.print("no archives yet: `chrysalis compile FILE.py:NAME --train data.jsonl` makes one")
            return 0
        for archive_name, newest, _ in names:
            console.print(f"{archive_name}  (version {newest})")
        return 0
    try:
        archive = ModuleArchive.load(name, version=version, home=home)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from exc
    render_archive(archive, console, points=True)
    if png is not None:
        write_png(archive, png)
        console.print(f"wrote {png}")
    return 0


def render_archive(archive: ModuleArchive, console: Console, *, points: bool = False) -> None:
    """The grid of elites as a table, then (optionally) every point."""
    from rich.table import Table

    limits = archive.thresholds
    elites = archive.elites()
    meta = archive.meta
    cost_axis = "tokens" if limits.cost_in_tokens else "USD"
    console.print(
        f"[bold]{archive.name}[/bold] v{archive.version}: {len(archive.points)} variants, "
        f"model {meta.get('model', '?')}, metric {meta.get('metric', '?')}, {meta.get('rollouts', '?')} rollouts; "
        f"medians: cost {limits.cost:.4g} {cost_axis}, latency {limits.latency_ms:.0f} ms, tokens {limits.tokens:.0f}"
    )
    grid = Table(title="elites (score · id · strategy)")
    grid.add_column("bin")
    grid.add_column("compact")
    grid.add_column("verbose")
    for cost in ("cheap", "premium"):
        for speed in ("fast", "slow"):
            cells = []
            for size in ("compact", "verbose"):
                elite = elites.get((cost, speed, size))
                cells.append(
                    "-" if elite is None else f"{elite.phenotype.score:.3f} · {elite.id} · {elite.module.strategy}"
                )
            grid.add_row(f"{cost} {speed}", *cells)
    console.print(grid)
    best = archive.best
    console.print(f"best: {best.id} score {best.phenotype.score:.3f} ({best.operator})")
    if not points:
        return
    table = Table(title="points")
    for column in ("id", "score", "latency ms", "cost USD", "tokens", "bin", "made by", "parent", "demos"):
        table.add_column(column)
    for point in archive.points:
        p = point.phenotype
        table.add_row(
            point.id,
            f"{p.score:.3f}",
            f"{p.latency_ms:.0f}",
            f"{p.cost_usd:.2g}",
            f"{p.tokens:.0f}",
            " ".join(limits.bin_of(p)),
            point.operator,
            point.parent or "-",
            str(len(point.module.demos)),
        )
    console.print(table)


def write_png(archive: ModuleArchive, path: Path) -> None:
    """Draw the elite grid and the point cloud to ``path``.

    Raises:
        UsageError: matplotlib is not installed (the ``plot`` extra), or the file cannot be written.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise UsageError("--png needs matplotlib: pip install 'chrysalis-forge[plot]'") from exc
    elites = archive.elites()
    rows = [(c, s) for c in ("cheap", "premium") for s in ("fast", "slow")]
    cols = ("compact", "verbose")
    nan = float("nan")
    scores = [[elites[(c, s, v)].phenotype.score if (c, s, v) in elites else nan for v in cols] for c, s in rows]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    image = left.imshow(scores, cmap="viridis", vmin=0.0, vmax=max(1.0, archive.best.phenotype.score))
    left.set_xticks(range(2), cols)
    left.set_yticks(range(4), [f"{c} {s}" for c, s in rows])
    for i, (c, s) in enumerate(rows):
        for j, v in enumerate(cols):
            elite = elites.get((c, s, v))
            label = "empty" if elite is None else f"{elite.phenotype.score:.2f}\n{elite.id[:6]}"
            left.text(j, i, label, ha="center", va="center", color="gray" if elite is None else "black", fontsize=8)
    left.set_title("MAP-Elites grid: elite score per bin")
    figure.colorbar(image, ax=left)
    limits = archive.thresholds
    xs = [p.phenotype.tokens if limits.cost_in_tokens else p.phenotype.cost_usd for p in archive.points]
    right.scatter(xs, [p.phenotype.score for p in archive.points], c=[p.phenotype.latency_ms for p in archive.points])
    elite_ids = {p.id for p in elites.values()}
    for x, point in zip(xs, archive.points, strict=True):
        if point.id in elite_ids:
            right.annotate(point.id[:6], (x, point.phenotype.score), fontsize=7)
    right.set_xlabel("tokens per call" if limits.cost_in_tokens else "USD per call")
    right.set_ylabel("dev score")
    right.set_title(f"{len(archive.points)} variants (colour: latency)")
    figure.suptitle(f"{archive.name} v{archive.version}")
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=110)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror}") from exc
    finally:
        plt.close(figure)
