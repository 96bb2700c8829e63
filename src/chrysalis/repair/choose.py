"""Choosing among candidates that pass: red flags first, then a vote on the normalised patch, then the smallest diff.

Passing the tests is not enough for a patch a reviewer would merge. A candidate is red-flagged and
dropped when it

- ``edits_tests``: changes a test file;
- ``deletes_assertions``: has fewer ``assert`` statements than the code it replaces;
- ``special_cases_inputs``: adds a comparison with a literal that appears in the tests (``if n == 7``);
- ``dead_code``: leaves statements after a ``return``, ``raise``, ``break`` or ``continue`` in the same block,
  or a function defined twice (the old one shadowed, or a copy of its body beside it).

The rest are grouped by their normalised form (the AST of the patched file, so whitespace, comments
and quoting do not split a vote) and counted with seed 001's ``vote`` (each passing candidate is one
voter; ``rule="first"`` with the config's ``k``); ``consensus`` says whether the winner reached
``k``. Between forms with the same count the smaller diff wins (the fewest changed lines), then the
earlier candidate (the more suspicious line). A passing form whose change lies inside the winner's
(the winner made the same edit and more) beats it whatever the votes (``contains``). Within
the winning form, the candidate with the smallest diff is the one applied (a whole-function reply
and a one-line reply are often the same program, and the one-line diff is the one to review).
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from chrysalis.repair.candidates import Candidate
from chrysalis.repair.localise import is_test_file
from chrysalis.tools.clean_edit import duplicated_functions, unreachable
from chrysalis.voting import Vote, VotingConfig, vote

__all__ = ["Choice", "choose", "contains", "normalised", "rank", "red_flags", "smallest"]

_TRIVIAL = (0, 1, -1, None, True, False, "", 2)


@dataclass(frozen=True)
class Choice:
    """The winning candidate, its votes, and how many were flagged (by flag)."""

    winner: Candidate
    votes: int
    consensus: bool
    counts: dict[str, int]
    """Votes per normalised form, by the form's first candidate index (``"#3"``)."""


def red_flags(candidate: Candidate, original: str, test_texts: Sequence[str]) -> list[str]:
    """The red flags ``candidate`` raises against the ``original`` file and the tests' source texts."""
    assert candidate.new_text is not None
    flags: list[str] = []
    if is_test_file(candidate.suspect.path):
        flags.append("edits_tests")
    old_tree, new_tree = ast.parse(original), ast.parse(candidate.new_text)
    if _count(new_tree, ast.Assert) < _count(old_tree, ast.Assert):
        flags.append("deletes_assertions")
    if _special_cases(old_tree, new_tree, test_texts):
        flags.append("special_cases_inputs")
    if len(unreachable(new_tree)) > len(unreachable(old_tree)) or len(duplicated_functions(new_tree)) > len(
        duplicated_functions(old_tree)
    ):
        flags.append("dead_code")
    return flags


def normalised(candidate: Candidate) -> str:
    """The patched file's AST: whitespace, comments and quoting do not count."""
    assert candidate.new_text is not None
    return ast.dump(ast.parse(candidate.new_text))


def choose(passing: Sequence[Candidate], config: VotingConfig) -> Choice:
    """Vote among ``passing`` (already red-flag free) on their normalised form; ties go to the smaller diff.

    Raises:
        ValueError: ``passing`` is empty.
    """
    if not passing:
        raise ValueError("choose needs at least one passing candidate")
    keys = [normalised(c) for c in passing]
    first = {key: i for i, key in reversed(list(enumerate(keys)))}
    pool = VotingConfig(n=len(passing), k=config.k, rule="first", max_samples=len(passing))
    result: Vote = vote(lambda i: keys[i], pool)
    tally = {str(key): n for key, n in result.counts.items()}
    forms = {key: [c for c, k in zip(passing, keys, strict=True) if k == key] for key in first}
    best = max(tally.items(), key=lambda item: rank(item[1], forms[item[0]]))
    narrower = [key for key in tally if contains(smallest(forms[best[0]]), smallest(forms[key]))]
    while narrower:  # a passing change inside the winner's: the winner's other edits were not needed
        best = max(((key, tally[key]) for key in narrower), key=lambda item: rank(item[1], forms[item[0]]))
        narrower = [key for key in tally if contains(smallest(forms[best[0]]), smallest(forms[key]))]
    winner = smallest(forms[best[0]])
    counts = {f"#{passing[first[key]].index}": n for key, n in tally.items()}
    return Choice(winner, best[1], best[1] >= config.k, counts)


def rank(votes: int, candidates: Sequence[Candidate]) -> tuple[int, int, int]:
    """How the vote ranks one form with ``votes`` and these candidates (greater wins).

    More votes first, then the smaller diff, then the earlier (more suspicious) candidate. The
    engine uses the same rank to cancel test runs that could no longer change the winner.
    """
    first = smallest(candidates)
    return votes, -first.changed_lines, -first.index


def contains(wider: Candidate, narrower: Candidate) -> bool:
    """Whether ``wider``'s diff makes every change ``narrower``'s makes, and more (both against the same file).

    Such a ``wider`` loses to a passing ``narrower`` whatever the votes: the tests pass without its
    extra edits, and extra edits are what a reviewer would strike (``xs.sort()`` beside the real fix).
    """
    if wider.suspect.path != narrower.suspect.path:
        return False
    mine, theirs = _changes(wider.diff), _changes(narrower.diff)
    return bool(theirs) and theirs < mine


def _changes(diff: str) -> frozenset[str]:
    """The removed and added lines of a unified diff, without its headers."""
    return frozenset(
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---")) and line[1:].strip()
    )


def smallest(candidates: Sequence[Candidate]) -> Candidate:
    """The candidate of a form that is applied: the smallest diff, then the earliest."""
    return min(candidates, key=lambda c: (c.changed_lines, c.index))


def _count(tree: ast.AST, kind: type[ast.AST]) -> int:
    return sum(1 for node in ast.walk(tree) if isinstance(node, kind))


def _special_cases(old: ast.AST, new: ast.AST, test_texts: Sequence[str]) -> bool:
    """A comparison the patch added holds a non-trivial literal that the tests spell out."""
    before = {ast.dump(node) for node in ast.walk(old) if isinstance(node, ast.Compare)}
    for node in ast.walk(new):
        if not isinstance(node, ast.Compare) or ast.dump(node) in before:
            continue
        for const in (c for c in ast.walk(node) if isinstance(c, ast.Constant)):
            if const.value in _TRIVIAL or isinstance(const.value, bool):
                continue
            if any(repr(const.value) in text for text in test_texts):
                return True
    return False


def test_sources(root: Path) -> list[str]:
    """The text of every test file under ``root`` (what ``special_cases_inputs`` compares literals with)."""
    texts = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        if is_test_file(rel) and not rel.startswith((".venv/", "venv/")):
            texts.append(path.read_text(errors="replace"))
    return texts
