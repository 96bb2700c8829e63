"""Layers import only downward (docs/architecture.md): checked on every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "chrysalis"
# Lower number = lower layer. A module may import its own layer and the ones below.
# fmt: skip below: the layers read as one table, by number.
LAYERS = {
    "errors": 0, "config": 0, "trust": 0, "redact": 0, "voting": 0, "events": 0, "plugin": 0, "tls": 0,
    "tools": 1, "stores": 2, "llm": 3, "evolve": 4,
    "agent": 5, "capabilities": 5, "council": 5, "decomposition": 5, "repair": 5, "runtime": 5,
    "cli": 6, "server": 6,
    "__init__": 7, "__main__": 7,
}  # fmt: skip


def layer_of(module: str) -> int:
    parts = module.split(".")
    assert parts[0] == "chrysalis"
    return LAYERS[parts[1]] if len(parts) > 1 else LAYERS["__init__"]


def chrysalis_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("chrysalis"):
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names if alias.name.startswith("chrysalis"))
    return found


def test_every_import_points_down() -> None:
    violations = []
    for path in SRC.rglob("*.py"):
        module = "chrysalis." + ".".join(path.relative_to(SRC).with_suffix("").parts)
        own = layer_of(module)
        for imported in chrysalis_imports(path):
            if imported != "chrysalis" and layer_of(imported) > own:
                violations.append(f"{module} imports {imported}")
    assert violations == []


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(("chrysalis", *parts)).removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Module -> the chrysalis modules it imports, at the top or inside a function (a lazy import is one too)."""
    modules = {_module_name(path): path for path in SRC.rglob("*.py")}

    def known(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("chrysalis"):
                targets.update(known(f"{node.module}.{alias.name}") for alias in node.names)
            elif isinstance(node, ast.Import):
                targets.update(known(a.name) for a in node.names if a.name.startswith("chrysalis"))
        graph[module] = targets - {module, "chrysalis"}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back() -> None:
    """No cycle between modules, lazy imports counted: a cycle is a layer inside a layer that nobody drew."""
    assert cycles(import_graph()) == []


def test_packages_of_one_layer_do_not_import_each_other_both_ways() -> None:
    """``agent`` may use ``capabilities``, or the other way round, never both (lazy imports counted)."""
    packages: dict[str, set[str]] = {}
    for module, targets in import_graph().items():
        own = ".".join(module.split(".")[:2])
        packages.setdefault(own, set()).update(".".join(t.split(".")[:2]) for t in targets)
    for own in packages:
        packages[own].discard(own)
    assert cycles(packages) == []
