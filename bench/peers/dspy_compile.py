"""DSPy's optimizers on our task sets and our embedded model: the peer side of the compile benchmark.

Why this shape: the benchmark compares our compile with DSPy's on the same model and the same
rollout budget, so this script (1) builds a DSPy signature from the task set's own instructions
and fields, (2) talks to the very model our compile uses, served by ``bench/local_server.py``,
(3) reads the server's ``/stats`` before and after each phase, so the rollouts it reports are the
model calls that really happened (DSPy's retries, adapter fallbacks and proposal calls included),
and (4) judges answers with ``TaskSet.score``, the metric our side uses too. DSPy's disk and memory
caches are off, so a repeated call costs a real rollout.

It runs in its own virtual env (``bash bench/peers/setup_dspy.sh``; litellm needs openai<3, the
product pins openai>=3.31) and never imports chrysalis::

    .venv/bin/python bench/local_server.py --model qwen2.5-coder-0.5b --port 0   # prints URL
    bench/.venv-dspy/bin/python bench/peers/dspy_compile.py stdlib_docstrings URL \\
        --optimizer mipro --budget 300 --seed 0 [--limit-test 20]

Prints one JSON object on stdout (DSPy's own chatter goes to stderr). How the budget (model calls
during compile) maps onto each optimizer's knobs is in ``plan``; the plan's estimate is printed
next to the measured count, which is the number to report.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import logging
import math
import os
import platform
import random
import socket
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

# litellm and DSPy fetch a model price map from the internet on first use unless told not to;
# this benchmark talks to 127.0.0.1 only, so they use the copy bundled with the package.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import dspy  # after the environment above

OPTIMIZERS = ("zero-shot", "bootstrap", "mipro", "gepa")
COMPLETED_MARKER = "[[ ## completed ## ]]"
TASKS_FILE = Path(__file__).resolve().parents[1] / "compile_tasks.py"


def loopback_only() -> None:
    """Make any connection off this machine fail at once, so no library can phone home mid-run."""
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not str(address[0]).startswith(("127.", "::1")):
            raise OSError(f"dspy_compile talks to 127.0.0.1 only (refused {address[0]}:{address[1]})")
        connect(self, address)

    socket.socket.connect = guarded  # type: ignore[method-assign,assignment]


def load_tasks_module() -> ModuleType:
    """Import ``bench/compile_tasks.py`` by path (standard library only, so it loads in this venv)."""
    spec = importlib.util.spec_from_file_location("compile_tasks", TASKS_FILE)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {TASKS_FILE}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["compile_tasks"] = module  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(module)
    return module


# --- the server's counters ---------------------------------------------------------------------


@dataclass(frozen=True)
class Usage:
    """Model calls and tokens between two ``/stats`` readings."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    errors: int
    generation_seconds: float


def read_stats(url: str) -> dict[str, Any]:
    """The server's counters (``GET /stats``)."""
    with urllib.request.urlopen(f"{url}/stats", timeout=30) as response:
        stats: dict[str, Any] = json.loads(response.read())
    return stats


@contextlib.contextmanager
def metered(url: str) -> Iterator[dict[str, Any]]:
    """Yield a dict filled, on exit, with the ``Usage`` and wall seconds of the block."""
    out: dict[str, Any] = {}
    before, started = read_stats(url), time.perf_counter()
    try:
        yield out
    finally:
        after = read_stats(url)
        out["seconds"] = time.perf_counter() - started
        out["usage"] = Usage(
            calls=after["requests"] - before["requests"],
            prompt_tokens=after["prompt_tokens"] - before["prompt_tokens"],
            completion_tokens=after["completion_tokens"] - before["completion_tokens"],
            errors=after["errors"] - before["errors"],
            generation_seconds=round(after["generation_seconds"] - before["generation_seconds"], 3),
        )


# --- the task as DSPy sees it ------------------------------------------------------------------


