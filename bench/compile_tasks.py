"""Held-out task sets for the compile benchmark, generated from what ships with Python itself.

Why generated here: the benchmark must run offline and be reproducible, so the data cannot be
downloaded, and it should be text the model has a fair chance with but has not seen verbatim as a
benchmark. Two sets, both built in well under a second:

- ``stdlib_docstrings`` (classification): the first paragraph of the docstring of a public function,
  class or method of one of twelve standard-library modules with distinct topics; the answer is the
  module's name. Every label is masked as a word (``___``) in every input, so the task is to know
  what the text is about, not to spot the name. Classes are balanced (the same number per module)
  and each split is stratified by module.
- ``stdlib_exec`` (CRUXEval-style execution prediction): a 3-8 line standard-library-style function
  ``f`` built from one of the templates below (str/list/dict operations and helpers from textwrap,
  string, itertools, collections, re, heapq, bisect, statistics) and a call; the answer is the
  ``repr`` of what the call returns, obtained by running it here. Outputs are at most 40 characters
  so a small model can write them. Each split is stratified by template.

Source and licence: both sets are derived from the Python standard library (docstrings of its
modules, read through ``inspect`` from the running interpreter; templates written in its style),
distributed under the PSF License Agreement (https://docs.python.org/3/license.html). The data
depends on the interpreter's version (docstrings change between releases), so results should name
the Python version; within one version it is identical across runs and ``PYTHONHASHSEED`` values.

    python bench/compile_tasks.py                  # sizes per split and class balance
    python bench/compile_tasks.py --write bench/data   # NAME.{train,dev,test}.jsonl + NAME.meta.json

From code (this file has no dependency outside the standard library, so the DSPy venv can load it
by path): ``load("stdlib_docstrings")`` returns a ``TaskSet``; ``TaskSet.score(example, prediction)``
is the shared metric, so every optimizer is judged by the same rule.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import json
import random
import re
import signal
import string
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["NAMES", "CodeTimeout", "TaskSet", "load", "run_call", "stats", "subset", "write"]

NAMES = ("stdlib_docstrings", "stdlib_exec")
SEED = 20240604
SOURCE = "The Python standard library (CPython {version}), read from the running interpreter"
LICENCE = "PSF License Agreement (https://docs.python.org/3/license.html)"

Example = dict[str, Any]


@dataclass(frozen=True)
class TaskSet:
    """One task: its splits, the fields a signature needs, and the metric that judges answers."""

    name: str
    train: list[Example]
    dev: list[Example]
    test: list[Example]
    input_fields: tuple[str, ...]
    output_field: str
    instructions: str
    field_descriptions: dict[str, str]
    labels: tuple[str, ...] | None = None
    source: str = ""
    licence: str = LICENCE
    notes: dict[str, Any] = field(default_factory=dict)

    def sizes(self) -> dict[str, int]:
        """Examples per split."""
        return {"train": len(self.train), "dev": len(self.dev), "test": len(self.test)}

    def score(self, example: Example, prediction: str) -> float:
        """1.0 when ``prediction`` is the right answer for ``example``, else 0.0.

        Exact match after the normalisation any reader would grant: surrounding whitespace and
        backticks go; labels compare case-insensitively, without quotes or a final period; an execution answer
        counts when it is a Python literal whose ``repr`` is the expected one (so ``"a"`` matches
        ``'a'``), because the question is the value, not the quoting style.
        """
        expected = str(example[self.output_field])
        got = _strip_answer(prediction)
        if self.labels is not None:
            return float(got.lower().rstrip(".").strip("'\"") == expected.lower())
        if got == expected:
            return 1.0
        if len(got) > 200:
            return 0.0
        try:
            return float(repr(ast.literal_eval(got)) == expected)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return 0.0


def load(name: str, seed: int = SEED) -> TaskSet:
    """Build the task set ``name`` (one of ``NAMES``); the same seed always gives the same data."""
    if name == "stdlib_docstrings":
        return _docstrings(seed)
    if name == "stdlib_exec":
        return _exec(seed)
    raise ValueError(f"unknown task set {name!r}; choose one of {', '.join(NAMES)}")


def subset(rows: list[Example], size: int, seed: int) -> list[Example]:
    """A seeded sample of ``size`` rows (all of them, in order, when ``size`` is 0 or covers them).

    Both sides of the benchmark take their quick-run test and dev samples through this one
    function, so a shortened run still scores every system on the same examples.
    """
    if size <= 0 or size >= len(rows):
        return list(rows)
    picked = list(rows)
    random.Random(seed).shuffle(picked)
    return picked[:size]


def _strip_answer(text: str) -> str:
    """The answer without surrounding whitespace, a Markdown code fence or backticks."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("python").strip()
    return text.strip("`").strip()


