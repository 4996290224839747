"""A collector that is slow to start (a loaded machine) is waited for, never taken for none: a front end that
started it goes on only once it has caught up with the hook events sent before (CI: `lunavect open` found no
session its hooks had just sent, because the collector took longer than the catch-up wait to take its lock)."""

from __future__ import annotations

import json

import pytest

from lunavect.collector import process as collector

SID = "51015101-0000-4000-8000-000000000001"
# An interpreter whose start takes longer than the catch-up wait, for the collector's process only.
SLOW_START = f"""import sys, time
if "daemon" in sys.orig_argv:
    time.sleep({collector.CATCH_UP_TIMEOUT_S + 2})
"""


@pytest.mark.process
def test_a_collector_slower_to_start_than_the_catch_up_wait_is_waited_for(iso_env, tmp_path):
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "sitecustomize.py").write_text(SLOW_START)
    iso_env.env["PYTHONPATH"] = str(slow)
    payload = {"session_id": SID, "hook_event_name": "UserPromptSubmit", "cwd": str(tmp_path)}
    assert iso_env.hook(payload).returncode == 0
    result = iso_env.cli("list", "--json")  # the collector is stopped with the iso installation
    assert result.returncode == 0, result.stderr
    assert "warning" not in result.stderr
    assert [row["id"] for row in json.loads(result.stdout)] == [f"claude:{SID}"]