def make_signature(task: Any) -> type[dspy.Signature]:
    """The DSPy twin of the task: same instructions, same field names and descriptions, all ``str``."""
    fields: dict[str, Any] = {
        name: (str, dspy.InputField(desc=task.field_descriptions[name])) for name in task.input_fields
    }
    fields[task.output_field] = (str, dspy.OutputField(desc=task.field_descriptions[task.output_field]))
    signature: type[dspy.Signature] = dspy.make_signature(
        fields, task.instructions, signature_name=task.name.title().replace("_", "")
    )
    return signature


def to_examples(task: Any, rows: list[dict[str, Any]]) -> list[dspy.Example]:
    """DSPy examples holding only the signature's fields (ids and template names stay out of prompts)."""
    keys = (*task.input_fields, task.output_field)
    return [dspy.Example(**{key: row[key] for key in keys}).with_inputs(*task.input_fields) for row in rows]


def make_metric(task: Any, *, feedback: bool) -> Callable[..., Any]:
    """Exact match by ``TaskSet.score``; with ``feedback`` (GEPA) it also says what was expected.

    GEPA's reflection reads textual feedback; a bare score would starve it, and our own reflective
    optimizer sees the expected answer of a failed example too, so this keeps the comparison fair.
    """

    def metric(gold: Any, pred: Any, trace: Any = None, pred_name: Any = None, pred_trace: Any = None) -> Any:
        got = str(getattr(pred, task.output_field, "") or "")
        score = task.score(dict(gold), got)
        if not feedback:
            return score
        expected = gold[task.output_field]
        note = "Correct." if score else f"Wrong: the answer was {got!r}; the expected answer is {expected!r}."
        return dspy.Prediction(score=score, feedback=note)

    return metric


# --- budgets -----------------------------------------------------------------------------------


