"""`lunavect next` end to end, the real CLI on rows in the store: it names the session that needs its person
most and opens it exactly as `lunavect open` does (the same outcome and words), and with nothing waiting
says so in one line and exits 1. Which session that is: tests/unit/listing/test_next.py."""

from __future__ import annotations

import time

import pytest
from unit_support import a_session, seed_snapshot

from lunavect.core.model import State
from lunavect.core.times import iso
from lunavect.listing import attention


@pytest.mark.process
def test_next_prints_the_most_urgent_and_opens_it_exactly_as_open_does(iso_env):
    now = time.time()
    conn = iso_env.connect()
    seed_snapshot(
        conn,
        a_session("r1", state=State.READY, title="Old reply", open=True, last_active=iso(now - 600)),
        a_session("p1", state=State.PERMISSION, title="Deploy the site", waiting_for="Bash", last_active=iso(now - 5)),
        a_session(
            "e1", state=State.ERROR, error="limit", title="Ended failure", open=False, last_active=iso(now - 900)
        ),
    )
    conn.close()
    printed = iso_env.cli("next", "--print")
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == "Permission needed: Bash · Deploy the site (Claude) · lunavect open claude:p1\n"
    opened, by_open = iso_env.cli("next"), iso_env.cli("open", "claude:p1")
    assert (opened.returncode, opened.stdout, opened.stderr) == (by_open.returncode, by_open.stdout, by_open.stderr)
    as_json, by_open_json = iso_env.cli("next", "--json"), iso_env.cli("open", "claude:p1", "--json")
    assert (as_json.returncode, as_json.stdout) == (by_open_json.returncode, by_open_json.stdout)


@pytest.mark.process
def test_next_with_nothing_waiting_says_so_in_one_line_and_exits_1(iso_env):
    conn = iso_env.connect()
    seed_snapshot(conn, a_session("w", state=State.WORKING, open=True), a_session("r", state=State.READY))
    conn.close()
    for args in (("next",), ("next", "--print")):
        proc = iso_env.cli(*args)
        assert proc.returncode == 1 and proc.stdout == ""
        assert proc.stderr == f"lunavect: {attention.NOTHING_WAITS}\n"
