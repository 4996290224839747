"""A hostile or corrupt rate-limit figure, piped into the real status-line wrapper as Claude Code pipes its
input (or left in the wrapper's file and the store by an older version), is checked where it enters: every
status format, `lunavect usage` (text and JSON) and the notifier go on with bounded figures, and the next
notification is still delivered."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from notify_support import row
from unit_support import delivering_to, stop_collector, wait_until

from lunavect import store
from lunavect.clients.codex.usage import UsageRead
from lunavect.core.model import State
from lunavect.install.statusline import wrapper_command
from lunavect.listing import sessions
from lunavect.notify.decide import Transition
from lunavect.notify.notifier import Notifier
from lunavect.usage import limits

FORMATS = ("plain", "json", "tmux", "waybar", "i3blocks", "polybar")
# What a status line may carry in place of a figure: each must be refused or bounded, never kept raw.
HOSTILE = [1e300, 1.8e12, 1e308, -5, "95", {"n": 1}, [95], True, None, 10**30]


def status_input(five_hour: object, seven_day: object) -> bytes:
    return json.dumps(
        {
            "session_id": "0b5e3a52-1111-4222-8333-944445555666",
            "rate_limits": {"five_hour": five_hour, "seven_day": seven_day},
        }
    ).encode()


def pipe_through_wrapper(data: bytes, env: dict[str, str]) -> None:
    """The wrapper as Claude Code runs it: `/bin/sh -c` with the JSON on stdin (no command of the person's)."""
    done = subprocess.run(
        ["/bin/sh", "-c", wrapper_command(None)], input=data, capture_output=True, env=env, timeout=30, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """An isolated home; the collector the commands start is stopped at the end (it outlived the test)."""
    values = {
        "HOME": str(tmp_path / "home"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "home" / ".claude-test"),
        "CODEX_HOME": str(tmp_path / "home" / ".codex-test"),
        "LUNAVECT_HOME": str(tmp_path / "lv"),
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("TMUX", raising=False)
    yield {**os.environ, **values}
    stop_collector(tmp_path / "lv")


@pytest.mark.process
def test_a_reset_of_1e300_through_the_wrapper_leaves_every_format_and_usage_bounded(env) -> None:
    pipe_through_wrapper(
        status_input({"used_percentage": 95, "resets_at": 1e300}, {"used_percentage": 1e308, "resets_at": 1.8e12}),
        env,
    )
    kept = json.loads((Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json").read_text())
    assert kept["primary"] == {"used_percent": 95.0, "window_minutes": 300}  # the reset is no time: left out
    assert "secondary" not in kept  # 1e308 is no percent: that window is not kept

    for fmt in FORMATS:
        result = run(env, "status", "--format", fmt)
        assert result.returncode == 0 and result.stderr == "", (fmt, result.stderr)
        assert result.stdout.count("\n") == 1 and "claude 5 h 95 %" in result.stdout, fmt
    report = run(env, "usage")
    assert report.returncode == 0 and report.stderr == "", report.stderr
    assert "Limits claude: 5 h 95 % · pace unknown\n" in report.stdout + "\n"
    as_json = run(env, "usage", "--json")
    assert as_json.returncode == 0, as_json.stderr
    [claude] = json.loads(as_json.stdout)["limits"]
    assert [(w["name"], w["used_percent"], w["resets_at"]) for w in claude["windows"]] == [("five_hour", 95.0, None)]


@pytest.mark.process
def test_a_hostile_history_in_the_wrappers_file_costs_only_its_bad_points(env) -> None:
    """The wrapper's file holds the recent figures the pace is read from: another program (or an older version)
    may have left anything there. The wrapper keeps only the points that are points when it writes again, and
    every reader paces from those alone."""
    folder = Path(env["LUNAVECT_HOME"]) / "limits"
    folder.mkdir(parents=True)
    now = time.time()
    hostile = [[value, value, value] for value in HOSTILE] + [[now - 3600, 20, 8], "x", [[[[]]]], {"a": 1}]
    (folder / "claude.json").write_text(json.dumps({"at": now, "history": hostile * 40}))
    pipe_through_wrapper(
        status_input({"used_percentage": 50, "resets_at": now + 3 * 3600}, {"used_percentage": 8}), env
    )
    kept = json.loads((folder / "claude.json").read_text())
    assert [point[1:] for point in kept["history"]] == [[20, 8], [50, 8]]
    for fmt in FORMATS:
        result = run(env, "status", "--format", fmt)
        assert result.returncode == 0 and result.stderr == "", (fmt, result.stderr)
        assert "claude 5 h 50 %" in result.stdout and "runs out in 1 h 4" in result.stdout, (fmt, result.stdout)
    (folder / "claude.json").write_text(json.dumps({"at": now, "primary": {"used_percent": 9}, "history": 5}))
    report = run(env, "usage", "--json")
    assert report.returncode == 0, report.stderr
    [claude] = json.loads(report.stdout)["limits"]
    assert [(w["used_percent"], w["pace"], w["runs_out_at"]) for w in claude["windows"]] == [(9.0, "unknown", None)]


@pytest.mark.process
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_no_figure_a_status_line_carries_is_kept_out_of_bounds(env, value: object) -> None:
    pipe_through_wrapper(status_input({"used_percentage": value, "resets_at": value}, {"used_percentage": 8}), env)
    kept = json.loads((Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json").read_text())
    for window in (kept.get("primary"), kept.get("secondary")):
        if window is None:
            continue
        assert 0 <= window["used_percent"] <= 100
        assert window.get("resets_at") is None or 0 <= window["resets_at"] <= 4102444800


@pytest.mark.process
@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "1e999", "1" + "0" * 5000])
def test_numbers_json_cannot_spell_but_python_reads_are_refused(env, text: str) -> None:
    window = f'{{"used_percentage": {text}, "resets_at": {text}}}'
    data = f'{{"rate_limits": {{"five_hour": {window}, "seven_day": {{"used_percentage": 8}}}}}}'.encode()
    pipe_through_wrapper(data, env)
    path = Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json"
    kept = json.loads(path.read_text()) if path.exists() else {}
    assert "primary" not in kept


@pytest.mark.process
def test_figures_an_older_version_stored_are_read_bounded(env) -> None:
    """The wrapper's file and the store as a version before the entry checks left them: 1e300 times, a 1e308
    percent, a negative window length, a report made at 1e300."""
    folder = Path(env["LUNAVECT_HOME"]) / "limits"
    folder.mkdir(parents=True)
    now = time.time()
    (folder / "claude.json").write_text(
        json.dumps(
            {
                "at": now,
                "primary": {"used_percent": 1e308, "window_minutes": 300, "resets_at": 1e300},
                "secondary": {"used_percent": 97.0, "window_minutes": -3, "resets_at": 1e300},
            }
        )
    )
    conn = store.connect()
    with conn:
        conn.execute(
            "INSERT INTO usage_limits (client, account, data, at) VALUES ('codex', 'a', ?, 1e300)",
            (json.dumps({"at": 1e300, "primary": {"used_percent": 50.0}}),),
        )
        conn.execute(
            "INSERT INTO usage_limits (client, account, data, at) VALUES ('codex', 'b', ?, ?)",
            (json.dumps({"at": now, "primary": {"used_percent": 40.0, "resets_at": 1.8e12}}), now),
        )
    found = {(a.client, a.account): a for a in limits.read(conn, now)}
    conn.close()
    assert ("codex", "a") not in found  # reported at no believable moment
    [seven_day] = found[("claude", "default")].windows
    assert (seven_day.name, seven_day.used_percent, seven_day.window_minutes, seven_day.resets_at) == (
        "seven_day",
        97.0,
        None,
        None,
    )
    assert [(w.used_percent, w.resets_at) for w in found[("codex", "b")].windows] == [(40.0, None)]
    for fmt in FORMATS:
        result = run(env, "status", "--format", fmt)
        assert result.returncode == 0 and "claude 7 d 97 %" in result.stdout, (fmt, result.stderr)
    assert run(env, "usage").returncode == 0
    assert run(env, "usage", "--json").returncode == 0


@pytest.mark.process
def test_the_notifier_warns_with_a_bounded_figure_and_delivers_the_next_notification(env, tmp_path: Path) -> None:
    pipe_through_wrapper(status_input({"used_percentage": 95, "resets_at": 1e300}, None), env)
    out = tmp_path / "received.jsonl"
    conn = store.connect()
    delivering_to(conn, out, focus=False, coalesce_s=0.0)
    conn.close()

    notifier = Notifier(stored=sessions, usage_every=0.05)
    try:
        wait_until(lambda: out.exists() and out.read_text().count("\n") == 1)
        [warning] = [json.loads(line) for line in out.read_text().splitlines()]
        assert warning["title"] == "Claude Code: 5 h window at 95 %" and warning["limit"]["resets_at"] is None
        notifier([Transition(State.WORKING, row(1, at=time.time()))])
        wait_until(lambda: out.read_text().count("\n") == 2)
    finally:
        notifier.close()
    assert json.loads(out.read_text().splitlines()[1])["open"] == "claude:s1"
    assert not math.isnan(warning["limit"]["used_percent"])


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_a_codex_token_count_of_any_figure_is_read_bounded(value: object) -> None:
    """Codex's rollout is the other entry of the figures: a `token_count` event with the same hostile values."""
    event = {
        "timestamp": "2026-11-29T14:38:32.771Z",
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": {
                "total_token_usage": {"input_tokens": value, "cached_input_tokens": value, "output_tokens": value},
                "last_token_usage": {"total_tokens": value},
                "model_context_window": value,
            },
            "rate_limits": {
                "limit_id": "codex",
                "primary": {"used_percent": value, "window_minutes": value, "resets_at": value},
                "secondary": {"used_percent": 12.5, "window_minutes": value, "resets_at": value},
            },
        },
    }
    read = UsageRead(None, time.time())
    read.lines(json.dumps(event).encode() + b"\n")
    usage = read.usage
    assert usage.limits is not None and usage.total is not None
    for delta in read.deltas:  # what the history takes from it, too
        assert all(0 <= n < 1 << 40 for n in (delta.tokens.input, delta.tokens.output, delta.tokens.cache_read))
    assert usage.limits.primary is None or 0 <= usage.limits.primary.used_percent <= 100
    secondary = usage.limits.secondary
    assert secondary is not None and secondary.used_percent == 12.5
    assert secondary.resets_at is None or 0 <= secondary.resets_at <= 4102444800
    assert secondary.window_minutes is None or 1 <= secondary.window_minutes <= 366 * 1440
    assert all(0 <= n < 1 << 40 for n in (usage.total.input, usage.total.output, usage.total.cache_read))
    assert usage.context is None or 0 < usage.context < 1 << 40
