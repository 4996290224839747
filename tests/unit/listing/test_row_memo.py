"""The panel's memo of rows (`sessions.RowMemo`): a read with it says exactly what a read without it says, decodes
only the rows that moved, and gives back the same object for a row that did not."""

from __future__ import annotations

import datetime as _dt

from unit_support import a_session, seed_snapshot

from lunavect import store
from lunavect.core.hiding import DAY_S
from lunavect.core.tokens import Tokens
from lunavect.listing import arrangement
from lunavect.listing.sessions import AUTO_HIDE_SETTING, RowMemo, read_rows, read_sessions
from lunavect.usage import ledger

NOW = 2_000_000_000.0


def iso(ts: float) -> str:
    return _dt.datetime.fromtimestamp(ts, _dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def row(sid: str, state: str = "ready", age: float = 60.0, **fields: object):
    return a_session(sid, title=f"title {sid}", state=state, updated=iso(NOW - age), **fields)


def same_as_without_memo(conn, memo: RowMemo, now: float = NOW) -> list:
    """Read with the memo, and check it against a read without one, field by field and in order."""
    with_memo = read_rows(conn, now, memo)
    plain = read_rows(conn, now)
    assert [r.session for r in with_memo] == [r.session for r in plain]
    assert [(r.retired, r.hidden_automatically) for r in with_memo] == [
        (r.retired, r.hidden_automatically) for r in plain
    ]
    return [r.session for r in with_memo]


def test_a_change_decodes_only_its_row_and_keeps_every_other_object(iso_env):
    conn = store.connect()
    seed_snapshot(conn, *(row(f"s{n}", age=60.0 + n) for n in range(50)))
    memo = RowMemo()
    first = same_as_without_memo(conn, memo)
    assert memo.decoded == 50
    seed_snapshot(conn, row("s7", "working", age=1.0, activity="Bash"))
    second = same_as_without_memo(conn, memo)
    assert memo.decoded == 1
    # The changed row moves to the top (newest activity); the others are the very same objects, in order.
    assert second[0].id == "claude:s7" and second[0].state == "working"
    assert [s for s in second[1:]] == [s for s in first if s.id != "claude:s7"]
    assert all(a is b for a, b in zip(second[1:], [s for s in first if s.id != "claude:s7"], strict=True))
    # The previous list still says what it said: nothing handed out is changed afterwards.
    assert next(s for s in first if s.id == "claude:s7").state == "ready"
    # Nothing changed: nothing decoded, the same list of the same objects.
    third = same_as_without_memo(conn, memo)
    assert memo.decoded == 0 and all(a is b for a, b in zip(second, third, strict=True))


def test_pins_hiding_order_usage_and_removal_through_the_memo(iso_env):
    conn = store.connect()
    seed_snapshot(conn, row("a", age=10), row("b", age=20), row("c", age=30))
    memo = RowMemo()
    before = same_as_without_memo(conn, memo)
    arrangement.pin(conn, "claude:c")
    after = same_as_without_memo(conn, memo)
    assert [s.id for s in after] == ["claude:c", "claude:a", "claude:b"] and after[0].pinned
    assert not next(s for s in before if s.id == "claude:c").pinned
    arrangement.move_after(conn, "claude:a", "claude:b", NOW)
    assert [s.id for s in same_as_without_memo(conn, memo)] == ["claude:c", "claude:b", "claude:a"]
    arrangement.hide(conn, "claude:b", NOW)
    hidden = same_as_without_memo(conn, memo)
    assert [s.id for s in hidden if s.hidden] == ["claude:b"]
    # Usage moves without the row's text: a new object with the new figures, the old one as it was.
    ledger.record(conn, "/t/a.jsonl", "claude:a", [ledger.Delta(0, "m", False, Tokens(5, 7, 0, 0))])
    conn.commit()
    used = same_as_without_memo(conn, memo)
    a_before = next(s for s in hidden if s.id == "claude:a")
    a_after = next(s for s in used if s.id == "claude:a")
    assert a_after is not a_before and a_before.usage is None
    assert a_after.usage is not None and a_after.usage.tokens.output == 7
    # A row no longer listed leaves the list and the memo.
    seed_snapshot(conn, row("c"), listed=False)
    assert [s.id for s in same_as_without_memo(conn, memo)] == ["claude:b", "claude:a"]
    assert "claude:c" not in [s.id for s in read_sessions(conn, include_hidden=True, now=NOW, memo=memo)]


def test_automatic_hiding_follows_the_clock_with_the_memo(iso_env):
    conn = store.connect()
    seed_snapshot(conn, row("old", age=DAY_S - 5), row("new", age=10))
    store.set_setting(conn, AUTO_HIDE_SETTING, str(DAY_S))
    memo = RowMemo()
    assert not any(s.hidden for s in same_as_without_memo(conn, memo))
    # Nothing in the store moved, only the clock: the old row is hidden now, as a new object.
    later = same_as_without_memo(conn, memo, NOW + 10)
    assert memo.decoded == 0
    assert [s.id for s in later if s.hidden] == ["claude:old"]
