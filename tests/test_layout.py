"""The test tree itself: pytest imports test modules by their base name (no packages, rootdir imports), so two
test files with one name in different folders make the second one fail to collect, in a full run only."""

from __future__ import annotations

from collections import Counter
from pathlib import Path


def test_every_test_module_has_a_name_of_its_own() -> None:
    names = Counter(path.name for path in Path(__file__).parent.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []


def test_every_test_module_another_test_imports_is_on_the_configured_pythonpath() -> None:
    """A test that imports another test module's builders finds it only through `pythonpath` (pyproject.toml):
    pytest's own sys.path entries depend on which files ran first, so a run of one file would fail."""
    import re
    import tomllib

    root = Path(__file__).parent.parent
    configured = {
        root / p
        for p in tomllib.loads((root / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]["pythonpath"]
    }
    tests = {path.stem: path for path in Path(__file__).parent.rglob("*.py")}
    imported = {
        name
        for path in tests.values()
        for name in re.findall(
            r"^\s*(?:from|import) (test_\w+|\w+_support|\w+_server|\w+_harness)\b", path.read_text(), re.M
        )
        if name in tests
    }
    assert sorted(n for n in imported if tests[n].parent not in configured) == []
