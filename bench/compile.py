"""Benchmark: does compile raise held-out scores, and how does it compare with DSPy's optimizers?

Same model (the embedded one, in process for us, over ``bench/local_server.py`` for DSPy), same
rollout budget (every model call during compile counts: evaluations, bootstrap, proposals), same
task sets (``bench/compile_tasks.py``: generated from the Python standard library, PSF License) and
the same metric (``TaskSet.score``). For each task it reports the test score of:

- zero-shot: the signature as written, no demos;
- ours: ``chrysalis.compile`` (bootstrap, mutations, MAP-Elites, reflection), its ``best`` variant
  and its ``cheap`` variant;
- DSPy (in its own virtual env, ``bench/peers/setup_dspy.sh``): zero-shot, BootstrapFewShot,
  MIPROv2, GEPA, when ``--peers`` names them.

    python bench/compile.py --rollouts 150 --test 60 --peers bootstrap,mipro,gepa

Writes ``bench/results/compile.json``. Local models cost 0 USD, so "per USD" is only reported for a
priced remote model (``--model openai:...`` with a key set).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chrysalis as cf  # noqa: E402
import compile_tasks  # noqa: E402
from chrysalis.evolve.compile import CompileProgress, acompile  # noqa: E402
from chrysalis.evolve.signature import Signature  # noqa: E402
from egress import provenance  # noqa: E402

DSPY_PYTHON = HERE / ".venv-dspy" / "bin" / "python"


def signature_for(task: compile_tasks.TaskSet) -> type[Signature]:
    """The task as a signature: string fields, the task's instructions and field descriptions."""
    fields = [
        {"name": name, "type": "str", "desc": task.field_descriptions.get(name, ""), "input": True}
        for name in task.input_fields
    ]
    fields.append(
        {
            "name": task.output_field,
            "type": "str",
            "desc": task.field_descriptions.get(task.output_field, ""),
            "input": False,
        }
    )
    return Signature.from_spec({"name": task.name, "instructions": task.instructions, "fields": fields})


subset = compile_tasks.subset  # the same seeded samples as the DSPy side takes


def metric_for(task: compile_tasks.TaskSet) -> Callable[[Mapping[str, Any], Mapping[str, Any]], float]:
    """Compile's metric: the task's own ``score`` on the output field, the rule DSPy's side is judged by."""

    def metric(example: Mapping[str, Any], prediction: Mapping[str, Any]) -> float:
        return task.score(dict(example), str(prediction[task.output_field]))

    return metric


async def evaluate(
    module: cf.Module, task: compile_tasks.TaskSet, rows: list[dict[str, Any]], model: Any
) -> dict[str, Any]:
    """Test score, mean tokens and cost per call, and wall time of ``module`` on ``rows``."""
    started = time.monotonic()
    scores, tokens, cost = [], 0, 0.0
    for row in rows:
        inputs = {name: row[name] for name in task.input_fields}
        try:
            prediction = await module.acall(model=model, **inputs)
        except cf.OutputValidationError:
            scores.append(0.0)
            continue
        scores.append(task.score(row, str(getattr(prediction, task.output_field))))
        tokens += prediction.stats.tokens
        cost += prediction.stats.cost_usd
    return {
        "score": sum(scores) / len(scores),
        "tokens_per_call": tokens / len(rows),
        "usd": cost,
        "test_seconds": time.monotonic() - started,
    }


