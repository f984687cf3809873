"""The import graph of ``src/cambio`` (every import, at module level or inside a
function, apart from those only a type checker reads): the layers go one way.

One circle is left and listed here: the round's own methods that save and write
positions (``Round.to_json``, ``Round.position``) import the modules that read them
back, which import the round. Any other circle fails this test, as does the known one
changing shape (then update the list, or remove it once the round's state has a record
of its own that those modules read instead)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "cambio"

KNOWN = [
    {"cambio.invariants", "cambio.match", "cambio.position", "cambio.round", "cambio.saving"},
]


def _modules() -> dict[str, Path]:
    out = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            id(n)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for n in ast.walk(node)
        }
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - (node.level - 1)]
                    base = ".".join([*parts, *([node.module] if node.module else [])])
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                while target not in mods and "." in target:
                    target = target.rpartition(".")[0]
                if target in mods and target != name:
                    graph[name].add(target)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(group)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_only_import_circle_is_the_known_one() -> None:
    circles = _circles(_graph())
    assert sorted(map(sorted, circles)) == sorted(map(sorted, KNOWN))


def test_rules_finding_and_reading_tables_are_layers() -> None:
    graph = _graph()
    assert "cambio.loading" not in graph["cambio.rules"]
    assert "cambio.loading" not in graph["cambio.registry"]
    assert "cambio.registry" in graph["cambio.loading"]
