"""The sync client against a real nats-server: publish on change, watch others, deletes, heartbeats,
resume after a server outage, and the server's refusals (wrong credentials, another host's keys)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import nats
import nats.errors
import pytest
from sync_support import create_bucket, host_config, row, started_clients, states, wait_until

from lunavect import store
from lunavect.core.model import State
from lunavect.listing import hosts
from lunavect.listing.sessions import counts, own_ids, read_sessions
from lunavect.sync import admin
from lunavect.sync.client import SyncClient
from lunavect.sync.state_keys import HEARTBEAT_BASIS


def remote_rows(path: Path) -> list[tuple[str, str]]:
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute("SELECT host, id FROM remote_session").fetchall())
    finally:
        conn.close()


@pytest.fixture
def pair(tmp_path, nats_server):
    with started_clients(tmp_path, [nats_server.url]) as start:
        yield start


def test_rows_travel_on_change_and_leave_when_they_end(pair):
    alpha, _alpha_db = pair("alpha", "pw-alpha")
    _beta, beta_db = pair("beta", "pw-beta")
    alpha.offer({"claude:s1": row("s1", "alpha"), "claude:s2": row("s2", "alpha", State.READY)})
    wait_until(lambda: len(states(beta_db)) == 2, what="alpha's two rows on beta")
    assert states(beta_db) == {"claude:s1": ("alpha", "working"), "claude:s2": ("alpha", "ready")}
    assert states(beta_db, host="alpha") == states(beta_db) and states(beta_db, host="beta") == {}

    alpha.offer({"claude:s1": row("s1", "alpha", State.PERMISSION)})
    wait_until(lambda: states(beta_db) == {"claude:s1": ("alpha", "permission")}, what="s1 changed, s2 gone")
    conn = store.connect(beta_db)
    assert counts(conn) == {"working": 0, "awaiting_input": 1}
    conn.close()


def test_a_silent_host_turns_offline_with_the_time_it_was_last_heard(pair):
    alpha, _ = pair("alpha", "pw-alpha", beat_s=0.5)
    _beta, beta_db = pair("beta", "pw-beta")
    alpha.offer({"claude:s1": row("s1", "alpha")})
    wait_until(lambda: states(beta_db) == {"claude:s1": ("alpha", "working")}, what="alpha working on beta")
    alpha.stop()
    wait_until(lambda: states(beta_db) == {"claude:s1": ("alpha", "offline")}, what="alpha offline on beta")
    conn = store.connect(beta_db)
    (session,) = read_sessions(conn)
    assert session.heard is not None and session.basis == [HEARTBEAT_BASIS]
    assert counts(conn) == {"working": 0, "awaiting_input": 0}  # nobody knows what it does now
    conn.close()


def test_a_returning_host_replaces_its_rows_without_ghosts(tmp_path, pair, nats_server):
    alpha, alpha_db = pair("alpha", "pw-alpha")
    _beta, beta_db = pair("beta", "pw-beta")
    alpha.offer({"claude:s1": row("s1", "alpha"), "claude:s2": row("s2", "alpha")})
    wait_until(lambda: len(states(beta_db)) == 2, what="two rows")
    alpha.stop()
    # Alpha comes back (its store kept) listing only s3: s1 and s2 leave beta's list.
    again = SyncClient(
        host_config(tmp_path, "alpha", "pw-alpha", [nats_server.url]), "m-alpha", alpha_db, own_ids=own_ids
    )
    again.start()
    try:
        again.offer({"claude:s3": row("s3", "alpha")})
        wait_until(lambda: states(beta_db) == {"claude:s3": ("alpha", "working")}, what="only s3 on beta")
    finally:
        again.stop()


def test_the_watch_resumes_after_a_server_outage_with_nothing_lost_or_doubled(pair, nats_server):
    alpha, _ = pair("alpha", "pw-alpha")
    beta, beta_db = pair("beta", "pw-beta")
    alpha.offer({f"claude:s{i}": row(f"s{i}", "alpha") for i in range(5)})
    wait_until(lambda: len(states(beta_db)) == 5, what="five rows")
    nats_server.stop()
    conn = store.connect(beta_db)
    wait_until(lambda: hosts.not_current_since(conn) is not None, what="beta notices the server is gone")
    # While the server is down, alpha's sessions change: two end, one waits, one starts.
    alpha.offer(
        {
            "claude:s0": row("s0", "alpha", State.PERMISSION),
            "claude:s1": row("s1", "alpha"),
            "claude:s2": row("s2", "alpha"),
            "claude:s9": row("s9", "alpha", State.READY),
        }
    )
    nats_server.start()
    want = {
        "claude:s0": ("alpha", "permission"),
        "claude:s1": ("alpha", "working"),
        "claude:s2": ("alpha", "working"),
        "claude:s9": ("alpha", "ready"),
    }
    wait_until(lambda: states(beta_db) == want, timeout=30, what="beta caught up")
    wait_until(lambda: hosts.not_current_since(conn) is None, what="beta current again")
    assert remote_rows(beta_db) == [("alpha", k) for k in sorted(want)]  # one row each: nothing doubled
    conn.close()


def test_wrong_credentials_are_refused_with_one_clear_line(tmp_path, nats_server):
    create_bucket([nats_server.url])
    config = host_config(tmp_path, "alpha", "not-the-password", [nats_server.url])
    failure = admin.run(config, "check", "m-alpha")
    assert failure is not None and "refused these credentials" in failure and "\n" not in failure


def test_a_host_cannot_overwrite_another_hosts_key(tmp_path, pair, nats_server):
    beta, beta_db = pair("beta", "pw-beta")
    beta.offer({"claude:b1": row("b1", "beta", State.READY)})
    _gamma, gamma_db = pair("gamma", "pw-gamma")
    wait_until(lambda: states(gamma_db) == {"claude:b1": ("beta", "ready")}, what="b1 on gamma")

    async def forge() -> list[str]:
        errors: list[str] = []

        async def on_error(exc: Exception) -> None:
            errors.append(str(exc))

        nc = await nats.connect(servers=[nats_server.url], user="alpha", password="pw-alpha", error_cb=on_error)
        try:
            kv = await nc.jetstream(timeout=2.0).key_value("lunavect")
            with pytest.raises((nats.errors.Error, TimeoutError)):
                await kv.put("beta.s.claude.b1", row("b1", "beta", State.WORKING, title="forged"))
            with pytest.raises((nats.errors.Error, TimeoutError)):
                await kv.delete("beta.beat")
            await kv.put("alpha.s.claude.a1", row("a1", "alpha"))  # its own keys: allowed
        finally:
            await nc.close()
        return errors

    errors = asyncio.run(forge())
    assert any("permissions violation" in e.lower() for e in errors), errors
    wait_until(lambda: "claude:a1" in states(gamma_db), what="alpha's own row on gamma")
    assert states(gamma_db)["claude:b1"] == ("beta", "ready")
    conn = store.connect(gamma_db)
    (b1,) = [s for s in read_sessions(conn) if s.id == "claude:b1"]
    assert b1.title == "a task"
    conn.close()


def test_keys_another_machine_writes_with_no_valid_id_are_dropped_where_they_enter(pair, nats_server):
    """A host may write any key under its own name: one whose session id is no id (a path, an escape
    sequence, a newline) is counted and dropped by every other host, never stored or shown."""
    import base64

    gamma, gamma_db = pair("gamma", "pw-gamma")
    hostile = ["../../../../x", "id\x1b]0;pwned\x07", "s1\nforged"]
    tokens = ["=" + base64.urlsafe_b64encode(h.encode()).decode().rstrip("=") for h in hostile]

    async def write() -> None:
        nc = await nats.connect(servers=[nats_server.url], user="alpha", password="pw-alpha")
        try:
            kv = await nc.jetstream(timeout=2.0).key_value("lunavect")
            for token in tokens:
                await kv.put(f"alpha.s.claude.{token}", row("x", "alpha"))
            await kv.put("alpha.s.claude.a1", row("a1", "alpha"))
        finally:
            await nc.close()

    asyncio.run(write())
    wait_until(lambda: "claude:a1" in states(gamma_db), what="alpha's valid row on gamma")
    assert remote_rows(gamma_db) == [("alpha", "claude:a1")]
    assert gamma.drops.count == len(hostile)


def test_two_machines_cannot_share_a_host_name(tmp_path, pair, nats_server):
    alpha, _ = pair("alpha", "pw-alpha")
    alpha.offer({})
    config = host_config(tmp_path, "alpha", "pw-alpha", [nats_server.url])
    assert admin.run(config, "check", "m-alpha") is None  # the machine itself may check (and beat) again
    refused = admin.run(config, "check", "another-machine") or ""
    assert "already used by another machine" in refused and "--host-name" in refused


class _EndsAtOnce:
    """A watch that says it delivered everything before any value arrived, as nats-py's can on a loaded
    machine (nats-py #842): its first update is the end marker."""

    def __init__(self, watcher) -> None:
        self._watcher = watcher

    async def updates(self, timeout: float = 5.0):
        return None

    async def stop(self) -> None:
        await self._watcher.stop()


@pytest.fixture
def watches_end_at_once(monkeypatch):
    from nats.js.kv import KeyValue

    real = KeyValue.watch

    async def watch(self, keys, **kwargs):
        return _EndsAtOnce(await real(self, keys, **kwargs))

    monkeypatch.setattr(KeyValue, "watch", watch)


def test_a_watch_that_ends_early_still_finds_the_name_taken(tmp_path, nats_server, watches_end_at_once):
    """`sync set` on a second machine must see the first one's heartbeat even when the watch of the host's keys
    ends before delivering it: the stream's list of the host's subjects is read too."""
    create_bucket([nats_server.url])
    config = host_config(tmp_path, "alpha", "pw-alpha", [nats_server.url])
    assert admin.run(config, "check", "m-alpha") is None
    refused = admin.run(config, "check", "another-machine") or ""
    assert "already used by another machine" in refused and "--host-name" in refused


def test_a_hosts_own_keys_are_all_listed_though_the_watch_ends_early(tmp_path, nats_server, watches_end_at_once):
    from lunavect.sync.bucket import open_bucket, own_entries

    create_bucket([nats_server.url])

    async def listed() -> dict[str, bytes]:
        nc = await nats.connect(servers=[nats_server.url], user="alpha", password="pw-alpha")
        try:
            js = nc.jetstream(timeout=2.0)
            kv = await open_bucket(js, create=False)
            await kv.put("alpha.s.claude.a1", row("a1", "alpha"))
            await kv.put("alpha.s.claude.a2", row("a2", "alpha"))
            await kv.delete("alpha.s.claude.a2")  # deleted: not listed
            await kv.put("alpha.s.claude.a3", row("a3", "alpha"))
            return await own_entries(js, kv, "alpha")
        finally:
            await nc.close()

    found = asyncio.run(listed())
    assert sorted(found) == ["alpha.s.claude.a1", "alpha.s.claude.a3"]
    assert found["alpha.s.claude.a1"] == row("a1", "alpha")


def test_the_readme_shows_the_permissions_the_tests_enforce():
    from docs_support import page
    from nats_servers import host_permissions

    section = page("machines.md")
    for subject in host_permissions("laptop").split('"')[1::2]:
        assert f'"{subject}"' in section, subject


def test_the_persons_arrangement_follows_them_to_every_machine(pair):
    from lunavect.listing import arrangement

    alpha, alpha_db = pair("alpha", "pw-alpha")
    beta, beta_db = pair("beta", "pw-beta")
    alpha.offer({"claude:s1": row("s1", "alpha"), "claude:s2": row("s2", "alpha")})
    wait_until(lambda: len(states(beta_db)) == 2, what="two rows on beta")

    def flags(path: Path) -> dict[str, tuple[bool, bool]]:
        """Pinned and hidden as the person set them (alpha's own rows are not in this test's snapshot)."""
        conn = store.connect(path)
        try:
            found = {
                key: (bool(p), bool(h)) for key, p, h in conn.execute("SELECT id, pinned, hidden FROM arrangement")
            }
            return {key: found.get(key, (False, False)) for key in ("claude:s1", "claude:s2")}
        finally:
            conn.close()

    a = store.connect(alpha_db)
    arrangement.pin(a, "claude:s1")
    wait_until(lambda: flags(beta_db)["claude:s1"] == (True, False), what="the pin on beta")
    b = store.connect(beta_db)
    arrangement.hide(b, "claude:s2")
    wait_until(lambda: flags(alpha_db)["claude:s2"] == (False, True), what="the hide on alpha")
    # Alpha restores it (as `arrangement.unhide` does; alpha's own rows are not in this test's snapshot).
    # Alpha had seen beta's hide, so its unhide undoes it everywhere.
    with store.transaction(a):
        a.execute("UPDATE arrangement SET hidden = 0, hidden_at = NULL, shown_at = 1.0 WHERE id = 'claude:s2'")
    wait_until(lambda: flags(beta_db)["claude:s2"] == (False, False), what="the unhide on beta")
    assert flags(alpha_db) == flags(beta_db) == {"claude:s1": (True, False), "claude:s2": (False, False)}
    conn = store.connect(beta_db)
    shown = {s.id: (s.pinned, s.hidden) for s in read_sessions(conn, include_hidden=True)}
    assert shown == {"claude:s1": (True, False), "claude:s2": (False, False)}  # what beta's front ends show
    conn.close()
    a.close()
    b.close()
