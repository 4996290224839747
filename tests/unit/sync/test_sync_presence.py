"""Notifications for other machines' sessions: which machine sends them (where a front end was used last;
else the smallest host name), and the transitions it is fed (only changes, never what was already there)."""

from __future__ import annotations

import time

import msgspec
from unit_support import a_session

from lunavect import store
from lunavect.collector.notify_feed import RemoteTransitions
from lunavect.core.model import State
from lunavect.listing import hosts
from lunavect.listing.sessions import own_ids
from lunavect.sync import config, keys, presence, remote


def row(sid: str, state: State) -> bytes:
    return msgspec.json.encode(a_session(sid, title="t", project="p", cwd="/p", host="x", state=state))


def beat(host: str, revision: int, person_at: float | None = None) -> remote.Entry:
    data = msgspec.json.encode(remote.Beat(at=time.time(), every=5.0, machine=f"m-{host}", person_at=person_at))
    return remote.Entry(keys.beat_key(host), revision, data, time.time())


def test_the_machine_where_a_front_end_was_used_last_notifies_for_the_others(iso_env):
    conn = store.connect()
    with store.transaction(conn):
        config.save(conn, config.SyncConfig(servers=("nats://127.0.0.1:1",), host="alpha"))
    remote.apply(conn, "alpha", [beat("beta", 1), beat("gamma", 2)], own_ids=own_ids)
    assert hosts.notifying_host(conn) == "alpha"  # nobody used a front end: the smallest name
    remote.apply(conn, "alpha", [beat("gamma", 3, person_at=time.time())], own_ids=own_ids)
    assert hosts.notifying_host(conn) == "gamma" and not hosts.notifies_for_other_hosts(conn)
    presence.note_person(conn, now=time.time() + 1)
    assert hosts.notifies_for_other_hosts(conn)


def test_other_hosts_changes_become_transitions_once(iso_env):
    conn = store.connect()
    feed = RemoteTransitions()
    remote.apply(
        conn,
        "alpha",
        [beat("beta", 1), remote.Entry("beta.s.claude.s1", 2, row("s1", State.WORKING), 0.0)],
        own_ids=own_ids,
    )
    assert feed.collect(conn, "alpha") == []  # what was there at start is no news
    remote.apply(
        conn,
        "alpha",
        [beat("beta", 3), remote.Entry("beta.s.claude.s1", 4, row("s1", State.PERMISSION), 0.0)],
        own_ids=own_ids,
    )
    (moved,) = feed.collect(conn, "alpha")
    assert moved.old == State.WORKING and moved.session.state == State.PERMISSION and moved.session.host == "beta"
    assert feed.collect(conn, "alpha") == []  # nothing new
