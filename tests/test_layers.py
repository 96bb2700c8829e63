"""Layers import only downward (docs/architecture.md): checked on every module's imports."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "chrysalis"
# Lower number = lower layer. A module may import its own layer and the ones below.
# fmt: skip below: the layers read as one table, by number.
LAYERS = {
    "errors": 0, "config": 0, "trust": 0, "redact": 0, "voting": 0, "events": 0, "plugin": 0,
    "tools": 1, "stores": 2, "llm": 3, "evolve": 4,
    "agent": 5, "capabilities": 5, "decomposition": 5, "repair": 5, "runtime": 5,
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
