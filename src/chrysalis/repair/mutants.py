"""Template candidates: the edits that most one-line bugs need, drawn without the model.

Most one-line bugs in real code are "simple stupid bugs" of a few kinds: a wrong operator, an
off-by-one bound, a wrong constant, a wrong variable, swapped arguments, a missing guard.
Template-based repair (TBar, PraPR) tries exactly those edits on the suspicious lines and lets the
tests judge; each costs one test run and no tokens, so repair validates them while the model
samples. They are candidates like any other: red flags, the vote and the smallest diff apply to
them too, and a template that passes only because the tests are weak is no better than a sampled one.

The edits are the catalogue's (``catalogue/``: each operator names the TBar fix pattern or PraPR
mutator it spells for Python). Edits work on the line's text (by the AST's column offsets), never
by re-printing the AST, so the rest of the line keeps its spelling and the diff is exactly the
token; a guard or an increment inserts at most two lines. The order is the order to try them: line
by line, most suspicious first, and on each line family by family (``catalogue.FAMILIES``). The
edits that choose a name in scope (variable misuse above all) are a separate, later group: repair
tries them only after the model has had a round.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from chrysalis.repair.catalogue import FAMILIES, Facts, Site, Span

__all__ = ["Mutant", "mutants"]


@dataclass(frozen=True)
class Mutant:
    """One template edit: the line it replaces, the new text, what it does (``<`` → ``<=``), its family."""

    line: int
    text: str
    """The new line, without its newline (an insertion: several lines, joined by ``\\n``)."""
    edit: str
    family: str = ""


def mutants(original: str, lines: Sequence[int], *, variables: bool = False) -> Iterator[Mutant]:
    """The template edits of ``lines`` (1-based, in the order to try), each yielding a program that parses.

    Without ``variables``: each line's edits of the catalogue's first group, family by family. With
    it: the later group, the edits that choose a name in scope (variable misuse, a call's receiver,
    an added argument, a returned name), which repair tries only once the model has had a round.
    """
    try:
        tree = ast.parse(original)
    except SyntaxError:
        return
    texts = original.splitlines()
    facts = Facts(tree, texts)
    seen: set[tuple[int, str]] = set()
    for number in lines:
        if not 0 < number <= len(texts):
            continue
        site = facts.site(number)
        for family in FAMILIES:
            for operator in family.later if variables else family.operators:
                for span in operator(site):
                    mutant = _mutant(site, span, family.name)
                    key = (mutant.line, mutant.text)
                    if key in seen or mutant.text == texts[mutant.line - 1] or not _parses(texts, mutant):
                        continue
                    seen.add(key)
                    yield mutant


def _mutant(site: Site, span: Span, family: str) -> Mutant:
    number = span.line or site.number
    raw = site.line_text(number)
    text = (raw[: span.start] + span.new.encode() + raw[span.end :]).decode()
    return Mutant(number, text, span.edit, family)


def _parses(texts: list[str], mutant: Mutant) -> bool:
    try:
        ast.parse("\n".join([*texts[: mutant.line - 1], mutant.text, *texts[mutant.line :]]))
    except SyntaxError:
        return False
    return True