def _stratified(groups: dict[str, list[Example]], rng: random.Random) -> tuple[list[Example], ...]:
    """Split every group a third each into train/dev/test (the remainder to test), then shuffle each split.

    Stratifying keeps every class (or template) in every split in the same proportion, so a
    score on test is not skewed by which classes happened to land there.
    """
    splits: tuple[list[Example], list[Example], list[Example]] = ([], [], [])
    for key in sorted(groups):
        items = list(groups[key])
        rng.shuffle(items)
        third = len(items) // 3
        splits[0].extend(items[:third])
        splits[1].extend(items[third : 2 * third])
        splits[2].extend(items[2 * third :])
    for split in splits:
        rng.shuffle(split)
    return splits


def _with_ids(name: str, splits: tuple[list[Example], ...]) -> tuple[list[Example], ...]:
    """Give each example a stable id (``NAME-SPLIT-NNN``) as its first key."""
    return tuple(
        [{"id": f"{name}-{split_name}-{i:03d}", **ex} for i, ex in enumerate(split)]
        for split_name, split in zip(("train", "dev", "test"), splits, strict=True)
    )


# --- (a) docstring -> module -------------------------------------------------------------------

DOC_MODULES = (
    "collections",
    "datetime",
    "logging",
    "math",
    "pathlib",
    "re",
    "socket",
    "sqlite3",
    "statistics",
    "tarfile",
    "threading",
    "unittest",
)
"""Twelve modules with distinct topics and at least 30 usable docstrings each on CPython 3.11."""
PER_MODULE = 30
MAX_DOC_CHARS = 300
MASK = "___"
_SIGNATURE_LINE = re.compile(r"^[\w.]+\(.*\)\s*(-+>.*)?$")
GIVEAWAYS = ("sqlite", "tar")
"""Words that are a module's name in all but spelling (SQLite, tar); masked like the names themselves."""
_LABEL_WORD = re.compile(
    r"\b(" + "|".join(sorted((*DOC_MODULES, *GIVEAWAYS), key=len, reverse=True)) + r")\b", re.IGNORECASE
)


def _first_paragraph(doc: str) -> str:
    """The docstring's first paragraph on one line, after any leading signature lines."""
    lines = inspect.cleandoc(doc).splitlines()
    while lines and (not lines[0].strip() or _SIGNATURE_LINE.match(lines[0].strip())):
        lines.pop(0)
    para: list[str] = []
    for line in lines:
        if not line.strip():
            break
        para.append(line.strip())
    return " ".join(" ".join(para).split())


def _trim(text: str, limit: int = MAX_DOC_CHARS) -> str:
    """Cut at a word boundary so a docstring fits the prompt budget."""
    if len(text) <= limit:
        return text
    return text[: limit - 3].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def _module_docstrings(module_name: str) -> list[str]:
    """Masked first paragraphs of the module's public classes, functions and their methods, in name order."""
    module = importlib.import_module(module_name)
    own = (module_name, f"_{module_name}")

    def belongs(obj: object) -> bool:
        owner = str(getattr(obj, "__module__", "") or "")
        return owner in own or owner.startswith(f"{module_name}.")

    found: list[str] = []
    for name, obj in inspect.getmembers(module):
        if name.startswith("_") or not (inspect.isclass(obj) or inspect.isroutine(obj)) or not belongs(obj):
            continue
        candidates: list[object] = [obj]
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                member = value.__func__ if isinstance(value, classmethod | staticmethod) else value
                if not attr.startswith("_") and (inspect.isroutine(member) or isinstance(member, property)):
                    candidates.append(member)
        for candidate in candidates:
            doc = getattr(candidate, "__doc__", None)
            text = _LABEL_WORD.sub(MASK, _first_paragraph(doc)) if isinstance(doc, str) else ""
            if len(text) >= 30:  # shorter ones ("Return str(self).") say too little to classify
                found.append(_trim(text))
    return found


