"""The arrangement in the store: pins, hiding, order, settings and the hidden list, as every front end reads it."""

from __future__ import annotations

import datetime as _dt

import pytest
from unit_support import a_session, seed_snapshot

from lunavect import store
from lunavect.core.hiding import DAY_S
from lunavect.listing import arrangement
from lunavect.listing.sessions import counts, read_hidden, read_rows, read_sessions

NOW = 2_000_000_000.0


def iso(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def write(conn, sid: str, state: str = "ready", age: float = 60.0, provider: str = "claude", listed: bool = True):
    session = a_session(
        sid,
        provider=provider,
        state=state,
        title=sid,
        project="p",
        cwd="/p",
        resume=f"claude --resume {sid}",
        updated=iso(NOW - age),
    )
    seed_snapshot(conn, session, listed=listed, updated=NOW)


def order(conn) -> list[str]:
    return [s.id for s in read_sessions(conn, now=NOW)]


@pytest.fixture
def conn(iso_env):
    c = iso_env.connect()
    for sid, age in (("a", 10), ("b", 20), ("c", 30), ("d", 40)):
        write(c, sid, age=age)
    return c


def test_the_migration_adds_the_arrangement_columns(conn):
    columns = {row[1] for row in conn.execute("PRAGMA table_info(arrangement)")}
    assert {"pinned", "hidden", "hidden_at", "position", "shown_at", "listed_at"} <= columns
    assert conn.execute("SELECT COUNT(*) FROM catalog_listing").fetchone()[0] == 0


def test_newest_first_then_pins_first_in_pin_order(conn):
    assert order(conn) == ["claude:a", "claude:b", "claude:c", "claude:d"]
    assert arrangement.pin(conn, "claude:c")
    assert not arrangement.pin(conn, "claude:c")  # already pinned
    assert arrangement.pin(conn, "claude:a")
    assert order(conn) == ["claude:c", "claude:a", "claude:b", "claude:d"]
    assert [s.pinned for s in read_sessions(conn, now=NOW)] == [True, True, False, False]
    assert arrangement.unpin(conn, "claude:c")
    assert not arrangement.unpin(conn, "claude:c")
    assert order(conn) == ["claude:a", "claude:b", "claude:c", "claude:d"]


def test_unpinned_rows_follow_the_activity_their_row_shows_not_newer_evidence_of_none(iso_env):
    """Claude Code's idle notice a minute after a reply is evidence (`updated`) but no activity (`last_active`):
    the row that finished first stays below the one that finished later, as their LAST column shows them."""
    conn = iso_env.connect()
    earlier = a_session("early", state="ready", updated=iso(NOW - 5), last_active=iso(NOW - 65))
    later = a_session("late", state="ready", updated=iso(NOW - 30), last_active=iso(NOW - 30))
    older_row = a_session("old", state="ready", updated=iso(NOW - 50))  # written before last_active was
    seed_snapshot(conn, earlier, later, older_row, updated=NOW)
    assert order(conn) == ["claude:late", "claude:old", "claude:early"]


def test_hide_and_unhide(conn):
    assert arrangement.hide(conn, "claude:b", NOW)
    assert not arrangement.hide(conn, "claude:b", NOW)
    assert order(conn) == ["claude:a", "claude:c", "claude:d"]
    assert [s.id for s in read_hidden(conn, NOW)] == ["claude:b"]
    assert [s.id for s in read_sessions(conn, include_hidden=True, now=NOW)][1] == "claude:b"
    assert conn.execute("SELECT hidden_at FROM arrangement WHERE id = 'claude:b'").fetchone()[0] == NOW
    assert arrangement.unhide(conn, "claude:b", NOW + 5)
    assert not arrangement.unhide(conn, "claude:b", NOW + 5)
    assert read_hidden(conn, NOW) == []
    assert conn.execute("SELECT shown_at FROM arrangement WHERE id = 'claude:b'").fetchone()[0] == NOW + 5


def test_hidden_work_still_counts(conn):
    write(conn, "w", state="working")
    write(conn, "q", state="permission")
    arrangement.hide(conn, "claude:w", NOW)
    arrangement.hide(conn, "claude:q", NOW)
    assert counts(conn, now=NOW) == {"working": 1, "awaiting_input": 1}
    assert "claude:w" not in order(conn)


def test_moves_within_the_unpinned_rows(conn):
    assert arrangement.move_before(conn, "claude:d", "claude:a", NOW)
    assert order(conn) == ["claude:d", "claude:a", "claude:b", "claude:c"]
    assert arrangement.move_after(conn, "claude:d", "claude:b", NOW)
    assert order(conn) == ["claude:a", "claude:b", "claude:d", "claude:c"]
    assert not arrangement.move_after(conn, "claude:d", "claude:b", NOW)  # already there
    assert not arrangement.move_before(conn, "claude:d", "claude:c", NOW)
    assert arrangement.move_after(conn, "claude:a", "claude:c", NOW)
    assert order(conn) == ["claude:b", "claude:d", "claude:c", "claude:a"]


def test_moves_within_the_pinned_rows_and_never_across(conn):
    for key in ("claude:a", "claude:b", "claude:c"):
        arrangement.pin(conn, key)
    assert arrangement.move_before(conn, "claude:c", "claude:a", NOW)
    assert order(conn) == ["claude:c", "claude:a", "claude:b", "claude:d"]
    with pytest.raises(arrangement.ArrangeError, match="pinned"):
        arrangement.move_before(conn, "claude:d", "claude:c", NOW)
    with pytest.raises(arrangement.ArrangeError, match="no session"):
        arrangement.move_before(conn, "claude:nope", "claude:c", NOW)


def test_rows_with_the_same_time_are_renumbered_to_make_room(conn):
    for sid in ("x", "y", "z"):
        write(conn, sid, age=5.0)  # three rows at the very same instant
    rows = [s for s in order(conn) if s.split(":")[1] in "xyz"]
    last, first = rows[-1], rows[0]
    assert arrangement.move_before(conn, last, first, NOW)
    rows = [s for s in order(conn) if s.split(":")[1] in "xyz"]
    assert rows[0] == last
    # Many moves into the same, ever smaller gap still work (floats run out of room: the group is renumbered).
    for _ in range(80):
        first, second, third = rows
        assert arrangement.move_before(conn, third, second, NOW)
        rows = [s for s in order(conn) if s.split(":")[1] in "xyz"]
        assert rows == [first, third, second]


def test_resolve_id(conn):
    write(conn, "abcdef12-0000", age=1)
    write(conn, "abcdef99-0000", age=1, provider="codex")
    assert arrangement.resolve_id(conn, "claude:a") == "claude:a"
    assert arrangement.resolve_id(conn, "abcdef12") == "claude:abcdef12-0000"
    assert arrangement.resolve_id(conn, "codex:abc") == "codex:abcdef99-0000"
    with pytest.raises(arrangement.ArrangeError, match="matches 2 sessions"):
        arrangement.resolve_id(conn, "abcdef")
    with pytest.raises(arrangement.ArrangeError, match="no session"):
        arrangement.resolve_id(conn, "zzz")
    write(conn, "unlisted", listed=False)
    with pytest.raises(arrangement.ArrangeError):
        arrangement.resolve_id(conn, "unlisted")  # a lifecycle-only launch is not a session to arrange


def test_resolve_id_names_hidden_rows_too(conn):
    """A person who hid a session can still name it: to unhide, open or resume it."""
    arrangement.hide(conn, "claude:b")
    assert [s.id for s in read_hidden(conn, now=NOW)] == ["claude:b"]
    assert arrangement.resolve_id(conn, "b") == "claude:b"
    assert arrangement.resolve_id(conn, "claude:b") == "claude:b"


def test_resolve_id_ambiguity_names_the_candidates(conn):
    write(conn, "same-0001", age=1)
    write(conn, "same-0001", age=1, provider="codex")  # one bare id, two clients: never a guess
    with pytest.raises(arrangement.ArrangeError) as info:
        arrangement.resolve_id(conn, "same-0001")
    assert "matches 2 sessions (claude:same-0001, codex:same-0001)" in str(info.value)
    assert arrangement.resolve_id(conn, "codex:same-0001") == "codex:same-0001"
    for sid in ("same-0002", "same-0003", "same-0004", "same-0005"):
        write(conn, sid, age=1)
    with pytest.raises(arrangement.ArrangeError, match=r"matches 6 sessions \(claude:same-0001, .*, \.\.\.\)"):
        arrangement.resolve_id(conn, "same")


def test_automatic_hiding_applies_when_read_and_restoring_keeps_a_row(conn):
    write(conn, "old", state="ready", age=3 * DAY_S)
    write(conn, "busy", state="working", age=3 * DAY_S)
    assert "claude:old" in order(conn)  # off by default
    arrangement.set_auto_hide_after(conn, DAY_S)
    assert "claude:old" not in order(conn) and "claude:busy" in order(conn)
    assert [s.id for s in read_hidden(conn, NOW)] == ["claude:old"]
    assert all(s.hidden for s in read_hidden(conn, NOW))
    assert arrangement.unhide(conn, "claude:old", NOW)
    assert "claude:old" in order(conn)
    assert "claude:old" not in [s.id for s in read_sessions(conn, now=NOW + DAY_S)]  # inactive a day more
    arrangement.set_auto_hide_after(conn, None)
    assert "claude:old" in [s.id for s in read_sessions(conn, now=NOW + DAY_S)]
    with pytest.raises(arrangement.ArrangeError):
        arrangement.set_auto_hide_after(conn, 0)


def test_a_hidden_session_leaves_the_hidden_list_after_35_days_unlisted_by_a_complete_catalog(conn):
    write(conn, "gone", age=60 * DAY_S)
    write(conn, "kept", age=60 * DAY_S)
    for key in ("claude:gone", "claude:kept"):
        arrangement.hide(conn, key, NOW - 50 * DAY_S)
    # No complete catalog: both stay hidden however old.
    assert {s.id for s in read_hidden(conn, NOW)} == {"claude:gone", "claude:kept"}
    with store.transaction(conn):
        arrangement.record_complete_listing(conn, "claude", ["claude:kept"], NOW - 1)
    assert [s.id for s in read_hidden(conn, NOW)] == ["claude:kept"]
    # It is not shown anywhere else either, and its arrangement is kept should a source list it again.
    assert "claude:gone" not in [s.id for s in read_sessions(conn, include_hidden=True, now=NOW)]
    rows = {r.session.id: r for r in read_rows(conn, NOW)}
    assert rows["claude:gone"].retired and rows["claude:gone"].hidden_by_person
    with store.transaction(conn):
        arrangement.record_complete_listing(conn, "claude", ["claude:gone", "claude:kept"], NOW)
    assert {s.id for s in read_hidden(conn, NOW)} == {"claude:gone", "claude:kept"}
    # Another client's catalog proves nothing about Claude's sessions.
    write(conn, "codexy", age=60 * DAY_S, provider="codex")
    arrangement.hide(conn, "codex:codexy", NOW - 50 * DAY_S)
    assert "codex:codexy" in [s.id for s in read_hidden(conn, NOW)]


def test_hide_history_undoes_the_latest_hide_first(conn):
    history = arrangement.HideHistory()
    assert history.undo(conn, NOW) is None
    history.hide(conn, "claude:a", NOW)
    history.hide(conn, "claude:b", NOW)
    assert len(history) == 2
    assert history.undo(conn, NOW) == "claude:b"
    arrangement.unhide(conn, "claude:a", NOW)  # restored elsewhere meanwhile
    assert history.undo(conn, NOW) is None
    assert len(history) == 0


def test_settings(conn):
    assert store.get_setting(conn, "k") is None
    assert store.get_setting(conn, "k", "d") == "d"
    store.set_setting(conn, "k", "v")
    assert store.get_setting(conn, "k") == "v"
    store.set_setting(conn, "k", None)
    assert store.get_setting(conn, "k") is None


def test_a_dismissal_holds_until_the_session_shows_something_new(conn):
    """A ready reply or an error can be dismissed without hiding the row (issue 48, items 4 and 12): it stays
    listed and needs its person no more, until the session's next reply or error."""
    from lunavect.listing.attention import needs_person

    def with_state(state: str, age: float, **fields) -> None:
        session = a_session("a", state=state, title="a", project="p", updated=iso(NOW - age), open=True, **fields)
        seed_snapshot(conn, session, updated=NOW)

    def row_a():
        return next(s for s in read_sessions(conn, now=NOW, include_hidden=True) if s.id == "claude:a")

    with_state("error", 10, error="service", last_active=iso(NOW - 10))
    assert [s.id for s in needs_person([row_a()])] == ["claude:a"]
    assert arrangement.dismiss(conn, "claude:a", NOW)
    assert not arrangement.dismiss(conn, "claude:a", NOW)  # already
    assert row_a().dismissed and not row_a().hidden and "claude:a" in order(conn)
    assert needs_person([row_a()]) == []
    with_state("error", 5, error="service", last_active=iso(NOW - 10))  # the same error, read again
    assert row_a().dismissed
    with_state("working", 3, last_active=iso(NOW - 3))
    assert not row_a().dismissed  # it moved on: the dismissal is of the past
    with_state("error", 2, error="limit", last_active=iso(NOW - 2))
    assert not row_a().dismissed and [s.id for s in needs_person([row_a()])] == ["claude:a"]  # news again
    with_state("ready", 1, last_active=iso(NOW - 1))  # a ready reply can be marked seen too
    assert arrangement.dismiss(conn, "claude:a", NOW) and row_a().dismissed
    assert arrangement.undismiss(conn, "claude:a")
    assert not row_a().dismissed and not arrangement.undismiss(conn, "claude:a")
    with_state("permission", 0, waiting_for="Bash")
    with pytest.raises(arrangement.ArrangeError, match="only a ready reply or an error"):
        arrangement.dismiss(conn, "claude:a", NOW)
    with pytest.raises(arrangement.UnknownSession):
        arrangement.dismiss(conn, "claude:nobody", NOW)
