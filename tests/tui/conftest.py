"""The panel's tests: a real store in a temporary folder, sessions written into it, and a clock the test holds.

Every test runs isolated (tests/conftest.py) and the panel never starts a collector here: the tests write the
snapshot themselves, as a collector would.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator

import pytest
from tui_support import NO_SETUP, Clock

from lunavect import store
from lunavect.frontends.tui import PanelApp


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
