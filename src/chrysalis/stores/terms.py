"""How the knowledge graph writes its terms: names, prefixes and IRIs, read (``to_iri``) and shown back.

The store (``stores/knowledge.py``) and the query engine (``stores/sparql.py``) both use them, so they
live here, below both, and import nothing heavier than the standard library (rdflib stays lazy).

Terms are written the way a model or person thinks of them (``to_iri``):

- a plain word or phrase is a name in the project's namespace, ``urn:chrysalis:`` followed by the
  name percent-encoded, its spaces written ``_`` (``parser.py`` -> ``urn:chrysalis:parser.py``,
  ``depends on`` and ``depends_on`` -> ``urn:chrysalis:depends_on``, ``C#`` -> ``urn:chrysalis:C%23``):
  the same text always gives the same IRI, and names differing in more than spaces never share one.
  In SPARQL the namespace is the prefix ``kg:`` (``kg:parser.py``);
- ``rdf:``, ``rdfs:``, ``xsd:``, ``owl:``, ``schema:`` (schema.org) and ``kg:`` prefixed names are
  expanded, and the predicate ``a`` is ``rdf:type``, as in Turtle and SPARQL;
- a full IRI is ``<...>``, or starts with ``http://``, ``https://``, ``urn:``, ``file://``,
  ``mailto:`` or ``tag:``.

``show_term`` turns an IRI back into the shortest text that ``to_iri`` reads as the same IRI;
``sparql_term`` writes an IRI as a query may. ``QueryError`` is here too, so that callers can catch
it without loading rdflib.
"""

from __future__ import annotations

import re
from typing import Literal
from urllib.parse import quote, unquote

__all__ = [
    "MAX_TERM_CHARS",
    "NAMESPACE",
    "PREFIXES",
    "RDF_TYPE",
    "QueryError",
    "QueryProblem",
    "show_term",
    "sparql_term",
    "to_iri",
]

NAMESPACE = "urn:chrysalis:"
"""Where plain names live: ``parser.py`` is ``urn:chrysalis:parser.py`` (``kg:parser.py`` in SPARQL)."""
PREFIXES: dict[str, str] = {
    "kg": NAMESPACE,
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
    "xsd": "http://www.w3.org/2001/XMLSchema#",
    "owl": "http://www.w3.org/2002/07/owl#",
    "schema": "https://schema.org/",
}
"""The prefixed names terms and queries may use without declaring them."""
MAX_TERM_CHARS = 500
"""A subject, predicate or IRI object names a thing: a few words or a path, not a paragraph."""
RDF_TYPE = PREFIXES["rdf"] + "type"
QueryProblem = Literal["empty", "too_long", "syntax", "update", "remote", "timeout", "evaluation"]
_FULL_IRI_STARTS = ("http://", "https://", "urn:", "file://", "mailto:", "tag:")
_PREFIXED = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*):(.+)$", re.DOTALL)
_NOT_IN_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')
"""What SPARQL's IRIREF (and rdflib's URIRef check) forbids in an IRI."""
_NAME_SAFE = "!$&'()*+,;=:@/"
"""Characters kept as they are in a name's IRI, besides letters, digits and ``-._~``; the rest is %-encoded."""
_PN_LOCAL = re.compile(r"^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_-])?$")
"""Local names SPARQL reads after a prefix without escapes (a conservative subset of PN_LOCAL)."""
_SPACES = re.compile(r"\s+")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:.")


class QueryError(ValueError):
    """A query that will not run (``stores/sparql.py``): ``problem`` says why, the message how to fix it."""

    def __init__(self, problem: QueryProblem, message: str) -> None:
        super().__init__(message)
        self.problem: QueryProblem = problem


def to_iri(text: str) -> str:
    """The IRI that ``text`` names: a full IRI, a known prefixed name, or a plain name in ``NAMESPACE``.

    Raises:
        ValueError: an empty or too long term, an unknown-looking IRI with forbidden characters; the
            message says what is allowed.
    """
    term = _SPACES.sub(" ", text.strip())
    if not term:
        raise ValueError("A term is empty: name the thing, e.g. 'parser.py' or 'depends_on'.")
    if len(term) > MAX_TERM_CHARS:
        raise ValueError(f"A term has {len(term)} characters; a name or IRI has at most {MAX_TERM_CHARS}.")
    if term.startswith("<") and term.endswith(">"):
        return _checked_iri(term[1:-1])
    if term.startswith(_FULL_IRI_STARTS):
        return _checked_iri(term)
    prefixed = _PREFIXED.match(term)
    if prefixed and prefixed[1] in PREFIXES:
        prefix, local = prefixed[1], prefixed[2].strip()
        return _name_iri(local) if prefix == "kg" else _checked_iri(PREFIXES[prefix] + local)
    return _name_iri(term)


def _name_iri(name: str) -> str:
    """A plain name's IRI: spaces become ``_`` (so a name never shows with a space), the rest is %-encoded."""
    return NAMESPACE + quote(name.replace(" ", "_"), safe=_NAME_SAFE)


def _checked_iri(iri: str) -> str:
    """``iri`` when it is absolute (``scheme:...``) and has nothing SPARQL forbids in an IRI."""
    if not _SCHEME.match(iri) or _NOT_IN_IRI.search(iri):
        raise ValueError(
            f"{iri!r} is not a valid absolute IRI (scheme:..., no spaces, quotes or <>{{}}|^`\\ inside): write a "
            "plain name instead, e.g. 'parser.py', which becomes a name in the project's namespace."
        )
    return iri


def show_term(iri: str) -> str:
    """The shortest text ``to_iri`` reads back as ``iri``: a plain name, a prefixed name, or ``<iri>``."""
    candidates: list[str] = []
    if iri.startswith(NAMESPACE):
        name = unquote(iri[len(NAMESPACE) :])
        candidates += [name, "kg:" + name]
    if iri == RDF_TYPE:
        candidates.append("rdf:type")
    candidates += [
        f"{prefix}:{iri[len(base) :]}"
        for prefix, base in PREFIXES.items()
        if prefix != "kg" and iri.startswith(base) and len(iri) > len(base)
    ]
    candidates.append(iri)
    for text in candidates:
        try:
            if to_iri(text) == iri:
                return text
        except ValueError:
            continue
    return f"<{iri}>"


def sparql_term(iri: str) -> str:
    """How a query writes ``iri``: ``kg:name`` or ``rdf:type`` where SPARQL allows it, else ``<iri>``."""
    for prefix, base in PREFIXES.items():
        if iri.startswith(base) and _PN_LOCAL.match(iri[len(base) :]):
            return f"{prefix}:{iri[len(base) :]}"
    return f"<{iri}>"
