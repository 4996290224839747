"""The web panel's unit tests share one panel: Starlette's test client over a real store holding three sessions,
with a control and a view-only token."""

from __future__ import annotations

import asyncio

import pytest


@pytest.fixture
def panel(iso_env):
    """The client, the test's connection, the two tokens and the three sessions' ids. Its imports wait for a
    test that asks (each has skipped already without the web extra)."""
    from starlette.testclient import TestClient
    from web_app_support import BASE, seed

    from lunavect import store
    from lunavect.frontends.web import tokens
    from lunavect.frontends.web.app import Settings, create_app

    conn = iso_env.connect()
    control, _ = tokens.create(conn, "control")
    view, _ = tokens.create(conn, "view")
    ids = [
        seed(conn, "aaaa1111", "working", "Fix the build", ago=30),
        seed(conn, "bbbb2222", "ready", ago=90),
        seed(conn, "cccc3333", "permission", ago=120),
    ]

    async def no_changes():
        await asyncio.Event().wait()
        yield None

    app = create_app(Settings(connect=store.connect, hostname="devbox", changes=no_changes))
    with TestClient(app, base_url=BASE) as client:
        yield client, conn, control, view, ids
