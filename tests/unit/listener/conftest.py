"""The listener's tests share one listener on a port the OS gives, spooling into the test's folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hook_listener_support import SECRET

from lunavect.listener.server import HookListener


@pytest.fixture
def listener(tmp_path: Path, iso_env) -> Iterator[tuple[HookListener, Path]]:
    """A listener whose failures, if any, are recorded in the test's own store (iso_env)."""
    spool = tmp_path / "spool" / "events.jsonl"
    server = HookListener(str(spool), SECRET, deadline_s=1.0).start()
    try:
        yield server, spool
    finally:
        server.close()