async def run_ours(
    task: compile_tasks.TaskSet, args: argparse.Namespace, test: list[dict[str, Any]], home: Path
) -> list[dict[str, Any]]:
    """Zero-shot and our compile (best and cheap variants) on ``test``."""
    from chrysalis.evolve.predict import resolve_model

    model = resolve_model(args.model)
    base = cf.Predict(signature_for(task))
    rows: list[dict[str, Any]] = []
    zero = await evaluate(base, task, test, model)
    rows.append({"system": "zero-shot (ours)", "compile_rollouts": 0, "compile_seconds": 0.0, **zero})
    print(f"  zero-shot: {zero['score']:.3f} ({zero['test_seconds']:.0f} s)", flush=True)

    last: list[CompileProgress] = []
    started = time.monotonic()
    compiled = await acompile(
        base,
        task.train,
        metric_for(task),
        devset=subset(task.dev, args.dev, args.seed),
        model=model,
        rollouts=args.rollouts,
        iterations=50,
        children=3,
        k_demos=args.k_demos,
        seed=args.seed,
        name=f"bench-{task.name}",
        home=home,
        progress=last.append,
    )
    compile_seconds = time.monotonic() - started
    report = last[-1]
    print(
        f"  compile: {len(compiled.archive.points)} variants, {report.rollouts} rollouts, {compile_seconds:.0f} s",
        flush=True,
    )
    for priority in ("best", "cheap"):
        choice = compiled.choose(priority)
        result = await evaluate(choice.point.module, task, test, model)
        rows.append(
            {
                "system": f"chrysalis compile ({priority})",
                "compile_rollouts": report.rollouts,
                "compile_seconds": compile_seconds,
                "variants": len(compiled.archive.points),
                "screened_out": compiled.archive.meta["screened_out"],
                "dev_score": choice.point.phenotype.score,
                "variant": choice.point.id,
                "variant_made_by": choice.point.operator,
                "demos": len(choice.point.module.demos),
                "strategy": choice.point.module.strategy,
                **result,
            }
        )
        print(
            f"  compiled {priority}: {result['score']:.3f} "
            f"(dev {choice.point.phenotype.score:.3f}, {choice.point.operator})",
            flush=True,
        )
    return rows


def run_peers(
    task: compile_tasks.TaskSet, args: argparse.Namespace, url: str, optimizers: list[str]
) -> list[dict[str, Any]]:
    """DSPy's ``optimizers``, one subprocess each, in DSPy's own virtual env."""
    rows: list[dict[str, Any]] = []
    for optimizer in optimizers:
        command = [
            str(DSPY_PYTHON),
            str(HERE / "peers" / "dspy_compile.py"),
            "--task",
            task.name,
            "--url",
            url,
            "--optimizer",
            optimizer,
            "--rollouts",
            str(args.rollouts),
            "--seed",
            str(args.seed),
            "--limit-test",
            str(args.test),
            "--dev",
            str(args.dev),
            "--model",
            args.model.partition(":")[2],
        ]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(f"  dspy {optimizer} failed:\n{done.stderr[-2000:]}", flush=True)
            rows.append({"system": f"DSPy {optimizer}", "error": done.stderr[-500:]})
            continue
        result = json.loads(done.stdout.strip().splitlines()[-1])
        result.setdefault("test_seconds", result.get("eval_seconds", 0.0))
        rows.append({"system": f"DSPy {optimizer}", **result})
        print(f"  dspy {optimizer}: {result.get('score')}", flush=True)
    return rows


def rerun_plan(
    previous: list[dict[str, Any]], peers: list[str], *, peers_only: bool
) -> tuple[list[dict[str, Any]], list[str]]:
    """The rows of an earlier run that a partial rerun keeps, and the DSPy optimizers to run.

    Rows that are rerun go: ours unless ``peers_only``, and DSPy's named ``peers``. DSPy's
    zero-shot runs only when no kept row has it. A full run (``previous`` empty) keeps nothing and
    runs zero-shot and every named optimizer.
    """
    rerun = {f"DSPy {o}" for o in peers}
    kept = [r for r in previous if r["system"] not in rerun and (peers_only or r["system"].startswith("DSPy"))]
    has_zero_shot = any(r["system"] == "DSPy zero-shot" for r in kept)
    return kept, ([] if has_zero_shot else ["zero-shot"]) + peers


