"""The panel with several machines (sync): another machine's row says its host, and while the sync server
is unreachable the header says since when the other machines are not current."""

from __future__ import annotations

import time

import msgspec
import tui_seed as seed
from tui_support import lines, pilot_test

from lunavect import store
from lunavect.listing.sessions import own_ids
from lunavect.sync import config, keys, remote

SIZE = (120, 30)


@pilot_test
async def test_another_machines_row_and_the_not_current_note(conn, make_app):
    seed.write(conn, [seed.session("l", "ready", title="Local one", updated=30)])
    with store.transaction(conn):
        config.save(conn, config.SyncConfig(servers=("nats://127.0.0.1:1",), host="here"))
    beat = msgspec.json.encode(remote.Beat(at=time.time(), every=5.0, machine="m-away"))
    away = seed.session("a", "ready", title="Far one", updated=20)
    away_row = msgspec.json.encode(away)
    remote.apply(
        conn,
        "here",
        [
            remote.Entry(keys.beat_key("away"), 1, beat, time.time()),
            remote.Entry(keys.session_key("away", away.id), 2, away_row, time.time()),
        ],
        own_ids=own_ids,
    )
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        assert any("away: " in line and "Far one" in line for line in lines(app))
        assert "not current" not in str(app.query_one("#view-name").render())
        with store.transaction(conn):
            store.set_collector_value(conn, remote.DISCONNECTED_SINCE, repr(time.time() - 60))
        app.reload()
        await pilot.pause()
        assert "other hosts not current since" in str(app.query_one("#view-name").render())
