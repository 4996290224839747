"""Real Codex 0.169.0 against the scripted Responses server returning chosen usage figures and rate-limit
headers: lunavect shows exactly those numbers (`list --json` and `usage --json`)."""

from __future__ import annotations

import json
import time

import pytest
from codex_harness import codex_env, lunavect, run_exec, wait_session, write_config
from responses_server import ResponsesServer, message

USAGE = {
    "input_tokens": 3000,
    "input_tokens_details": {"cached_tokens": 1000},
    "output_tokens": 77,
    "output_tokens_details": {"reasoning_tokens": 7},
    "total_tokens": 3077,
}


@pytest.fixture
def codex(client_paths, iso_home, codex_server):
    if client_paths.codex is None:
        pytest.skip("the pinned Codex CLI is not installed")
    write_config(iso_home, codex_server)
    return client_paths, iso_home, codex_env(iso_home, client_paths)


def test_codex_usage_and_rate_limits_are_exactly_what_the_server_reported(codex, codex_server: ResponsesServer):
    paths, iso, env = codex
    resets = int(time.time()) + 3 * 3600
    step = message("Counted.")
    step.usage = USAGE
    step.headers = {
        "x-codex-primary-used-percent": "42",
        "x-codex-primary-window-minutes": "300",
        "x-codex-primary-reset-at": str(resets),
        "x-codex-secondary-used-percent": "8",
        "x-codex-secondary-window-minutes": "10080",
    }
    codex_server.script(step)
    proc = run_exec(paths, env, iso.work, "count my tokens")
    assert proc.returncode == 0, proc.stderr[-2000:]
    row = wait_session(env, lambda s: s["state"] == "ready" and s["usage"] is not None, timeout=30)
    usage = row["usage"]
    assert usage["tokens"] == {"input": 2000, "output": 77, "cache_read": 1000, "cache_write": 0}
    assert usage["context"] == 3077
    report = json.loads(lunavect(env, "usage", "--json", "--since", "1d").stdout)
    [codex_limits] = [a for a in report["limits"] if a["client"] == "codex"]
    windows = {w["name"]: w for w in codex_limits["windows"]}
    assert (windows["primary"]["used_percent"], windows["primary"]["window_minutes"]) == (42.0, 300)
    assert windows["primary"]["resets_at"] == resets and not windows["primary"]["stale"]
    assert (windows["secondary"]["used_percent"], windows["secondary"]["window_minutes"]) == (8.0, 10080)
    assert report["total"]["tokens"] == usage["tokens"]
