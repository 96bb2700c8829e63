"""Show priorities on a real archive: does ``cheap`` pick a cheaper variant than ``best``?

A small real compile on the embedded model (the seed population only: the base, base + bootstrapped
demos, and chain of thought with demos, each scored on the whole dev set, no screening), then what
each priority picks from the archive it made. Chain of thought costs two to three times the tokens
of a plain prediction, so when it scores best, ``best`` and ``cheap`` part ways; when the plain
prediction scores best too, they rightly agree (on ``stdlib_docstrings`` with 10 dev examples they do).

    python bench/compile_priorities.py [--task stdlib_exec] [--dev 10]

Writes ``bench/results/compile_priorities.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import chrysalis as cf  # noqa: E402
import compile_tasks  # noqa: E402
from chrysalis.evolve.compile import acompile  # noqa: E402
from chrysalis.evolve.predict import resolve_model  # noqa: E402
from compile import metric_for, signature_for  # noqa: E402
from egress import provenance  # noqa: E402

PRIORITIES = ("best", "cheap", "fast", "compact", "accurate, money is no object")


async def run(args: argparse.Namespace, home: Path) -> dict[str, Any]:
    task = compile_tasks.load(args.task)

    compiled = await acompile(
        cf.Predict(signature_for(task)),
        task.train,
        metric_for(task),
        devset=compile_tasks.subset(task.dev, args.dev, 0),
        model=resolve_model(args.model),
        iterations=0,
        generated=0,
        mutations=(),
        minibatch=0,
        seed=0,
        name=f"priorities-{args.task}",
        home=home,
    )
    points = [
        {
            "id": p.id,
            "made_by": p.operator,
            "strategy": p.module.strategy,
            "demos": len(p.module.demos),
            "dev_score": p.phenotype.score,
            "tokens": p.phenotype.tokens,
            "latency_ms": p.phenotype.latency_ms,
        }
        for p in compiled.archive.points
    ]
    picks = {}
    for priority in PRIORITIES:
        choice = compiled.choose(priority)
        picks[priority] = {"id": choice.point.id, "reason": choice.reason}
        phenotype = choice.point.phenotype
        print(
            f"{priority!r:32} -> {choice.point.id} {choice.point.module.strategy} "
            f"score {phenotype.score:.2f}, {phenotype.tokens:.0f} tokens",
            flush=True,
        )
    return {"model": args.model, "task": args.task, "dev": args.dev, "points": points, "picks": picks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--task", default="stdlib_exec", choices=compile_tasks.NAMES)
    parser.add_argument("--model", default="local:qwen2.5-coder-0.5b")
    parser.add_argument("--dev", type=int, default=10)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "compile_priorities.json")
    args = parser.parse_args()
    os.environ.setdefault("CHRYSALIS_MODEL_CACHE", str(Path.home() / ".chrysalis" / "models"))
    home = Path(os.environ.get("CHRYSALIS_BENCH_HOME", "/tmp/chrysalis-bench-priorities"))
    result = {"provenance": provenance(), **asyncio.run(run(args, home))}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
