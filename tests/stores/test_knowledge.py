"""The knowledge store: round trip, scopes, terms -> IRIs, read-only SPARQL, refusals, deadline, migration."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from chrysalis.stores import KnowledgeStore, Stores
from chrysalis.stores.db import MIGRATIONS, SCHEMA_VERSION
from chrysalis.stores.knowledge import (
    MAX_LITERAL_CHARS,
    MAX_TERM_CHARS,
    NAMESPACE,
    QueryError,
    show_term,
    sparql_term,
    to_iri,
)
from chrysalis.stores.memory import GLOBAL_SCOPE

WS = "workspace:/projects/alpha"
OTHER = "workspace:/projects/beta"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"


@pytest.fixture
def kg(stores: Stores) -> KnowledgeStore:
    return stores.knowledge


@pytest.fixture
def project(kg: KnowledgeStore) -> KnowledgeStore:
    """A small project graph: parser -> lexer -> tokens, a type, a comment; one global fact."""
    kg.add("parser.py", "depends_on", "lexer.py", WS)
    kg.add("lexer.py", "depends_on", "tokens.py", WS)
    kg.add("parser.py", "a", "schema:SoftwareSourceCode", WS)
    kg.add("parser.py", "rdfs:comment", "Turns tokens into a tree", WS, literal=True)
    kg.add("ruff", "formats", "Python", GLOBAL_SCOPE)
    kg.add("beta.py", "depends_on", "lexer.py", OTHER)
    return kg


def test_add_list_remove_round_trip_and_a_triple_is_kept_once_per_scope(kg: KnowledgeStore) -> None:
    first, created = kg.add("parser.py", "depends_on", "lexer.py", WS)
    assert created and (first.subject, first.predicate, first.object, first.literal) == (
        NAMESPACE + "parser.py",
        NAMESPACE + "depends_on",
        NAMESPACE + "lexer.py",
        False,
    )
    again, created_again = kg.add(" parser.py ", "depends on", "kg:lexer.py", WS)
    assert not created_again and again == first  # the same IRIs: the same triple, its id and time kept
    as_text, created_text = kg.add("parser.py", "depends_on", "lexer.py", WS, literal=True)
    assert created_text and as_text.id != first.id and as_text.show() == 'parser.py depends_on "lexer.py"'
    elsewhere, _ = kg.add("parser.py", "depends_on", "lexer.py", GLOBAL_SCOPE)
    assert [t.id for t in kg.triples()] == [first.id, as_text.id, elsewhere.id]
    assert kg.count([WS]) == 2 and kg.count() == 3

    gone = kg.remove("parser.py", "depends_on", "lexer.py", [WS])
    assert gone == [first]
    assert kg.remove("parser.py", "depends_on", "lexer.py", [WS]) == []
    assert [t.id for t in kg.triples()] == [as_text.id, elsewhere.id]


def test_triples_survive_closing_and_reopening_the_home(home: Path) -> None:
    with Stores.open(home) as stores:
        stores.knowledge.add("parser.py", "depends_on", "lexer.py", WS)
    with Stores.open(home) as stores:
        (kept,) = stores.knowledge.triples([WS])
        found = stores.knowledge.query("ASK { kg:parser.py kg:depends_on kg:lexer.py }", [WS])
    assert kept.show() == "parser.py depends_on lexer.py" and found.answer is True


def test_a_database_of_the_previous_schema_gains_the_triples_table(home: Path) -> None:
    Stores.open(home).close()
    before = next(n for n, statements in enumerate(MIGRATIONS) if "TABLE IF NOT EXISTS triples" in statements[0])
    conn = sqlite3.connect(home / "chrysalis.db")
    with conn:
        conn.execute("DROP TABLE triples")
        conn.execute("UPDATE schema_version SET version = ?", (before,))
    conn.close()
    with Stores.open(home) as stores:
        stores.knowledge.add("a", "b", "c", WS)
        assert stores.knowledge.count() == 1
        assert stores.db.read("SELECT version FROM schema_version")[0][0] == SCHEMA_VERSION


def test_a_workspace_graph_is_read_only_there_and_the_global_one_everywhere(project: KnowledgeStore) -> None:
    query = "SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?s"
    here = [row[0].show() for row in project.query(query, [WS, GLOBAL_SCOPE]).rows if row[0]]
    there = [row[0].show() for row in project.query(query, [OTHER, GLOBAL_SCOPE]).rows if row[0]]
    assert sorted(set(here)) == ["lexer.py", "parser.py", "ruff"]
    assert sorted(set(there)) == ["beta.py", "ruff"]
    assert len(project.graph([WS, GLOBAL_SCOPE])) == 5


def test_a_triple_in_two_scopes_is_one_in_the_graph_and_remove_takes_it_from_each(kg: KnowledgeStore) -> None:
    kg.add("a", "b", "c", WS)
    kg.add("a", "b", "c", GLOBAL_SCOPE)
    assert len(kg.graph([WS, GLOBAL_SCOPE])) == 1
    assert [t.scope for t in kg.remove("a", "b", "c", [OTHER])] == []
    assert [t.scope for t in kg.remove("a", "b", "c", [WS, GLOBAL_SCOPE])] == [WS, GLOBAL_SCOPE]


@pytest.mark.parametrize(
    ("text", "iri"),
    [
        ("parser.py", NAMESPACE + "parser.py"),
        ("  src/app.py ", NAMESPACE + "src/app.py"),
        ("depends on", NAMESPACE + "depends_on"),
        ("depends \n\t on", NAMESPACE + "depends_on"),
        ("C#", NAMESPACE + "C%23"),
        ("100%", NAMESPACE + "100%25"),
        ('say "hi"?', NAMESPACE + "say_%22hi%22%3F"),
        ("café", NAMESPACE + "caf%C3%A9"),
        ("kg:parser.py", NAMESPACE + "parser.py"),
        ("Foo:bar", NAMESPACE + "Foo:bar"),  # not a known prefix: a name
        ("rdf:type", RDF + "type"),
        ("rdfs:label", "http://www.w3.org/2000/01/rdf-schema#label"),
        ("xsd:integer", "http://www.w3.org/2001/XMLSchema#integer"),
        ("owl:sameAs", "http://www.w3.org/2002/07/owl#sameAs"),
        ("schema:author", "https://schema.org/author"),
        ("https://example.org/a#b", "https://example.org/a#b"),
        ("urn:isbn:0451450523", "urn:isbn:0451450523"),
        ("<urn:chrysalis:parser.py>", NAMESPACE + "parser.py"),
        ("<tel:+1-555>", "tel:+1-555"),
    ],
)
def test_terms_become_stable_iris(text: str, iri: str) -> None:
    assert to_iri(text) == iri
    assert to_iri(show_term(iri)) == iri


def test_the_predicate_a_is_rdf_type_but_a_subject_or_object_a_is_a_name(kg: KnowledgeStore) -> None:
    typed, _ = kg.add("a", "a", "a", WS)
    assert (typed.subject, typed.predicate, typed.object) == (NAMESPACE + "a", RDF + "type", NAMESPACE + "a")
    assert typed.show() == "a rdf:type a" and typed.sparql() == "kg:a rdf:type kg:a"


@pytest.mark.parametrize(
    ("iri", "written"),
    [
        (NAMESPACE + "parser.py", "kg:parser.py"),
        (NAMESPACE + "src/app.py", "<urn:chrysalis:src/app.py>"),
        (NAMESPACE + "C%23", "<urn:chrysalis:C%23>"),
        (RDF + "type", "rdf:type"),
        ("https://example.org/x", "<https://example.org/x>"),
    ],
)
def test_sparql_terms_use_a_prefix_only_where_sparql_reads_it(iri: str, written: str) -> None:
    assert sparql_term(iri) == written


@given(st.text(min_size=1, max_size=60))
def test_every_term_shows_as_text_that_reads_back_as_the_same_iri(text: str) -> None:
    try:
        iri = to_iri(text)
    except ValueError:
        return
    assert to_iri(show_term(iri)) == iri


@given(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=30))
def test_names_that_differ_in_more_than_spaces_never_share_an_iri(first: str, second: str) -> None:
    def key(text: str) -> str:
        return "_".join(text.split())

    assume(key(first) and key(second) and key(first) != key(second))
    assume(
        not any(
            re.match(r"^[A-Za-z][\w-]*:|^<|^https?://|^urn:|^file://|^mailto:|^tag:", t.strip())
            for t in (first, second)
        )
    )
    assert to_iri(first) != to_iri(second)


@pytest.mark.parametrize(
    ("subject", "predicate", "obj", "literal", "needle"),
    [
        ("  ", "p", "o", False, "A term is empty"),
        ("s", "p", "x" * (MAX_TERM_CHARS + 1), False, f"at most {MAX_TERM_CHARS}"),
        ("<not an iri>", "p", "o", False, "not a valid absolute IRI"),
        ("https://example.org/a b", "p", "o", False, "not a valid absolute IRI"),
        ("s", "p", "<relative/path>", False, "not a valid absolute IRI"),
        ("s", "p", "  ", True, "literal object is empty"),
        ("s", "p", "x" * (MAX_LITERAL_CHARS + 1), True, f"keep one to {MAX_LITERAL_CHARS}"),
    ],
)
def test_bad_terms_are_refused_with_what_is_allowed(
    kg: KnowledgeStore, subject: str, predicate: str, obj: str, literal: bool, needle: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(needle)):
        kg.add(subject, predicate, obj, WS, literal=literal)
    with pytest.raises(ValueError, match="Unknown memory scope"):
        kg.add("s", "p", "o", "project")
    assert kg.triples() == []


def test_a_long_literal_is_kept_and_secrets_in_it_are_redacted(kg: KnowledgeStore) -> None:
    key = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"
    kept, _ = kg.add("staging", "uses_key", f"The key is {key}", WS, literal=True)
    assert key not in kept.object and kept.object.startswith("The key is ")


def test_select_shows_names_as_they_were_written_and_json_is_sparql_results(project: KnowledgeStore) -> None:
    found = project.query("SELECT ?module ?needs WHERE { ?module kg:depends_on ?needs } ORDER BY ?module", [WS])
    assert found.table().splitlines() == [
        "?module | ?needs",
        "lexer.py | tokens.py",
        "parser.py | lexer.py",
        "(2 rows)",
    ]
    assert found.to_json()["results"]["bindings"][0] == {
        "module": {"type": "uri", "value": NAMESPACE + "lexer.py"},
        "needs": {"type": "uri", "value": NAMESPACE + "tokens.py"},
    }
    transitive = project.query("SELECT ?m WHERE { kg:parser.py kg:depends_on+ ?m } ORDER BY ?m", [WS])
    assert [row[0].show() for row in transitive.rows if row[0]] == ["lexer.py", "tokens.py"]


def test_ask_construct_describe_and_aggregates(project: KnowledgeStore) -> None:
    assert project.query("ASK { kg:parser.py a schema:SoftwareSourceCode }", [WS]).table() == "true"
    assert project.query("ASK { kg:tokens.py kg:depends_on ?x }", [WS]).to_json() == {"head": {}, "boolean": False}
    built = project.query("CONSTRUCT { ?b kg:used_by ?a } WHERE { ?a kg:depends_on ?b }", [WS])
    assert built.table().splitlines() == ["lexer.py used_by parser.py", "tokens.py used_by lexer.py", "(2 triples)"]
    described = project.query("DESCRIBE kg:parser.py", [WS]).table()
    assert 'parser.py rdfs:comment "Turns tokens into a tree"' in described and "(3 triples)" in described
    counted = project.query("SELECT (COUNT(*) AS ?n) WHERE { ?s kg:depends_on ?o }", [WS, OTHER])
    assert counted.table().splitlines()[1] == "3"


def test_select_star_lists_variables_in_the_order_written_and_unbound_is_undef(project: KnowledgeStore) -> None:
    found = project.query(
        "SELECT * WHERE { ?zeta kg:depends_on ?alpha OPTIONAL { ?alpha rdfs:comment ?middle } } ORDER BY ?zeta", [WS]
    )
    assert found.variables == ("zeta", "alpha", "middle")
    assert found.table().splitlines()[1] == "lexer.py | tokens.py | UNDEF"


def test_typed_literals_show_as_turtle_writes_them(kg: KnowledgeStore) -> None:
    found = kg.query(
        'SELECT ?n ?d ?l ?s WHERE { BIND(3 AS ?n) BIND("2024-01-01"^^xsd:date AS ?d) '
        'BIND("hi"@en AS ?l) BIND("x" AS ?s) }',
        [WS],
    )
    assert found.table().splitlines()[1] == '3 | "2024-01-01"^^xsd:date | "hi"@en | "x"'
    assert found.to_json()["results"]["bindings"][0]["l"] == {"type": "literal", "value": "hi", "xml:lang": "en"}


def test_results_are_cut_at_max_rows_and_say_so(kg: KnowledgeStore) -> None:
    for n in range(12):
        kg.add(f"m{n}", "depends_on", "core", WS)
    found = kg.query("SELECT ?m WHERE { ?m kg:depends_on kg:core }", [WS], max_rows=5)
    assert len(found.rows) == 5 and found.truncated
    assert found.table().endswith("(the first 5 rows; more matched: add LIMIT/OFFSET or narrow the patterns)")
    assert found.to_json()["truncated"] is True
    exact = kg.query("SELECT ?m WHERE { ?m kg:depends_on kg:core }", [WS], max_rows=12)
    assert len(exact.rows) == 12 and not exact.truncated


@pytest.mark.parametrize(
    "update",
    [
        "INSERT DATA { kg:a kg:b kg:c }",
        "DELETE WHERE { ?s ?p ?o }",
        "PREFIX ex: <urn:ex:>\n# wipe it\nDELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
        "LOAD <http://example.org/data.ttl>",
        "CLEAR ALL",
        "DROP GRAPH <urn:g>",
        "insert data { oops",  # a broken update is still refused as an update
        "WITH <urn:g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    ],
)
def test_updates_are_refused_by_name_and_change_nothing(project: KnowledgeStore, update: str) -> None:
    before = project.triples()
    with pytest.raises(QueryError, match=r"SPARQL updates .* are refused") as refused:
        project.query(update, [WS])
    assert refused.value.problem == "update"
    assert project.triples() == before


@pytest.mark.parametrize(
    ("query", "where"),
    [
        ("SELECT ?x WHERE {\n  ?x kg:depends_on\n}", "line 2, column 3"),  # where the broken pattern starts
        ("SELECT ?x WHERE { ?x ?p ?o", "line 1, column 27"),
        ("SELEC ?x WHERE { ?x ?p ?o }", "line 1, column 1"),
        ("ASK { ?s ?p ?o } trailing", "line 1, column 18"),
    ],
)
def test_a_malformed_query_names_the_line_and_column(kg: KnowledgeStore, query: str, where: str) -> None:
    with pytest.raises(QueryError, match="does not parse") as bad:
        kg.query(query, [WS])
    assert bad.value.problem == "syntax" and where in str(bad.value)
    assert str(bad.value).splitlines()[-1].strip() == "^"


@pytest.mark.parametrize(
    ("query", "problem", "needle"),
    [
        ("SELECT ?x WHERE { ?x foo:bar ?y }", "syntax", "Unknown namespace prefix : foo"),
        ("   ", "empty", "The query is empty"),
        ("SELECT ?x WHERE { ?x ?p ?o } # " + "x" * 10_000, "too_long", "at most 10000"),
        ("SELECT ?x WHERE { SERVICE <http://127.0.0.1:9/sparql> { ?x ?p ?o } }", "remote", "SERVICE is not allowed"),
        ("SELECT ?x WHERE { FILTER EXISTS { SERVICE <http://127.0.0.1:9/s> { ?x ?p ?o } } }", "remote", "SERVICE"),
        ("SELECT ?x FROM <http://127.0.0.1:9/g.ttl> WHERE { ?x ?p ?o }", "remote", "FROM and FROM NAMED"),
        ("SELECT ?x FROM NAMED <http://127.0.0.1:9/g.ttl> WHERE { ?x ?p ?o }", "remote", "FROM and FROM NAMED"),
    ],
)
def test_queries_that_cannot_run_here_are_refused_before_anything_runs(
    kg: KnowledgeStore, query: str, problem: str, needle: str
) -> None:
    with pytest.raises(QueryError) as refused:
        kg.query(query, [WS])
    assert refused.value.problem == problem and needle in str(refused.value)


def test_a_runaway_query_stops_at_its_deadline(kg: KnowledgeStore) -> None:
    for n in range(60):
        kg.add(f"m{n}", "depends_on", f"m{(n * 7) % 60}", WS)
    product = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?s ?h }"  # 60^4 rows
    with pytest.raises(QueryError, match=r"longer than 0\.2 s") as slow:
        kg.query(product, [WS], timeout_s=0.2)
    assert slow.value.problem == "timeout"
    assert kg.query("ASK { kg:m1 kg:depends_on kg:m7 }", [WS]).answer is True  # the next query has its own deadline


def test_a_path_along_a_chain_too_long_for_rdflib_is_a_query_error(kg: KnowledgeStore) -> None:
    for n in range(1200):
        kg.add(f"m{n}", "depends_on", f"m{n + 1}", WS)
    assert kg.query("ASK { kg:m1190 kg:depends_on+ kg:m1200 }", [WS]).answer is True
    with pytest.raises(QueryError, match="too long for rdflib to follow") as deep:
        kg.query("SELECT (COUNT(?m) AS ?n) WHERE { kg:m0 kg:depends_on+ ?m }", [WS])
    assert deep.value.problem == "evaluation" and "kg:depends_on/kg:depends_on" in str(deep.value)
