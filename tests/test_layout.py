"""The test tree itself: pytest imports test modules by their base name (no packages, rootdir imports), so two
test files with one name in different folders make the second one fail to collect, in a full run only."""

from __future__ import annotations

from collections import Counter
from pathlib import Path


def test_every_test_module_has_a_name_of_its_own() -> None:
    names = Counter(path.name for path in Path(__file__).parent.rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
