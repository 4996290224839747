"""Real Codex 0.169.0 against the scripted Responses server returning chosen usage figures and rate-limit
headers: lunavect shows exactly those numbers (`list --json` and `usage --json`)."""

from __future__ import annotations

import json
import time

from codex_harness import lunavect, run_exec, wait_session
from responses_server import ResponsesServer, message

USAGE = {
    "input_tokens": 3000,
    "input_tokens_details": {"cached_tokens": 1000},
    "output_tokens": 77,
    "output_tokens_details": {"reasoning_tokens": 7},
    "total_tokens": 3077,
}


def count_tokens(codex, server: ResponsesServer) -> tuple[dict, int]:
    """One `codex exec` whose answer reports USAGE and rate-limit headers (42 % of the 5 h window, resetting
    in 3 h, and 8 % of the week's); its ready row, and the 5 h window's reset time."""
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
    server.script(step)
    proc = run_exec(paths, env, iso.work, "count my tokens")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return wait_session(env, lambda s: s["state"] == "ready" and s["usage"] is not None, timeout=30), resets


def test_codex_usage_and_rate_limits_are_exactly_what_the_server_reported(codex, codex_server: ResponsesServer):
    env = codex[2]
    row, resets = count_tokens(codex, codex_server)
    usage = row["usage"]
    assert usage["tokens"] == {
        "input": 2000,
        "output": 77,
        "cache_read": 1000,
        "cache_write": 0,
        "cache_write_1h": 0,
    }
    assert usage["context"] == 3077
    report = json.loads(lunavect(env, "usage", "--json", "--since", "1d").stdout)
    [codex_limits] = [a for a in report["limits"] if a["client"] == "codex"]
    windows = {w["name"]: w for w in codex_limits["windows"]}
    assert (windows["primary"]["used_percent"], windows["primary"]["window_minutes"]) == (42.0, 300)
    assert windows["primary"]["resets_at"] == resets and not windows["primary"]["stale"]
    assert (windows["secondary"]["used_percent"], windows["secondary"]["window_minutes"]) == (8.0, 10080)
    assert report["total"]["tokens"] == usage["tokens"]


def test_codex_s_windows_say_how_long_they_last_at_the_pace_of_the_last_hour(codex, codex_server: ResponsesServer):
    """The real client reports 42 % of its 5 h window and 8 % of its week. No test waits an hour, so the report
    lunavect kept an hour earlier (12 % and 8 %, the same account and reset) is put into the store's history
    beside it: at 30 points an hour the 5 h window runs out in 1 h 56 m, before its reset in 3 h; the week's did
    not grow, it lasts. Every front end that shows the windows says so."""
    from pathlib import Path

    from lunavect import paths, store
    from lunavect.usage import limits as limit_store
    from lunavect.usage.limits import Limits, LimitWindow

    env = codex[2]
    _row, resets = count_tokens(codex, codex_server)
    [reported] = [a for a in json.loads(lunavect(env, "usage", "--json").stdout)["limits"] if a["client"] == "codex"]
    assert [w["pace"] for w in reported["windows"]] == ["unknown", "unknown"]  # one report: no pace yet

    conn = store.connect(Path(env["LUNAVECT_HOME"]) / paths.STORE_FILE_NAME)
    earlier = Limits(
        at=reported["at"] - 3600,
        limit_id=None if reported["account"] == "default" else reported["account"],
        plan=reported["plan"],
        primary=LimitWindow(12.0, 300, float(resets)),
        secondary=LimitWindow(8.0, 10080),
    )
    with conn:
        limit_store.record(conn, "codex", earlier)
    conn.close()

    report = json.loads(lunavect(env, "usage", "--json").stdout)
    [codex_limits] = [a for a in report["limits"] if a["client"] == "codex"]
    assert codex_limits["at"] == reported["at"]  # the real client's report is still the figure
    primary, secondary = codex_limits["windows"]
    assert (primary["used_percent"], primary["pace"]) == (42.0, "runs_out")
    # 58 points left at 30 an hour, counted from now (a few seconds after the report).
    assert abs(primary["runs_out_at"] - (time.time() + 58 / 30 * 3600)) < 120
    assert (secondary["used_percent"], secondary["pace"], secondary["runs_out_at"]) == (8.0, "lasts", None)
    text = lunavect(env, "usage").stdout
    assert "runs out in 1 h 5" in text and "7 d 8 %" in text and "lasts to reset" in text, text
    status = lunavect(env, "status").stdout
    assert "codex 5 h 42 %" in status and "runs out in 1 h 5" in status, status