def _docstrings(seed: int) -> TaskSet:
    per_module = {name: _module_docstrings(name) for name in DOC_MODULES}
    seen = Counter(doc for docs in per_module.values() for doc in set(docs))
    # A text two modules share has no single answer, so it goes.
    unique = {name: sorted({doc for doc in docs if seen[doc] == 1}) for name, docs in per_module.items()}
    take = min(PER_MODULE, *(len(docs) for docs in unique.values()))  # the same number per class
    rng = random.Random(seed)
    groups: dict[str, list[Example]] = {}
    for name, docs in unique.items():
        rng.shuffle(docs)
        groups[name] = [{"docstring": doc, "module": name} for doc in docs[:take]]
    labels = tuple(sorted(DOC_MODULES))
    train, dev, test = _with_ids("stdlib_docstrings", _stratified(groups, rng))
    return TaskSet(
        name="stdlib_docstrings",
        train=train,
        dev=dev,
        test=test,
        input_fields=("docstring",),
        output_field="module",
        instructions=(
            "Read the first paragraph of a docstring from the Python standard library and name the module it "
            f"documents. The module's name is hidden as {MASK}. Answer with exactly one of: {', '.join(labels)}."
        ),
        field_descriptions={
            "docstring": "the docstring's first paragraph, module names masked",
            "module": f"one of: {', '.join(labels)}",
        },
        labels=labels,
        source=SOURCE.format(version=_py_version()) + f": docstrings of {', '.join(labels)}",
        notes={"per_module": {name: len(group) for name, group in groups.items()}, "seed": seed},
    )


# --- (b) function + call -> repr of the result -------------------------------------------------

MAX_OUTPUT_CHARS = 40
PER_TEMPLATE = 12
WORDS = (
    "apple",
    "bat",
    "cat",
    "dog",
    "echo",
    "fig",
    "gold",
    "hat",
    "ink",
    "jam",
    "kite",
    "lime",
    "moon",
    "nut",
    "owl",
    "pie",
    "quiz",
    "rose",
    "sun",
    "tea",
    "urn",
    "vine",
    "wolf",
    "yak",
)

Rng = random.Random
Slots = Callable[[Rng], dict[str, object]]
Args = Callable[[Rng], tuple[object, ...]]


def _words(rng: Rng, low: int = 2, high: int = 4) -> list[str]:
    return rng.sample(WORDS, rng.randint(low, high))


def _text(rng: Rng, low: int = 2, high: int = 4) -> str:
    return " ".join(_words(rng, low, high))


def _nums(rng: Rng, low: int = 3, high: int = 6, top: int = 9) -> list[int]:
    return [rng.randint(0, top) for _ in range(rng.randint(low, high))]


def _mixed(rng: Rng) -> str:
    return "".join(rng.choice("aB3 x7Yz") for _ in range(rng.randint(4, 8)))


def _text_and_letter(rng: Rng) -> tuple[object, ...]:
    text = _text(rng)
    return text, rng.choice(text.replace(" ", ""))


def _dict_and_key(rng: Rng) -> tuple[object, ...]:
    words = _words(rng, 2, 2)
    return {w: rng.randint(0, 9) for w in words}, rng.choice([*words, rng.choice(WORDS)])


def _text_old_new(rng: Rng) -> tuple[object, ...]:
    text = _text(rng, 2, 3)
    return text, rng.choice([text[i : i + 2] for i in range(len(text) - 1)] + ["qq"]), rng.choice("*#-")


def _text_and_prefix(rng: Rng) -> tuple[object, ...]:
    text = _text(rng, 1, 2)
    return text, rng.choice([text[:1], text[:2], text[:3], "zz"])


