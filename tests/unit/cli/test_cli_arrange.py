"""`lunavect hide|unhide|pin|unpin|move|resume|auto-hide`: the panel's actions for scripts, in the same store."""

from __future__ import annotations

import datetime as _dt
import json
import time

import pytest
from unit_support import a_session, seed_snapshot

from lunavect import store


def write(conn, sid: str, age: float) -> None:
    """A listed snapshot row, as the collector writes one."""
    updated = _dt.datetime.fromtimestamp(time.time() - age, _dt.UTC).isoformat().replace("+00:00", "Z")
    session = a_session(sid, title=sid, project="p", resume=f"claude --resume {sid}", updated=updated)
    seed_snapshot(conn, session)


@pytest.fixture
def seeded(iso_env):
    conn = iso_env.connect()
    for sid, age in (("aaaa1111", 10), ("bbbb2222", 20), ("cccc3333", 30)):
        write(conn, sid, age=age)
    return iso_env


def listed(iso, *flags: str) -> list[dict]:
    result = iso.cli("list", "--json", *flags)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@pytest.mark.process
def test_pin_hide_unhide_unpin_and_list_agrees(seeded):
    assert seeded.cli("pin", "cccc").stdout.strip() == "claude:cccc3333: pinned"
    assert seeded.cli("pin", "cccc").stdout.strip() == "claude:cccc3333: already pinned"
    rows = listed(seeded)
    assert rows[0]["id"] == "claude:cccc3333" and rows[0]["pinned"] is True
    assert seeded.cli("hide", "claude:aaaa1111").stdout.strip() == "claude:aaaa1111: hidden"
    assert "claude:aaaa1111" not in [r["id"] for r in listed(seeded)]
    every = {r["id"]: r for r in listed(seeded, "--all")}
    assert every["claude:aaaa1111"]["hidden"] is True
    assert seeded.cli("unhide", "aaaa1111").stdout.strip() == "claude:aaaa1111: shown"
    assert seeded.cli("unpin", "cccc3333").stdout.strip() == "claude:cccc3333: unpinned"
    assert [r["id"] for r in listed(seeded)] == ["claude:aaaa1111", "claude:bbbb2222", "claude:cccc3333"]


@pytest.mark.process
def test_move_before_and_after(seeded):
    result = seeded.cli("move", "cccc", "--before", "aaaa")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "claude:cccc3333: moved before claude:aaaa1111"
    assert [r["id"] for r in listed(seeded)] == ["claude:cccc3333", "claude:aaaa1111", "claude:bbbb2222"]
    assert seeded.cli("move", "cccc", "--after", "bbbb").returncode == 0
    assert [r["id"] for r in listed(seeded)] == ["claude:aaaa1111", "claude:bbbb2222", "claude:cccc3333"]


@pytest.mark.process
def test_resume_print(seeded):
    result = seeded.cli("resume", "bbbb", "--print")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "claude --resume bbbb2222"


def test_auto_hide_setting(seeded):
    assert seeded.cli("auto-hide").stdout.strip() == "automatic hiding: off"
    assert seeded.cli("auto-hide", "3d").stdout.strip() == "automatic hiding: inactive sessions after 3d"
    conn = seeded.connect()
    assert store.get_setting(conn, "auto_hide_after") == repr(3 * 86400.0)
    assert seeded.cli("auto-hide", "off").stdout.strip() == "automatic hiding: off"


@pytest.mark.process
@pytest.mark.parametrize(
    "args, message, code",
    [
        (("hide", "nope"), "no session 'nope'", 1),
        (("pin", ""), "no session id given", 1),
        # Bad usage exits 2, as every command's does (docs, "Exit codes").
        (("move", "aaaa"), "give exactly one of --before ID or --after ID", 2),
        (("move", "aaaa", "--before", "bbbb", "--after", "cccc"), "give exactly one", 2),
        (("auto-hide", "soon"), "not a duration", 2),
    ],
)
def test_bad_input_is_one_clear_line(seeded, args, message, code):
    result = seeded.cli(*args)
    assert result.returncode == code
    assert result.stderr.startswith("lunavect: ") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


