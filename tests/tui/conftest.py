"""The panel's tests: a real store in a temporary folder, sessions written into it, and a clock the test holds.

Every test runs isolated (HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and LUNAVECT_HOME in its tmp folder) and the
panel never starts a collector here: the tests write the snapshot themselves, as a collector would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from tui_support import NO_SETUP, Clock

from lunavect import store
from lunavect.frontends.tui import PanelApp


@pytest.fixture(autouse=True)
def iso_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    for name, value in {
        "HOME": home,
        "CLAUDE_CONFIG_DIR": home / ".claude-test",
        "CODEX_HOME": home / ".codex-test",
        "LUNAVECT_HOME": tmp_path / "lunavect-home",
    }.items():
        monkeypatch.setenv(name, str(value))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv("TMUX", raising=False)
    return tmp_path


@pytest.fixture
def conn() -> Iterator[sqlite3.Connection]:
    """The test's own connection to the store (the panel opens another, as a separate process would)."""
    connection = store.connect()
    yield connection
    connection.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def make_app(clock: Clock) -> Callable[..., PanelApp]:
    def make(**options: object) -> PanelApp:
        options.setdefault("clock", clock)
        options.setdefault("start_collector", False)
        options.setdefault("setup", lambda: NO_SETUP)
        return PanelApp(**options)  # type: ignore[arg-type]

    return make
