"""The tray's menu as pystray builds it (its dummy backend: no display needed; tests/unit/bars/test_tray.py runs
the real icon under Xvfb): its first item is the session that needs its person most, what `lunavect next`
opens, and choosing it opens that session."""

from __future__ import annotations

import importlib.util
import time

import pytest
from unit_support import a_session, seed_snapshot

from lunavect.core.model import State
from lunavect.core.times import iso

# pystray chooses its backend when it is imported: only in the test, once PYSTRAY_BACKEND says "dummy".
pytestmark = pytest.mark.skipif(importlib.util.find_spec("pystray") is None, reason="the tray extra is not installed")


def test_the_menus_first_item_is_the_session_that_needs_its_person_most(iso_env, monkeypatch):
    monkeypatch.setenv("PYSTRAY_BACKEND", "dummy")
    from lunavect.frontends.tray.app import Tray
    from lunavect.listing.attention import summarize

    now = time.time()
    conn = iso_env.connect()
    seed_snapshot(
        conn,
        a_session("r1", state=State.READY, title="A reply", open=True, last_active=iso(now - 900)),
        a_session("p1", state=State.PERMISSION, title="Deploy the site", last_active=iso(now - 5)),
    )
    opened: list[str] = []
    tray = Tray(conn, lambda session: opened.append(session.id))
    items = tray._items()
    assert items[0].text == "Next: Permission needed · Deploy the site (Claude)" and items[0].default
    items[0](tray.icon)
    assert opened == ["claude:p1"]

    seed_snapshot(conn, a_session("p1", state=State.IDLE, title="Deploy the site"))
    seed_snapshot(conn, a_session("r1", state=State.READY, title="A reply", open=False))
    tray.summary = summarize(conn)  # what `refresh` does before asking the backend to redraw (the dummy cannot)
    first = tray._items()[0]
    assert first.text == "Next: nothing needs you" and not first.enabled
    conn.close()
