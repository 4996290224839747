"""The daemon's live statuses are read on their own, never behind the catalog's slower stdio refresh.

A permission prompt in a Codex thread the managed daemon runs showed only once the stdio app-server had
answered `thread/list` (and started, and read the extra candidates): seconds to tens of seconds under load.
Here the stdio server is scripted to hang on `thread/list` until the test releases it, and the daemon (a
real WebSocket server on a unix socket) says the thread waits on an approval: the row must say so at once.
"""

from __future__ import annotations

import shutil
import stat
import sys
import tempfile
import time
from pathlib import Path

import pytest
from codex_daemon_support import serve
from codex_source_support import A, Home, meta, started

HANGING_APP_SERVER = """#!{python}
import json, os, sys, time
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "thread/list":
        while not os.path.exists(os.environ["RELEASE"]):
            time.sleep(0.02)
    result = {{"data": []}} if message["method"] == "thread/list" else {{}}
    sys.stdout.write(json.dumps({{"id": message["id"], "result": result}}) + "\\n")
    sys.stdout.flush()
"""


@pytest.fixture
def short_root():
    """A short folder: the daemon's socket path must fit in about 100 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="lvl-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.process
def test_the_daemons_permission_shows_while_the_stdio_refresh_still_runs(short_root: Path):
    home = Home(short_root)
    script = short_root / "codex"
    script.write_text(HANGING_APP_SERVER.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    release = short_root / "release"
    home.source.catalog.env = dict(home.env, LUNAVECT_CODEX=str(script), RELEASE=str(release))
    asking = {"id": A, "status": {"type": "active", "activeFlags": ["waitingOnApproval"]}, "preview": "write it"}
    answers = {
        "initialize": {"result": {"userAgent": "codex/0.169.0"}},
        "thread/loaded/list": {"result": {"data": [A]}},
        "thread/read": {"result": {"thread": asking}},
    }
    daemon = serve(home.codex, lambda request: answers.get(request.get("method")))
    now = time.time()
    home.rollout(A, meta(A, now - 5) + started("turn-1", now - 4))
    try:
        home.tick(now)  # starts the daemon read, and the catalog refresh whose `thread/list` hangs
        home.source.catalog.wait_live()
        rows = home.tick(now + 0.5)
        assert rows[f"codex:{A}"]["state"] == "permission"
        assert "catalog" in rows[f"codex:{A}"]["basis"]
        worker = home.source.catalog._worker
        assert worker is not None and worker.is_alive()  # the stdio refresh is still waiting on its list
    finally:
        release.touch()
        daemon.shutdown()
        home.source.catalog.wait()
        home.close()


def test_a_collector_at_rest_is_woken_when_the_daemons_statuses_change_and_only_then(short_root: Path):
    home = Home(short_root)
    woken: list[bool] = []
    home.source.wake_with(lambda: woken.append(True))
    status = {"type": "active", "activeFlags": []}

    def answer(request: dict) -> dict | None:
        thread = {"id": A, "status": status, "preview": "x"}
        return {
            "initialize": {"result": {}},
            "thread/loaded/list": {"result": {"data": [A]}},
            "thread/read": {"result": {"thread": thread}},
        }.get(request.get("method"))

    daemon = serve(home.codex, answer)
    catalog = home.source.catalog
    try:
        for flags, wakes in ((["waitingOnApproval"], 1), (["waitingOnApproval"], 1), ([], 2)):
            status["activeFlags"] = flags
            catalog.start_live_refresh()
            catalog.wait_live()
            assert len(woken) == wakes, flags
        assert catalog.take_live_result() is not None
    finally:
        daemon.shutdown()
        home.close()


def test_an_unusable_daemon_is_logged_when_it_becomes_so_not_at_every_read(short_root: Path, caplog):
    import socket

    from lunavect.clients.codex.daemon import SOCKET

    home = Home(short_root)
    path = home.codex / SOCKET
    path.parent.mkdir(parents=True)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening: what a crashed daemon leaves behind
    caplog.set_level("INFO", logger="lunavect.clients.codex.catalog")
    try:
        for _ in range(3):
            home.source.catalog.start_live_refresh()
            home.source.catalog.wait_live()
    finally:
        stale.close()
        home.close()
    assert [r.getMessage() for r in caplog.records] == ["Codex's app-server daemon is unavailable: refused"]


def test_while_a_session_waits_for_its_person_the_daemon_is_read_every_second(short_root: Path):
    """An approval given in the TUI is told by the daemon alone (no hook until the approved command ends): while a
    session waits, the daemon is read at every tick, not every other one, so the row leaves "Permission needed"
    within about a second of the approval."""
    home = Home(short_root)
    status = {"type": "active", "activeFlags": ["waitingOnApproval"]}

    def answer(request: dict) -> dict | None:
        thread = {"id": A, "status": status, "preview": "write it"}
        return {
            "initialize": {"result": {"userAgent": "codex/0.169.0"}},
            "thread/loaded/list": {"result": {"data": [A]}},
            "thread/read": {"result": {"thread": thread}},
        }.get(request.get("method"))

    daemon = serve(home.codex, answer)
    now = time.time()
    home.rollout(A, meta(A, now - 5) + started("turn-1", now - 4))
    try:
        home.tick(now)
        home.source.catalog.wait_live()
        assert home.tick(now + 0.2)[f"codex:{A}"]["state"] == "permission"
        status["activeFlags"] = []  # approved
        time.sleep(1.1)  # the source times its reads by the monotonic clock
        home.tick(now + 1.4)  # a read is due again: someone waits
        home.source.catalog.wait_live()
        row = home.tick(now + 1.6)[f"codex:{A}"]
        assert row["state"] == "working", row
    finally:
        daemon.shutdown()
        home.source.catalog.wait()
        home.close()
