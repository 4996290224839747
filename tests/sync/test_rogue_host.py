"""What a rogue host can still try, against a real nats-server (issue 42, items 5 and 6).

Host alpha writes only under its own name (the README's permissions), yet may put arrangement records for ids
that exist nowhere, and rows whose times say they have waited since 1970: neither grows this machine's tables
without bound, nor decides what `lunavect next` opens here.
"""

from __future__ import annotations

import time
from pathlib import Path

import msgspec
import pytest
from nats_servers import HOSTS
from rogue_host_support import beat, collector_value, raw_row, sessions, write
from sync_support import row, started_clients, wait_until
from unit_support import a_session, seed_snapshot

from lunavect import store
from lunavect.core.model import State
from lunavect.core.times import epoch, iso
from lunavect.listing.attention import needs_person, summarize_sessions
from lunavect.sync import remote, remote_row


@pytest.fixture
def clients(tmp_path, nats_server):
    with started_clients(tmp_path, [nats_server.url]) as start:
        yield lambda host, path=None: start(host, HOSTS[host], path=path)


def pin() -> bytes:
    return msgspec.json.encode({"pinned": [True, 0, 0, None]})


def count(path: Path, query: str) -> int:
    conn = store.connect(path)
    try:
        return int(conn.execute(query).fetchone()[0])
    finally:
        conn.close()


# -- item 5: arrangement records have the rows' cap, and make no local row for an id nobody lists --------------


def test_arrangements_of_one_host_are_capped_and_unlisted_ids_make_no_local_row(clients, nats_server, monkeypatch):
    monkeypatch.setattr(remote_row, "MAX_ROWS_PER_HOST", 3)
    _beta, beta_db = clients("beta")
    write(
        nats_server.url,
        ("alpha", HOSTS["alpha"]),
        ("alpha.beat", beat("m-alpha")),
        ("alpha.s.claude.listed", row("listed", "alpha")),
        ("alpha.arr.claude.listed", pin()),
        *((f"alpha.arr.claude.nowhere{n}", pin()) for n in range(6)),
    )
    wait_until(lambda: int(collector_value(beta_db, remote.REFUSED) or 0) == 4, what="the refusals counted")
    assert count(beta_db, "SELECT count(*) FROM sync_arrangement WHERE host = 'alpha'") == 3
    wait_until(
        lambda: count(beta_db, "SELECT count(*) FROM arrangement WHERE id = 'claude:listed' AND pinned = 1") == 1,
        what="the listed session pinned on beta",
    )
    # The ids no machine lists have records (within the cap), but no row of this machine's arrangement.
    assert count(beta_db, "SELECT count(*) FROM arrangement") == 1
    assert count(beta_db, "SELECT count(*) FROM sync_agreed") == 1
    # A session listed later takes its merge then.
    write(nats_server.url, ("alpha", HOSTS["alpha"]), ("alpha.s.claude.nowhere0", row("nowhere0", "alpha")))
    wait_until(
        lambda: count(beta_db, "SELECT count(*) FROM arrangement WHERE id = 'claude:nowhere0' AND pinned = 1"),
        what="the session listed later pinned",
    )


# -- item 6: another host's times never decide what waits longest here ----------------------------------------


def test_a_rogue_hosts_wait_since_1970_neither_outranks_a_local_one_nor_hides_in_the_counters(clients, nats_server):
    _beta, beta_db = clients("beta")
    now = time.time()
    conn = store.connect(beta_db)
    seed_snapshot(conn, a_session("mine", host="beta", state=State.PERMISSION, since=iso(now - 60),
                                  last_active=iso(now - 60)))  # fmt: skip
    conn.close()
    ancient = "1970-01-01T00:00:01Z"
    write(
        nats_server.url,
        ("alpha", HOSTS["alpha"]),
        ("alpha.beat", beat("m-alpha")),
        (
            "alpha.s.claude.rogue",
            raw_row("rogue", "alpha", state="permission", since=ancient, last_active=ancient, updated=ancient),
        ),  # fmt: skip
        *((f"alpha.s.claude.ask{n}", raw_row(f"ask{n}", "alpha", state="input")) for n in range(5)),
    )
    wait_until(lambda: len(sessions(beta_db)) == 7, what="alpha's rows on beta")
    listed = {s.id: s for s in sessions(beta_db)}
    rogue = listed["claude:rogue"]
    assert epoch(rogue.since) >= now - 5 and epoch(rogue.last_active) >= now - 5  # no earlier than first heard
    assert [s.id for s in needs_person(list(listed.values()))][:2] == ["claude:mine", "claude:rogue"]
    summary = summarize_sessions(list(listed.values()))
    assert summary.next.id == "claude:mine" and summary.attention[0].id == "claude:mine"
    assert (summary.awaiting_input, summary.awaiting_elsewhere) == (7, 6)
