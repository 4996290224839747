"""The house's shape, held as tests: the wings under src/lunavect, modules of a readable size, and no import
cycle between modules or packages, counting the imports made inside functions (which a plain reading of a
module's head misses, and which the layers contract in pyproject.toml checks only between its floors)."""

from __future__ import annotations

import sys
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "lunavect"
MAX_LINES = 450


def test_at_most_six_python_files_stand_directly_under_the_package() -> None:
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= 6, loose


def test_no_module_is_over_450_lines() -> None:
    long = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in sorted(edges):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def _at_depth(module: str, depth: int) -> str:
    return ".".join(module.split(".")[: depth + 1])


def test_no_import_cycle_between_modules_or_packages() -> None:
    graph = grimp.build_graph("lunavect", include_external_packages=False)  # every import, in functions too
    cycles = {}
    for depth in (1, 2, 3, 99):
        edges: dict[str, set[str]] = {}
        for module in graph.modules:
            for imported in graph.find_modules_directly_imported_by(module):
                a, b = _at_depth(module, depth), _at_depth(imported, depth)
                # A package's face importing its own child (or a child its face) is no cycle between packages.
                if a != b and not b.startswith(a + ".") and not a.startswith(b + "."):
                    edges.setdefault(a, set()).add(b)
        if found := _cycles(edges):
            cycles[depth] = found
    assert cycles == {}