@pytest.mark.process
def test_moving_across_the_pinned_rows_is_refused(seeded):
    seeded.cli("pin", "aaaa")
    result = seeded.cli("move", "cccc", "--before", "aaaa")
    assert result.returncode == 1 and "pinned sessions stay above the others" in result.stderr


@pytest.mark.process
def test_lunavect_without_a_terminal_prints_the_list_once(seeded):
    """`lunavect` alone opens the panel; in a pipe, with no terminal to draw on, it prints the list."""
    result = seeded.cli_process()  # a real pipe, not click's test streams
    assert result.returncode == 0, result.stderr
    assert "aaaa1111" in result.stdout and "STATE" in result.stdout
    assert "\x1b[" not in result.stdout  # no screen was drawn


@pytest.mark.process
def test_a_hidden_session_is_named_by_its_id(seeded):
    """Every command resolves ids the same way, hidden rows included: open, resume and unhide reach it."""
    assert seeded.cli("hide", "bbbb").stdout.strip() == "claude:bbbb2222: hidden"
    assert "bbbb2222" not in {s["session_id"] for s in listed(seeded)}
    assert seeded.cli("resume", "bbbb", "--print").stdout.strip() == "claude --resume bbbb2222"
    opened = json.loads(seeded.cli("open", "bbbb", "--json").stdout)  # found: no folder to resume it from
    assert opened["outcome"] == "unavailable" and opened["command"] == "claude --resume bbbb2222"
    assert seeded.cli("unhide", "bbbb2222").stdout.strip() == "claude:bbbb2222: shown"


@pytest.mark.process
def test_open_and_arrange_agree_on_an_ambiguous_prefix(seeded):
    write(seeded.connect(), "aaaa9999", age=5)
    for args in (("open", "aaaa"), ("pin", "aaaa"), ("resume", "aaaa", "--print")):
        result = seeded.cli(*args)
        assert result.returncode == 1 and result.stdout == ""
        assert result.stderr.strip() == (
            "lunavect: 'aaaa' matches 2 sessions (claude:aaaa1111, claude:aaaa9999): give more of the id"
        )


def test_dismiss_and_undismiss_and_status_and_next_agree(iso_env):
    """`lunavect dismiss` takes an error out of the bars and out of `next` without hiding it; `status` and
    `next` name the same session (issue 48, item 4)."""
    conn = iso_env.connect()
    for sid, state, age in (("eeee1111", "error", 30), ("ffff2222", "ready", 10)):
        updated = _dt.datetime.fromtimestamp(time.time() - age, _dt.UTC).isoformat().replace("+00:00", "Z")
        session = a_session(sid, title=sid, state=state, open=True, updated=updated, last_active=updated)
        seed_snapshot(conn, session)

    def bar() -> dict:
        return json.loads(iso_env.cli("status", "--format", "json").stdout)

    def next_one() -> str:
        return iso_env.cli("next", "--print", "--json").stdout

    assert (bar()["errors"], bar()["urgent"]["id"]) == (1, "claude:eeee1111")
    assert "claude:eeee1111" in next_one()
    assert iso_env.cli("dismiss", "eeee").stdout.strip() == "claude:eeee1111: dismissed"
    assert iso_env.cli("dismiss", "eeee").stdout.strip() == "claude:eeee1111: already dismissed"
    assert (bar()["errors"], bar()["urgent"]) == (0, None)
    assert "claude:eeee1111" not in next_one()  # nothing needs you: a ready reply never does
    row = next(r for r in listed(iso_env) if r["id"] == "claude:eeee1111")
    assert row["dismissed"] is True and row["hidden"] is False
    assert iso_env.cli("undismiss", "eeee").stdout.strip() == "claude:eeee1111: needs you again"
    assert bar()["errors"] == 1
    refused = iso_env.cli("dismiss", "nothing-like-it")
    assert refused.returncode != 0
