"""The fixtures the unit tests of several wings share (their builders are in tests/support)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from claude_files_support import World


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """A Claude Code world: its config folder, store and collector, and the fake runtimes a test starts."""
    w = World(tmp_path)
    try:
        yield w
    finally:
        w.close()
