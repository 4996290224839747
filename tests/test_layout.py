"""The test tree itself: pytest imports test modules by their base name (no packages, rootdir imports), so two
test files with one name in different folders make the second one fail to collect, in a full run only; what the
tests share lives in tests/support (on pytest's pythonpath), never in another test module."""

from __future__ import annotations

import ast
import functools
import tomllib
from collections import Counter
from pathlib import Path

from markers_support import PROCESS_FOLDERS

TESTS = Path(__file__).parent
ROOT = TESTS.parent
SUPPORT = TESTS / "support"


def _pythonpath() -> set[Path]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {ROOT / p for p in config["tool"]["pytest"]["ini_options"]["pythonpath"]}


@functools.cache
def _imported(path: Path) -> set[str]:
    """The top-level names of the modules `path` imports, at its head or inside functions."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_every_test_module_has_a_name_of_its_own() -> None:
    names = Counter(path.name for path in TESTS.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []


def test_no_test_module_imports_another() -> None:
    """A builder two tests share moves to tests/support: a test module is run, never imported (imported, its
    tests would run twice, and its module-level skips and fixtures would leak into the importer)."""
    tests = {path.stem for path in TESTS.rglob("test_*.py")}
    found = sorted(
        f"{path.relative_to(TESTS)} imports {name}" for path in TESTS.rglob("*.py") for name in _imported(path) & tests
    )
    assert found == []


def test_every_helper_a_test_imports_is_on_the_configured_pythonpath() -> None:
    """A test finds a helper only through `pythonpath` (pyproject.toml): pytest's own sys.path entries depend on
    which files ran first, so a run of one file would fail."""
    found_in: dict[str, Path] = {}  # each helper's name, and the folder that must be on the path to import it
    for path in TESTS.rglob("*.py"):
        if path.name == "__init__.py":
            found_in[path.parent.name] = path.parent.parent  # a package (the stand-in client)
        elif not path.name.startswith("test_") and path.name != "conftest.py":
            found_in[path.stem] = path.parent
    imported = {name for path in TESTS.rglob("*.py") for name in _imported(path)} & set(found_in)
    assert sorted(name for name in imported if found_in[name] not in _pythonpath()) == []


def test_the_pythonpath_holds_helpers_and_no_test_module() -> None:
    """Only tests/support, and the folder of the stand-in client package: a test module on the path could be
    imported by another test again."""
    assert SUPPORT in _pythonpath()
    assert sorted(str(p.relative_to(ROOT)) for folder in _pythonpath() for p in folder.glob("test_*.py")) == []


def test_every_module_in_support_is_a_helper() -> None:
    assert sorted(p.name for p in SUPPORT.glob("test_*.py")) == [] and not (SUPPORT / "conftest.py").exists()


# What starts a process in a test's own body: subprocess's calls, the installation's shim and CLI runs
# (`iso_env.hook`, `iso_env.cli_process`), the support's servers, and the fixtures that start one.
_STARTS = {"run", "Popen", "check_output", "check_call", "call"}  # subprocess.<name>
_STARTS_METHODS = {"hook", "cli_process"}
_STARTS_FUNCTIONS = {"sleeping_process", "tmux_server", "start_xvfb"}
_STARTS_FIXTURES = {"display", "small_disk"}


def _starts_a_process(test: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    if {arg.arg for arg in test.args.args} & _STARTS_FIXTURES:
        return True
    for node in ast.walk(test):
        if not isinstance(node, ast.Call):
            continue
        called = node.func
        if isinstance(called, ast.Name) and called.id in _STARTS_FUNCTIONS:
            return True
        if isinstance(called, ast.Attribute) and (
            called.attr in _STARTS_METHODS
            or (called.attr in _STARTS and isinstance(called.value, ast.Name) and called.value.id == "subprocess")
        ):
            return True
    return False


def test_a_test_that_starts_a_process_is_marked_so() -> None:
    """`-m "not process"` is the fast loop: a test that starts a process in its own body (the shim, the CLI, a
    server, an X server) carries `@pytest.mark.process`. (One that starts it through a helper is marked too, by
    hand: this check sees only the test's own calls.)"""
    unmarked = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if path.relative_to(TESTS).parts[0] in PROCESS_FOLDERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        whole = any(
            isinstance(node, ast.Assign) and "pytestmark" in ast.unparse(node) and "process" in ast.unparse(node)
            for node in tree.body
        )
        unmarked += [
            f"{path.relative_to(TESTS)}::{node.name}"
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.name.startswith("test_")
            and not whole
            and not any("mark.process" in ast.unparse(d) for d in node.decorator_list)
            and _starts_a_process(node)
        ]
    assert unmarked == []