def _text_and_word(rng: Rng) -> tuple[object, ...]:
    text = _text(rng, 2, 4)
    return text, rng.choice([*text.split(), "a", ""])


def _pick(**choices: tuple[object, ...]) -> Slots:
    """Slots drawn independently, each from its own tuple of choices."""
    return lambda rng: {key: rng.choice(values) for key, values in choices.items()}


@dataclass(frozen=True)
class Template:
    """A function with ``$slots`` for its code and a generator of call arguments."""

    name: str
    code: str
    slots: Slots
    args: Args


def _t(name: str, code: str, slots: Slots, args: Args) -> Template:
    return Template(name, inspect.cleandoc(code), slots, args)


TEMPLATES: tuple[Template, ...] = (
    _t(
        "case_join",
        """
        def f(text):
            words = text.split()
            words = [w.$op() for w in words]
            return '$sep'.join(words)
        """,
        _pick(op=("upper", "capitalize", "title", "swapcase"), sep=("-", "_", ", ", "")),
        lambda r: (_text(r, 2, 3),),
    ),
    _t(
        "count_char",
        """
        def f(text, ch):
            count = 0
            for c in text:
                if c == ch:
                    count += $k
            return count
        """,
        _pick(k=(1, 2, 3)),
        _text_and_letter,
    ),
    _t(
        "counter_top",
        """
        from collections import Counter

        def f(text):
            counts = Counter(text.replace(' ', ''))
            return counts.most_common($k)
        """,
        _pick(k=(1, 2)),
        lambda r: (_text(r, 2, 3),),
    ),
    _t(
        "wrap_lengths",
        """
        import textwrap

        def f(text, width):
            lines = textwrap.wrap(text, width)
            return [len(line) for line in lines]
        """,
        _pick(),
        lambda r: (_text(r, 3, 5), r.randint(6, 12)),
    ),
    _t(
        "shorten",
        """
        import textwrap

        def f(text):
            return textwrap.shorten(text, width=$w, placeholder='$ph')
        """,
        _pick(w=(10, 12, 15, 18), ph=("...", " [+]", "~")),
        lambda r: (_text(r, 3, 5),),
    ),
    _t(
        "run_lengths",
        """
        from itertools import groupby

        def f(s):
            return [(k, len(list(g))) for k, g in groupby($src)]
        """,
        _pick(src=("s", "sorted(s)")),
        lambda r: ("".join(r.choice("aab") for _ in range(r.randint(4, 7))),),
    ),
    _t(
        "rle",
        """
        from itertools import groupby

        def f(s):
            parts = [f'{len(list(g))}{k}' for k, g in groupby(s)]
            return '$sep'.join(parts)
        """,
        _pick(sep=("", "-", "|")),
        lambda r: ("".join(r.choice("xyz") for _ in range(r.randint(4, 8))),),
    ),
    _t(
        "dict_bump",
        """
        def f(d, key):
            d = dict(d)
            d[key] = d.get(key, $start) + $k
            return sorted(d.items())
        """,
        _pick(start=(0, 1, 10), k=(1, 2, 5)),
        _dict_and_key,
    ),
    _t(
        "slice_sum",
        """
        def f(nums):
            part = nums[$a:$b]
            part.reverse()
            return part + [sum(part)]
        """,
        _pick(a=(0, 1, 2), b=(-1, 4, 5, "")),
        lambda r: (_nums(r, 4, 7),),
    ),
    _t(
        "caesar",
        """
        import string

        def f(text):
            letters = string.ascii_lowercase
            table = str.maketrans(letters, letters[$k:] + letters[:$k])
            return text.translate(table)
        """,
        _pick(k=(1, 2, 3, 13, 25)),
        lambda r: (_text(r, 1, 2),),
    ),
    _t(
        "replace_or_reverse",
        """
        def f(text, old, new):
            if old in text:
                return text.replace(old, new, $count)
            return text[::-1]
        """,
        _pick(count=(1, 2, -1)),
        _text_old_new,
    ),
    _t(
        "every_kth",
        """
        def f(items):
            result = []
            for i, x in enumerate(items):
                if i % $k == $r:
                    result.append(x)
            return result
        """,
        _pick(k=(2, 3), r=(0, 1)),
        lambda r: (_nums(r, 5, 8),),
    ),
    _t(
        "zip_filter",
        """
        def f(keys, values):
            pairs = dict(zip(keys, values))
            return {k: v for k, v in pairs.items() if v $cmp $t}
        """,
        _pick(cmp=(">", "<", ">=", "!="), t=(2, 4, 5)),
        lambda r: (_words(r, 3, 4), _nums(r, 3, 4)),
    ),
    _t(
        "partition",
        """
        def f(text):
            head, sep, tail = text.partition('$sep')
            return tail.strip() + sep + head.$op()
        """,
        _pick(sep=(" ", "a", "o", "e"), op=("upper", "strip", "title")),
        lambda r: (_text(r, 2, 3),),
    ),
    _t(
        "sort_key",
        """
        def f(words):
            ranked = sorted(words, key=lambda w: ($key, w))
            return ranked[$part]
        """,
        _pick(key=("len(w)", "-len(w)", "w[-1]", "w.count('o')", "w[1:]"), part=(":", "1:", "::-1", ":2")),
        lambda r: (_words(r, 3, 4),),
    ),
    _t(
        "group_by",
        """
        from collections import defaultdict

        def f(words):
            groups = defaultdict(list)
            for w in words:
                groups[$key].append(w)
            return dict(groups)
        """,
        _pick(key=("len(w)", "w[-1]", "'aeiou'.find(w[0])")),
        lambda r: (_words(r, 2, 3),),
    ),
    _t(
        "collatz",
        """
        def f(n):
            steps = 0
            while n != 1 and steps < $cap:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                steps += 1
            return steps, n
        """,
        _pick(cap=(3, 4, 5, 8)),
        lambda r: (r.randint(3, 40),),
    ),
    _t(
        "digit_power",
        """
        def f(n):
            digits = [int(d) for d in str(n)]
            return sum(d ** $p for d in digits) $op $m
        """,
        _pick(p=(1, 2, 3), op=("%", "//", "-"), m=(3, 7, 10)),
        lambda r: (r.randint(10, 9999),),
    ),
    _t(
        "pad",
        """
        def f(text, width):
            text = text.strip()
            return text.$op(width, '$fill')
        """,
        _pick(op=("center", "ljust", "rjust"), fill=("*", "-", ".")),
        lambda r: (f" {r.choice(WORDS)} ", r.randint(5, 11)),
    ),
    _t(
        "insert_pop",
        """
        def f(nums, x):
            nums = list(nums)
            nums.insert($i, x)
            nums.pop($j)
            return nums
        """,
        _pick(i=(0, 1, 2, -1), j=(0, 1, -1, -2)),
        lambda r: (_nums(r, 3, 5), r.randint(10, 20)),
    ),
    _t(
        "set_ops",
        """
        def f(a, b):
            chosen = set(a) $op set(b)
            return sorted(chosen), len(chosen)
        """,
        _pick(op=("&", "|", "-", "^")),
        lambda r: (_nums(r, 3, 5), _nums(r, 3, 5)),
    ),
    _t(
        "cycle_slice",
        """
        from itertools import cycle, islice

        def f(items, n):
            return list(islice(cycle(items), $start, n))
        """,
        _pick(start=(0, 1, 2)),
        lambda r: (r.sample("abcde", r.randint(2, 3)), r.randint(4, 8)),
    ),
    _t(
        "filter_chars",
        """
        def f(text):
            out = ''
            for ch in text:
                if ch.$pred():
                    out += ch
            return out or '$default'
        """,
        _pick(pred=("isdigit", "isupper", "isalpha", "islower"), default=("none", "-", "?")),
        lambda r: (_mixed(r),),
    ),
    _t(
        "format",
        """
        def f(name, n):
            label = '$fmt'.format(name, n)
            return label, len(label)
        """,
        _pick(fmt=("{0}-{1:03d}", "{1}:{0!r}", "{0:>7}|{1}", "{0[0]}{1:+d}", "{1:b}/{0}", "{0:.2}{1:x}")),
        lambda r: (r.choice(WORDS), r.randint(-20, 99)),
    ),
    _t(
        "regex_sub",
        r"""
        import re

        def f(text):
            return re.sub(r'$pat', '$rep', text)
        """,
        _pick(pat=("[aeiou]", r"\s+", r"(\w)(\w*)", "[^aeiou ]+"), rep=("", "_", r"\2\1", "*")),
        lambda r: (_text(r, 2, 3),),
    ),
    _t(
        "invert",
        """
        def f(d):
            inv = {}
            for k, v in d.items():
                inv.setdefault($key, []).append(k)
            return inv
        """,
        _pick(key=("v", "v % 2", "v // 3", "len(k)")),
        lambda r: ({w: r.randint(0, 5) for w in _words(r, 2, 3)},),
    ),
    _t(
        "prefix",
        """
        def f(text, prefix):
            if text.startswith(prefix):
                text = text.removeprefix(prefix)
            return text.$op()
        """,
        _pick(op=("upper", "title", "strip", "swapcase")),
        _text_and_prefix,
    ),
    _t(
        "accumulate",
        """
        from itertools import accumulate

        def f(nums):
            return list(accumulate(nums, $fn))
        """,
        _pick(fn=("max", "min", "lambda a, b: a * b", "lambda a, b: a - b", "lambda a, b: a + b")),
        lambda r: (_nums(r, 3, 5),),
    ),
    _t(
        "heap_pick",
        """
        import heapq

        def f(nums, k):
            picked = heapq.$fn(k, nums)
            return picked, sum(picked)
        """,
        _pick(fn=("nsmallest", "nlargest")),
        lambda r: (_nums(r, 4, 6, 20), r.randint(1, 3)),
    ),
    _t(
        "split_count",
        """
        def f(text, word):
            parts = text.split($sep)
            return parts.count(word), len(parts)
        """,
        _pick(sep=("", "' '", "'a'", "'o'")),
        _text_and_word,
    ),
    _t(
        "bisect",
        """
        import bisect

        def f(nums, x):
            nums = sorted(nums)
            i = bisect.$fn(nums, x)
            return i, nums[:i]
        """,
        _pick(fn=("bisect_left", "bisect_right")),
        lambda r: (_nums(r, 3, 5), r.randint(0, 9)),
    ),
    _t(
        "stats",
        """
        import statistics

        def f(nums):
            nums = [$expr for n in nums]
            return statistics.$fn(nums)
        """,
        _pick(expr=("n", "n * 2", "n + 1", "n % 4"), fn=("median", "mode", "median_low", "median_high", "mean")),
        lambda r: (_nums(r, 3, 6),),
    ),
    _t(
        "index_map",
        """
        def f(words):
            numbered = enumerate(words, start=$start)
            return {w: i * $k for i, w in numbered if len(w) > $n}
        """,
        _pick(start=(0, 1), k=(1, 2, 10), n=(2, 3)),
        lambda r: (_words(r, 2, 4),),
    ),
    _t(
        "rstrip_loop",
        """
        def f(text):
            while text and text[-1] in '$chars':
                text = text[:-1]
            return text + '$suffix'
        """,
        _pick(chars=("aeiou", "tne", "xyz!", "ekno"), suffix=("!", "?", ".")),
        lambda r: (r.choice(WORDS) + r.choice(["", "e", "ne", "!!", "xo"]),),
    ),
)