def plan(optimizer: str, budget: int, n_train: int, n_dev: int) -> dict[str, Any]:
    """Each optimizer's knobs for about ``budget`` model calls during compile, and the estimate.

    - bootstrap: one teacher call per training example until ``max_bootstrapped_demos`` succeed, so at
      most ``len(trainset) * max_rounds`` calls; the trainset is cut to the budget.
    - mipro: (N - 2) bootstrap runs over ``S`` examples, ~N + S/10 + 3 proposal calls, and
      ``num_trials + 1`` evaluations on a valset of ``V``; N and T follow MIPROv2's own rule of thumb.
    - gepa: ``max_metric_calls`` is the budget (reflection calls come on top, and are counted);
      the Pareto valset is a tenth of it so that several candidates can get a full evaluation.
    """
    if optimizer == "zero-shot":
        return {"estimated_calls": 0}
    if optimizer == "bootstrap":
        train = min(n_train, budget)
        rounds = max(1, min(3, budget // max(train, 1)))
        return {"train_size": train, "max_rounds": rounds, "estimated_calls": train * rounds}
    if optimizer == "gepa":
        return {"max_metric_calls": budget, "val_size": max(3, min(n_dev, budget // 10)), "estimated_calls": budget}
    if optimizer == "mipro":
        n = max(3, min(10, budget // 60))
        trials = max(2, int(max(2 * 2 * math.log2(n), 1.5 * n)))
        train = max(4, min(n_train, int(0.3 * budget / max(n - 2, 1))))
        proposals = n + math.ceil(train / 10) + 3
        val = max(2, min(n_dev, (budget - (n - 2) * train - proposals) // (trials + 1)))
        estimate = (n - 2) * train + proposals + val * (trials + 1)
        return {
            "num_candidates": n,
            "num_trials": trials,
            "train_size": train,
            "val_size": val,
            "estimated_calls": estimate,
        }
    raise ValueError(f"unknown optimizer {optimizer!r}; choose one of {', '.join(OPTIMIZERS)}")


def compile_program(
    optimizer: str,
    student: dspy.Module,
    task: Any,
    dev_rows: list[dict[str, Any]],
    knobs: dict[str, Any],
    lm: dspy.LM,
    proposer_lm: dspy.LM,
    seed: int,
    demos: int,
) -> dspy.Module:
    """Run one DSPy optimizer with the planned knobs; zero-shot returns the student as is."""
    train, dev = to_examples(task, task.train), to_examples(task, dev_rows)
    random.Random(seed).shuffle(train)
    if optimizer == "zero-shot":
        return student
    if optimizer == "bootstrap":
        bootstrap = dspy.BootstrapFewShot(
            metric=make_metric(task, feedback=False),
            max_bootstrapped_demos=demos,
            max_labeled_demos=demos,
            max_rounds=knobs["max_rounds"],
        )
        return bootstrap.compile(student, trainset=train[: knobs["train_size"]])
    if optimizer == "mipro":
        mipro = dspy.MIPROv2(
            metric=make_metric(task, feedback=False),
            prompt_model=proposer_lm,
            task_model=lm,
            max_bootstrapped_demos=demos,
            max_labeled_demos=demos,
            auto=None,
            num_candidates=knobs["num_candidates"],
            num_threads=1,
            seed=seed,
            verbose=False,
        )
        return mipro.compile(
            student,
            trainset=train[: knobs["train_size"]],
            valset=dev[: knobs["val_size"]],
            num_trials=knobs["num_trials"],
            minibatch=False,
        )
    gepa = dspy.GEPA(
        metric=make_metric(task, feedback=True),
        max_metric_calls=knobs["max_metric_calls"],
        reflection_lm=proposer_lm,
        num_threads=1,
        seed=seed,
        track_stats=False,
    )
    return gepa.compile(student, trainset=train, valset=dev[: knobs["val_size"]])


# --- evaluation --------------------------------------------------------------------------------


def evaluate(program: dspy.Module, task: Any, rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Score ``program`` on ``rows`` one by one, counting answers DSPy could not parse as wrong."""
    correct, failures = 0.0, 0
    samples: list[dict[str, Any]] = []
    for row, example in zip(rows, to_examples(task, rows), strict=True):
        try:
            got = str(getattr(program(**example.inputs()), task.output_field, "") or "")
        except Exception as exc:  # AdapterParseError and friends: DSPy gave up on the reply
            failures += 1
            got = f"<{type(exc).__name__}>"
        score = task.score(row, got)
        correct += score
        if len(samples) < 5:
            samples.append({"id": row["id"], "expected": row[task.output_field], "got": got[:80], "score": score})
    return {
        "correct": correct,
        "n": len(rows),
        "score": correct / max(len(rows), 1),
        "failures": failures,
        "samples": samples,
    }


def describe(program: dspy.Module) -> dict[str, Any]:
    """What compile produced: the instructions and the number of demos of each predictor."""
    return {
        name: {"instructions": predictor.signature.instructions, "demos": len(predictor.demos)}
        for name, predictor in program.named_predictors()
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    """Compile with the chosen optimizer, evaluate on test, and return the report."""
    tasks = load_tasks_module()
    task = tasks.load(args.task)
    url = args.url.rstrip("/").removesuffix("/v1")
    model = args.model or json.loads(urllib.request.urlopen(f"{url}/v1/models", timeout=30).read())["data"][0]["id"]
    # DSPy's ChatAdapter ends every reply with this marker; small models keep writing after it (the
    # pattern again, or code) until max_tokens, so the server is asked to stop there (--no-stop: don't).
    extra = {} if args.no_stop else {"stop": [COMPLETED_MARKER]}
    common: dict[str, Any] = {"api_base": f"{url}/v1", "api_key": "local", "cache": False, **extra}
    lm = dspy.LM(f"openai/{model}", temperature=0.0, max_tokens=args.max_tokens, **common)
    proposer_lm = dspy.LM(f"openai/{model}", temperature=1.0, max_tokens=args.proposer_max_tokens, **common)
    dspy.configure_cache(enable_disk_cache=False, enable_memory_cache=False)
    dspy.configure(lm=lm)
    random.seed(args.seed)
    dev_rows = tasks.subset(task.dev, args.dev, args.seed)
    knobs = plan(args.optimizer, args.budget, len(task.train), len(dev_rows))
    student = dspy.Predict(make_signature(task))
    with metered(url) as compiled, contextlib.redirect_stdout(sys.stderr):
        program = compile_program(
            args.optimizer, student, task, dev_rows, knobs, lm, proposer_lm, args.seed, args.demos
        )
    test_rows = tasks.subset(task.test, args.limit_test, args.seed)
    with metered(url) as evaluated, contextlib.redirect_stdout(sys.stderr):
        result = evaluate(program, task, test_rows)
    calls = evaluated["usage"].calls
    return {
        "task": task.name,
        "optimizer": args.optimizer,
        "model": model,
        "budget": args.budget,
        "seed": args.seed,
        "test_score": round(result["score"], 4),
        "score": round(result["score"], 4),
        "test_correct": result["correct"],
        "test_n": result["n"],
        "test_parse_failures": result["failures"],
        "compile_rollouts": compiled["usage"].calls,
        "compile_estimated_rollouts": knobs.get("estimated_calls"),
        "compile_usage": vars(compiled["usage"]),
        "compile_seconds": round(compiled["seconds"], 2),
        "eval_rollouts": calls,
        "eval_usage": vars(evaluated["usage"]),
        "eval_seconds": round(evaluated["seconds"], 2),
        "eval_seconds_per_call": round(evaluated["seconds"] / calls, 3) if calls else None,
        "knobs": knobs,
        "stop": None if args.no_stop else COMPLETED_MARKER,
        "program": describe(program),
        "samples": result["samples"],
        "dspy": dspy.__version__,
        "python": platform.python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run, print one JSON object."""
    parser = argparse.ArgumentParser(description="Compile a task with one of DSPy's optimizers against a local server.")
    parser.add_argument("task", nargs="?", help="stdlib_docstrings or stdlib_exec (or --task)")
    parser.add_argument("url", nargs="?", help="the server's URL as bench/local_server.py prints it (or --url)")
    parser.add_argument("--task", dest="task_flag", help=argparse.SUPPRESS)
    parser.add_argument("--url", dest="url_flag", help=argparse.SUPPRESS)
    parser.add_argument("--optimizer", choices=OPTIMIZERS, default="zero-shot")
    parser.add_argument(
        "--budget", "--rollouts", type=int, default=100, help="model calls allowed during compile (default: 100)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds DSPy and the --limit-test/--dev samples")
    parser.add_argument(
        "--limit-test", type=int, default=0, metavar="N", help="evaluate on a seeded sample of N test examples"
    )
    parser.add_argument("--dev", type=int, default=0, metavar="N", help="use at most N dev examples as the valset")
    parser.add_argument("--model", help="the model name to send (default: the one the server lists)")
    parser.add_argument("--demos", type=int, default=4, help="max bootstrapped (and labeled) demos (default: 4)")
    parser.add_argument("--max-tokens", type=int, default=256, help="answer tokens per task call (default: 256)")
    parser.add_argument("--proposer-max-tokens", type=int, default=1024, help="tokens per proposal/reflection call")
    parser.add_argument("--no-stop", action="store_true", help=f"do not ask the server to stop at {COMPLETED_MARKER}")
    args = parser.parse_args(argv)
    args.task = args.task or args.task_flag
    args.url = args.url or args.url_flag
    if not args.task or not args.url:
        parser.error("give the task set and the server URL (positionally, or as --task and --url)")
    if args.budget < 1 and args.optimizer != "zero-shot":
        parser.error("--budget must be at least 1")
    logging.getLogger("LiteLLM").setLevel(logging.WARNING)
    loopback_only()
    print(json.dumps(run(args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
