"""``chrysalis compile FILE.py:NAME --train data.jsonl --metric exact``: compile a module from the shell.

``NAME`` in ``FILE.py`` may be a ``Module`` (``Predict(...)``/``ChainOfThought(...)``), a
``Signature`` subclass or a shorthand string (both become ``Predict``). ``--metric custom`` uses the
function ``metric(example, prediction)`` defined in the same file (``custom:FUNC`` names another).
Progress goes to stderr; the result is a table of the archive and how to load it from Python.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from types import ModuleType

    from rich.console import Console

    from chrysalis.evolve.compile import CompileProgress
    from chrysalis.evolve.module import Module

__all__ = ["compile_command", "load_examples", "load_target"]


def compile_command(target: str, train: Path, metric: str, options: dict[str, Any], console: Console) -> int:
    """Compile ``target`` on the examples in ``train``; 0 when an archive was made."""
    from chrysalis.config import load_settings
    from chrysalis.evolve.compile import compile as compile_module

    module, source = load_target(target)
    trainset = load_examples(train, "--train")
    dev_path = options.pop("dev", None)
    devset = load_examples(dev_path, "--dev") if dev_path is not None else None
    metric_value = _metric(metric, source, target)
    flags = {k: options.pop(k) for k in ("model", "base_url") if options.get(k) is not None}
    settings = load_settings(flags)
    model = settings.model if "model" in flags or module.model is None else module.model
    if settings.base_url is not None:
        from chrysalis.llm.providers import build_model

        model = build_model(settings)
    options = {k: v for k, v in options.items() if v is not None}
    progress, stop = _progress_bar()
    try:
        compiled = compile_module(
            module, trainset, metric_value, devset=devset, model=model, home=settings.home, progress=progress, **options
        )
    except ValueError as exc:
        raise UsageError(f"{exc}.") from exc
    finally:
        stop()
    from chrysalis.cli.archive_cmd import render_archive

    render_archive(compiled.archive, console)
    console.print(
        f"saved as archive {compiled.archive.name!r} version {compiled.archive.version}; "
        f"use it with `chrysalis.CompiledModule.load({compiled.archive.name!r})(..., priority='cheap')`"
    )
    return 0


def load_target(target: str) -> tuple[Module, ModuleType]:
    """The module ``FILE.py:NAME`` names, and the loaded file (for a custom metric).

    Raises:
        UsageError: malformed target, missing file, a file that fails to import, or a name that is
            missing or not a module/signature; the message lists what the file does define.
    """
    from chrysalis.evolve.module import Module, Predict
    from chrysalis.evolve.signature import Signature

    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text.endswith(".py") or not name.isidentifier():
        raise UsageError(f"compile target {target!r} must look like FILE.py:NAME, e.g. qa.py:qa")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"compile target file {path_text!r} does not exist")
    source = _import_file(path)
    value = getattr(source, name, None)
    if isinstance(value, Module):
        return value, source
    if isinstance(value, str) or (isinstance(value, type) and issubclass(value, Signature)):
        try:
            return Predict(value), source
        except ValueError as exc:
            raise UsageError(f"{target}: {exc}") from exc
    found = sorted(
        key
        for key, item in vars(source).items()
        if isinstance(item, Module) or (isinstance(item, type) and issubclass(item, Signature) and item.fields)
    )
    what = "is not defined" if value is None else f"is a {type(value).__name__}, not a Module or Signature"
    raise UsageError(f"{name!r} in {path_text} {what}; modules and signatures there: {found or 'none'}")


def _import_file(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"chrysalis_compile_target_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot import {path} as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise UsageError(f"importing {path} failed: {type(exc).__name__}: {exc}") from exc
    return module


def load_examples(path: Path, flag: str) -> list[dict[str, Any]]:
    """Examples from a JSON Lines file (one object per line; blank lines skipped).

    Raises:
        UsageError: missing file, bad JSON or a line that is not an object; names the file and line.
    """
    if not path.is_file():
        raise UsageError(f"{flag} file {str(path)!r} does not exist")
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{path}:{number}: not valid JSON ({exc.msg}); {flag} needs one object per line") from exc
        if not isinstance(row, dict):
            raise UsageError(f"{path}:{number}: a {type(row).__name__}, not a JSON object of fields")
        rows.append(row)
    return rows


def _metric(metric: str, source: ModuleType, target: str) -> Any:
    from chrysalis.evolve.metrics import METRICS

    if metric in METRICS:
        return metric
    if metric == "custom" or metric.startswith("custom:"):
        name = metric.partition(":")[2] or "metric"
        fn = getattr(source, name, None)
        if not callable(fn):
            where = target.rpartition(":")[0]
            raise UsageError(f"--metric {metric} needs a function {name}(example, prediction) -> float in {where}")
        return fn
    raise UsageError(f"--metric {metric!r} is unknown; use {', '.join(METRICS)}, custom or custom:FUNC")


def _progress_bar() -> tuple[Any, Any]:
    """A rich progress bar on stderr fed by compile's progress reports, and a function to stop it."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} rollouts"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    task = bar.add_task("loading the model", total=None)
    bar.start()

    def update(report: CompileProgress) -> None:
        best = "-" if report.best_score is None else f"{report.best_score:.3f}"
        replayed = f", {report.replayed} replayed" if report.replayed else ""
        screened = f", {report.screened_out} screened out" if report.screened_out else ""
        description = f"{report.phase}: {report.candidates} variants{screened}, best {best}{replayed}"
        bar.update(task, completed=report.rollouts, total=report.rollout_budget, description=description)

    return update, bar.stop
