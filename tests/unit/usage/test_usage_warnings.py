"""Usage warnings: a rate-limit window at or past the person's threshold warns once per window, through the
notifier's own delivery (here a real `notify.command` program), and a restarted notifier does not repeat it."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from unit_support import delivering_to, wait_until

from lunavect import store
from lunavect.listing import sessions
from lunavect.notify import settings
from lunavect.notify.notifier import Notifier
from lunavect.notify.usage import note_of
from lunavect.usage import limits, warnings
from lunavect.usage.limits import Limits, LimitWindow

FIVE_H = 300


@pytest.fixture
def conn(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    c = store.connect()
    yield c
    c.close()


def report(conn, percent: float, resets: float | None, at: float, account: str = "codex") -> None:
    with conn:
        limits.record(conn, "codex", Limits(at=at, limit_id=account, primary=LimitWindow(percent, FIVE_H, resets)))


def test_a_window_warns_once_and_again_in_the_next_window(conn) -> None:
    now = time.time()
    resets = now + 3600
    report(conn, 89.0, resets, now)
    assert warnings.due(conn, 90.0, now) == []
    report(conn, 91.0, resets, now + 1)
    [warning] = warnings.due(conn, 90.0, now)
    assert (warning.key, warning.window, warning.used_percent) == ("codex/codex/primary", "5 h", 91.0)
    report(conn, 95.0, resets + 1, now + 2)  # the same window, its reset recomputed a second later
    assert warnings.due(conn, 90.0, now) == []
    report(conn, 92.0, resets + FIVE_H * 60, now + 3)  # the next window
    assert [w.used_percent for w in warnings.due(conn, 90.0, now)] == [92.0]
    report(conn, 99.0, resets + 2 * FIVE_H * 60, now + 4)
    assert warnings.due(conn, None, now) == []  # off
    assert warnings.due(conn, 100.0, now) == []  # below this person's threshold
    assert [w.used_percent for w in warnings.due(conn, 90.0, now)] == [99.0]
    report(conn, 91.0, now - 1, now - FIVE_H * 60, account="other")  # a window that has reset since: stale
    assert warnings.due(conn, 90.0, now) == []


def test_the_text_is_numbers_only() -> None:
    warning = warnings.Warning("claude/default/five_hour", "1", "claude", "default", "5 h", 91.0, None, 0.0)
    note = note_of(warning)
    assert (note.title, note.body, note.open_id, note.kinds) == (
        "Claude Code: 5 h window at 91 %",
        "",
        None,
        ("usage",),
    )
    assert note.as_dict()["limit"] == {
        "client": "claude",
        "account": "default",
        "window": "5 h",
        "used_percent": 91.0,
        "resets_at": None,
    }


def _deliveries(out: Path) -> list[dict]:
    return [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []


@pytest.mark.process
def test_the_notifier_delivers_a_warning_once_per_window_across_a_restart(conn, tmp_path: Path) -> None:
    out = tmp_path / "received.jsonl"
    delivering_to(conn, out)
    now = time.time()
    resets = now + 3600
    report(conn, 91.0, resets, now)

    first = Notifier(stored=sessions, usage_every=0.05)
    wait_until(lambda: len(_deliveries(out)) == 1)
    report(conn, 93.0, resets, now + 1)  # the same window, while it runs
    first([])  # a batch of transitions looks too
    time.sleep(0.3)  # several of its looks
    first.close()
    second = Notifier(stored=sessions, usage_every=0.05)  # a restarted collector's
    time.sleep(0.3)
    report(conn, 97.0, resets + FIVE_H * 60, now + 2)  # the next window
    wait_until(lambda: len(_deliveries(out)) == 2)
    time.sleep(0.3)
    second.close()
    [one, two] = _deliveries(out)
    assert one["title"] == "Codex: 5 h window at 91 %" and one["kinds"] == ["usage"] and one["sessions"] == []
    assert one["limit"]["used_percent"] == 91.0 and one["open"] is None
    assert two["title"] == "Codex: 5 h window at 97 %"


@pytest.mark.process
def test_the_person_s_threshold_and_off_switch_are_obeyed(conn, tmp_path: Path) -> None:
    out = tmp_path / "received.jsonl"
    chosen = delivering_to(conn, out, usage_percent=95.0)
    now = time.time()
    report(conn, 94.0, now + 3600, now)
    notifier = Notifier(stored=sessions, usage_every=0.05)
    try:
        time.sleep(0.3)
        assert _deliveries(out) == []  # 94 % is below this person's 95 %
        chosen.enabled = False
        settings.save(conn, chosen)
        report(conn, 96.0, now + 3600, now + 1)
        time.sleep(0.3)
        assert _deliveries(out) == []  # notifications off
        chosen.enabled = True
        settings.save(conn, chosen)
        wait_until(lambda: len(_deliveries(out)) == 1)
    finally:
        notifier.close()
    assert _deliveries(out)[0]["limit"]["used_percent"] == 96.0


def test_the_threshold_is_set_and_turned_off_on_the_command_line(iso_env) -> None:
    done = iso_env.cli("notifications", "set", "--usage-percent", "85")
    assert done.returncode == 0 and "usage warnings: when a rate-limit window reaches 85 %" in done.stdout
    assert settings.load(iso_env.connect()).usage_percent == 85.0
    done = iso_env.cli("notifications", "set", "--usage-percent", "off")
    assert "usage warnings: off" in done.stdout
    assert settings.load(iso_env.connect()).usage_percent is None
    for bad in ("0", "101", "lots"):
        done = iso_env.cli("notifications", "set", "--usage-percent", bad)
        assert done.returncode != 0 and "Traceback" not in done.stderr + done.stdout
        assert len((done.stderr + done.stdout).strip().splitlines()) == 1, done.stderr
    assert settings.load(iso_env.connect()).usage_percent is None  # nothing changed
