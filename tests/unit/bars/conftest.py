"""The bar tests' shared fixture: a private X server, for the tray's test and the server's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from x_server import start_xvfb


@pytest.fixture
def display() -> Iterator[str]:
    """A private X server on a display of its own (tests/support/x_server.py)."""
    proc, name = start_xvfb("640x200x24")
    try:
        yield name
    finally:
        proc.terminate()
        proc.wait(10)