class CodeTimeout(TimeoutError):
    """A generated function ran longer than its guard allows."""


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Stop runaway code with SIGALRM when on the main thread of a POSIX process; elsewhere do nothing.

    The code is ours and every loop is bounded, so the guard is a seatbelt, not a sandbox.
    """
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def _alarm(signum: int, frame: object) -> None:
        raise CodeTimeout(f"generated code ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run_call(code: str, call: str, timeout: float = 1.0) -> str:
    """The ``repr`` of what ``call`` (e.g. ``f('ab', 2)``) returns after running ``code``: the ground truth."""
    namespace: dict[str, Any] = {}
    with _time_limit(timeout):
        exec(compile(code, "<stdlib_exec>", "exec"), namespace)
        return repr(eval(call, namespace))


def _instance(template: Template, rng: Rng) -> Example | None:
    """One example of ``template``, or None when the draw raises or its answer is too long."""
    code = string.Template(template.code).substitute({k: str(v) for k, v in template.slots(rng).items()})
    call = f"f({', '.join(repr(arg) for arg in template.args(rng))})"
    try:
        output = run_call(code, call)
    except (CodeTimeout, ArithmeticError, LookupError, ValueError, TypeError):
        return None
    if len(output) > MAX_OUTPUT_CHARS:
        return None
    return {"code": code, "call": call, "output": output, "template": template.name}


def _exec(seed: int) -> TaskSet:
    rng = random.Random(seed)
    groups: dict[str, list[Example]] = {}
    for template in TEMPLATES:
        made: dict[tuple[str, str], Example] = {}
        for _ in range(400):
            example = _instance(template, rng)
            if example is not None:
                made.setdefault((example["code"], example["call"]), example)
            if len(made) == PER_TEMPLATE:
                break
        else:
            raise RuntimeError(f"template {template.name!r} gave only {len(made)} distinct examples")
        groups[template.name] = list(made.values())
    train, dev, test = _with_ids("stdlib_exec", _stratified(groups, rng))
    return TaskSet(
        name="stdlib_exec",
        train=train,
        dev=dev,
        test=test,
        input_fields=("code", "call"),
        output_field="output",
        instructions=(
            "Read the Python function f and the call. Work out what the call returns and answer with the exact "
            "Python repr of that value (for example 'ab', [1, 2], {'a': 1}, (3, 'x'), True), nothing else."
        ),
        field_descriptions={
            "code": "Python source defining f",
            "call": "a call of f with its arguments",
            "output": "the repr of the value the call returns",
        },
        source=SOURCE.format(version=_py_version()) + ": functions written from templates in its style, run here",
        notes={"templates": len(TEMPLATES), "per_template": PER_TEMPLATE, "seed": seed},
    )


# --- command line ------------------------------------------------------------------------------


def _py_version() -> str:
    return ".".join(str(part) for part in sys.version_info[:3])


def stats(task: TaskSet) -> dict[str, Any]:
    """Sizes per split and the count of each class (label or template) per split."""
    key = task.output_field if task.labels is not None else "template"
    balance = {
        split: dict(sorted(Counter(ex[key] for ex in examples).items()))
        for split, examples in (("train", task.train), ("dev", task.dev), ("test", task.test))
    }
    return {"name": task.name, "sizes": task.sizes(), "by_" + key: balance, "source": task.source}


def write(task: TaskSet, folder: Path) -> list[Path]:
    """Write ``NAME.SPLIT.jsonl`` (one example per line) and ``NAME.meta.json`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for split, examples in (("train", task.train), ("dev", task.dev), ("test", task.test)):
        path = folder / f"{task.name}.{split}.jsonl"
        path.write_text("".join(json.dumps(ex, ensure_ascii=False) + "\n" for ex in examples))
        written.append(path)
    meta = {
        "name": task.name,
        "sizes": task.sizes(),
        "input_fields": list(task.input_fields),
        "output_field": task.output_field,
        "instructions": task.instructions,
        "field_descriptions": task.field_descriptions,
        "labels": None if task.labels is None else list(task.labels),
        "source": task.source,
        "licence": task.licence,
        "notes": task.notes,
    }
    meta_path = folder / f"{task.name}.meta.json"
    meta_path.write_text(json.dumps(meta, indent=2) + "\n")
    return [*written, meta_path]


def main(argv: list[str] | None = None) -> int:
    """Print each set's sizes and class balance; with ``--write DIR`` also write the files."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("names", nargs="*", default=list(NAMES), help=f"task sets (default: {' '.join(NAMES)})")
    parser.add_argument("--write", type=Path, metavar="DIR", help="write NAME.{train,dev,test}.jsonl and meta here")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    for name in args.names:
        task = load(name, args.seed)
        print(json.dumps(stats(task)))
        if args.write is not None:
            for path in write(task, args.write):
                print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
