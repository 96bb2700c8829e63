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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chrysalis.errors import UsageError

if TYPE_CHECKING:
    from types import ModuleType

    from pydantic_ai.models import Model
    from rich.console import Console

    from chrysalis.evolve.compile import CompileProgress
    from chrysalis.evolve.metrics import MetricFn
    from chrysalis.evolve.module import Module
    from chrysalis.evolve.options import CompileOptions

__all__ = ["compile_command", "flag_errors", "load_examples", "load_target"]

_FLAGS = {"budget_usd": "--budget"}
"""Options whose flag is not ``--`` and the option's name with dashes."""


def compile_command(
    target: str,
    train: Path,
    metric: str,
    options: CompileOptions,
    console: Console,
    *,
    dev: Path | None = None,
    model: str | None = None,
    base_url: str | None = None,
) -> int:
    """Compile ``target`` on the examples in ``train`` (``--dev``, ``--model``, ``--base-url`` as given); 0 when done.

    The module's own model is used unless ``--model`` is given; ``--base-url`` sends it to that server.
    """
    from chrysalis.config import SettingFlags, load_settings
    from chrysalis.evolve.compile import compile as compile_module

    module, source = load_target(target)
    trainset = load_examples(train, "--train")
    devset = load_examples(dev, "--dev") if dev is not None else None
    metric_value = _metric(metric, source, target)
    settings = load_settings(SettingFlags(model=model, base_url=base_url))
    chosen: str | Model | None = settings.model if model is not None or module.model is None else module.model
    if settings.base_url is not None:
        from chrysalis.llm.providers import build_model

        chosen = build_model(settings)
    progress, stop = _progress_bar()
    try:
        with flag_errors():
            compiled = compile_module(
                module,
                trainset,
                metric_value,
                options,
                devset=devset,
                model=chosen,
                home=settings.home,
                progress=progress,
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


@contextmanager
def flag_errors() -> Iterator[None]:
    """Turn an ``OptionError`` into a ``UsageError`` that names the flag (``k_demos`` -> ``--k-demos``).

    Wrap the making of an options object from flags, and the call that uses it, in this.
    """
    from chrysalis.evolve.options import OptionError

    try:
        yield
    except OptionError as exc:
        flag = _FLAGS.get(exc.option, "--" + exc.option.replace("_", "-"))
        raise UsageError(f"{exc.naming(flag)}.") from exc


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


def _metric(metric: str, source: ModuleType, target: str) -> str | MetricFn:
    from chrysalis.evolve.metrics import METRICS

    if metric in METRICS:
        return metric
    if metric == "custom" or metric.startswith("custom:"):
        name = metric.partition(":")[2] or "metric"
        fn: MetricFn | None = getattr(source, name, None)
        if not callable(fn):
            where = target.rpartition(":")[0]
            raise UsageError(f"--metric {metric} needs a function {name}(example, prediction) -> float in {where}")
        return fn
    raise UsageError(f"--metric {metric!r} is unknown; use {', '.join(METRICS)}, custom or custom:FUNC")


def _progress_bar() -> tuple[Callable[[CompileProgress], None], Callable[[], None]]:
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
