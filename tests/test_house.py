"""The house's shape, held as tests: the wings under src/lunavect, modules of a readable size, no import cycle
between modules or packages, counting the imports made inside functions (which a plain reading of a module's
head misses, and which the layers contract in pyproject.toml checks only between its floors), and what a
client is said in one place (its descriptor, its package)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp

from lunavect.core import clients

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


def _client_places() -> set[Path]:
    """Where a client's id may be compared or key a table: its descriptor's module and the client packages."""
    return {PACKAGE / "core" / "clients.py"} | {
        PACKAGE.parent.joinpath(*client.package.split(".")) for client in clients.every()
    }


def _strings(node: ast.AST) -> list[str]:
    """The string constants a comparison operand is or holds (`x == "claude"`, `x in ("claude", "codex")`)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def client_dispatch(tree: ast.AST, ids: set[str]) -> list[tuple[int, str]]:
    """Every place the tree compares a value with a client's id, keys a table by one or matches one: (line,
    what)."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for operand in (node.left, *node.comparators):
                found += [(node.lineno, f"compares with {s!r}") for s in _strings(operand) if s in ids]
        elif isinstance(node, ast.Dict):
            for key in node.keys:
                found += [(node.lineno, f"a table keyed by {s!r}") for s in _strings(key) if key and s in ids]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
            found += [(node.lineno, f"a table keyed by {k.arg!r}") for k in node.keywords if k.arg in ids]
        elif isinstance(node, ast.MatchValue):
            found += [(node.lineno, f"matches {s!r}") for s in _strings(node.value) if s in ids]
    return found


def test_no_client_id_is_compared_or_keys_a_table_outside_its_descriptor_and_package() -> None:
    """What a client is lives in core/clients.py and its package (`lunavect.clients` finds the package): code
    elsewhere asks the descriptor or the face, so adding a client is one package and one descriptor."""
    ids = set(clients.ids())
    allowed = _client_places()
    found = {
        f"{path.relative_to(PACKAGE)}:{line}": what
        for path in sorted(PACKAGE.rglob("*.py"))
        if not any(path == place or place in path.parents for place in allowed)
        for line, what in client_dispatch(ast.parse(path.read_text(encoding="utf-8")), ids)
    }
    assert found == {}


def test_the_dispatch_check_sees_each_form() -> None:
    code = """
if provider == "claude": pass
if "codex" != p or p in ("claude", "x"): pass
NAMES = {"claude": "Claude Code"}
TABLE = dict(codex=1)
match p:
    case "codex": pass
"""
    assert sorted(line for line, _what in client_dispatch(ast.parse(code), {"claude", "codex"})) == [2, 3, 3, 4, 5, 7]


def test_only_the_faces_module_imports_a_client_package_by_name() -> None:
    """`lunavect.clients` imports each client's package by its descriptor's name, which import-linter cannot see;
    any other import by name would be a way into a client that no contract checks."""
    dynamic = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            or (isinstance(node.func, ast.Name) and node.func.id in ("__import__", "import_module"))
        )
    )
    # The command line's groups import their own command modules by name (`lunavect.cli.<name>`).
    assert dynamic == ["cli/root.py", "clients/__init__.py"]


def test_the_snapshot_table_is_read_by_the_listing_and_the_collector_only() -> None:
    """The collector writes the snapshot and the listing reads it for everyone else: a wing below the listing
    (the notifier, the usage report, sync's intake) is handed the listing's reader by its caller above, or
    reads a view the store's schema names (the usage ledger's `listed_session`)."""
    import re

    statement = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE)\s+snapshot\b", re.I)
    readers = {PACKAGE / "listing", PACKAGE / "collector"}
    found = sorted(
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in PACKAGE.rglob("*.py")
        if not any(place in path.parents for place in readers)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and statement.search(node.value)
        if not (path == PACKAGE / "store" / "migrations.py" and node.value.startswith("CREATE VIEW "))  # the views
    )
    assert found == []
