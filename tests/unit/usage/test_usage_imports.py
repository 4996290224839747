"""`lunavect usage` answering again is measured beside ccusage (bench/peer.py: a tenth of its time at most), and
nearly all of its time is the interpreter's start and its imports: it loads what the report needs, not the
listing's readers (arrangement, hosts, hiding), which a person's `usage` never uses."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.process
def test_usage_loads_the_sessions_names_without_the_listing(iso_env) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "lunavect", "usage", "--json"],
        env=iso_env.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert "lunavect.listing.names" in loaded and "lunavect.usage.report" in loaded
    assert not {"lunavect.listing.sessions", "lunavect.listing.hosts", "textual"} & loaded