def start_server(model: str) -> tuple[subprocess.Popen[str], str]:
    """``bench/local_server.py`` on a free port; returns the process and its URL."""
    process = subprocess.Popen(
        [sys.executable, str(HERE / "local_server.py"), "--model", model.partition(":")[2], "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    url = process.stdout.readline().strip()
    return process, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", default=",".join(compile_tasks.NAMES))
    parser.add_argument("--model", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--rollouts", type=int, default=150)
    parser.add_argument("--dev", type=int, default=20, help="dev examples used to score variants")
    parser.add_argument("--test", type=int, default=60, help="test examples (a seeded sample)")
    parser.add_argument("--k-demos", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--peers", default="", help="comma-separated: bootstrap,mipro,gepa")
    parser.add_argument("--out", type=Path, default=HERE / "results" / "compile.json")
    parser.add_argument(
        "--peers-only", action="store_true", help="(re)run the --peers optimizers into an existing --out file"
    )
    parser.add_argument("--ours-only", action="store_true", help="rerun our rows into an existing --out file")
    args = parser.parse_args()
    args.peers = [p for p in args.peers.split(",") if p]
    home = Path(os.environ.get("CHRYSALIS_BENCH_HOME", "/tmp/chrysalis-bench-compile"))
    os.environ.setdefault("CHRYSALIS_MODEL_CACHE", str(Path.home() / ".chrysalis" / "models"))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {
        "model": args.model,
        "rollouts": args.rollouts,
        "dev": args.dev,
        "test": args.test,
        "seed": args.seed,
        "python": sys.version.split()[0],
        "tasks": {},
    }
    if (args.peers_only or args.ours_only) and not args.out.is_file():
        parser.error(f"--peers-only and --ours-only add to an earlier run's results, but {args.out} does not exist")
    if args.peers_only or args.ours_only:
        results = {**json.loads(args.out.read_text()), "rollouts": args.rollouts}
    server = None
    try:
        if args.peers:
            server, url = start_server(args.model)
        for name in args.tasks.split(","):
            task = compile_tasks.load(name)
            test = subset(task.test, args.test, args.seed)
            print(f"{name}: train {len(task.train)}, dev {args.dev} of {len(task.dev)}, test {len(test)}", flush=True)
            previous = results["tasks"].get(name, {}).get("rows", []) if args.peers_only or args.ours_only else []
            rows, optimizers = rerun_plan(previous, args.peers, peers_only=args.peers_only)
            if not args.peers_only:
                rows = asyncio.run(run_ours(task, args, test, home)) + rows
            if args.peers:
                rows += run_peers(task, args, url, optimizers)
            results["tasks"][name] = {"source": task.source, "licence": task.licence, "rows": rows}
            results["provenance"] = provenance()
            args.out.write_text(json.dumps(results, indent=2))  # after each task, so a long run keeps its results
    finally:
        if server is not None:
            server.terminate()
    print_table(results)


def print_table(results: dict[str, Any]) -> None:
    print(f"\nmodel {results['model']}, budget {results['rollouts']} rollouts, test {results['test']} examples")
    print("| task | system | test score | compile rollouts | score gain per 100 rollouts | compile s | test s |")
    print("|---|---|---|---|---|---|---|")
    for name, block in results["tasks"].items():
        zeros = {r["system"]: r.get("score", 0.0) for r in block["rows"]}
        for row in block["rows"]:
            if "error" in row:
                print(f"| {name} | {row['system']} | failed | | | | |")
                continue
            family = "DSPy zero-shot" if row["system"].startswith("DSPy") else "zero-shot (ours)"
            zero = zeros.get(family, 0.0)
            spent = row.get("compile_rollouts") or 0
            gain = f"{100 * (row['score'] - zero) / spent:+.3f}" if spent else "-"
            print(
                f"| {name} | {row['system']} | {row['score']:.3f} | {spent} | {gain} | "
                f"{row.get('compile_seconds', 0):.0f} | {row.get('test_seconds', 0):.0f} |"
            )


if __name__ == "__main__":
    main()
