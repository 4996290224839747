"""The person's arrangement of the list: pins, hidden sessions, their order and the settings that go with them.

It lives in the store, not in a front end, so the panel, `lunavect list` and every script see one
arrangement; the panel and the `lunavect hide|unhide|pin|unpin|move` commands both write it through here.
Each change is one short transaction: another connection's `PRAGMA data_version` moves, and every open panel
redraws.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable

from lunavect import store
from lunavect.core import dismissal, ordering
from lunavect.listing.sessions import AUTO_HIDE_SETTING, Row, read_rows

# A complete catalog's listing is written at most this often per session: the 35-day rule needs days, not
# seconds, and a catalog is read every second.
LISTING_RESOLUTION_S = 3600.0


class ArrangeError(Exception):
    """An arrangement the person asked for cannot be made (unknown id, a move across the pinned group)."""


class UnknownSession(ArrangeError):
    """No stored session is the one named: a front end tells this apart by its type (the web panel answers 404,
    every other refusal here is a conflict), never by its words."""


# -- which session ------------------------------------------------------------------------------------------


def resolve_id(conn: sqlite3.Connection, text: str) -> str:
    """The stored session a person means: its full id (`claude:<id>`), its session id, or a unique prefix of
    either (the list prints the first 8 characters).

    Every command that takes a session id resolves it here, so `open`, `resume` and the arrangement commands
    agree. Hidden rows count: a person who hid a session can still name it to open, unhide or resume it.
    Unlisted rows (lifecycle-only launches, internal agents) do not: they are not sessions of the person's.
    A name that fits several sessions is an error naming them, never a guess."""
    text = text.strip()
    if not text:
        raise UnknownSession("no session id given")
    # Other machines' sessions (sync) can be named too: to open them there, or to arrange them.
    ids = [
        row[0] for row in conn.execute("SELECT id FROM snapshot WHERE listed = 1 UNION SELECT id FROM remote_session")
    ]
    if text in ids:
        return text
    matches = [key for key in ids if key.split(":", 1)[-1] == text]
    if not matches:
        matches = [key for key in ids if key.startswith(text) or key.split(":", 1)[-1].startswith(text)]
    if len(matches) == 1:
        return matches[0]
    quoted = repr(text if len(text) <= 80 else text[:79] + "…")  # a pasted 128 KB id is not echoed whole
    if not matches:
        raise UnknownSession(f"no session {quoted} (see `lunavect list --all`)")
    shown = ", ".join(sorted(matches)[:4]) + (", ..." if len(matches) > 4 else "")
    raise ArrangeError(f"{quoted} matches {len(matches)} sessions ({shown}): give more of the id")


def candidates(conn: sqlite3.Connection, text: str, limit: int = 200) -> list[tuple[str, str]]:
    """The sessions a shell may complete `text` to, as (what to type, what it is): every id `resolve_id` would
    take that begins with `text`, as its bare session id (the shells split a word at `:`) unless `text` already
    holds the client's part. Read from the snapshot alone, so a Tab press starts no collector."""
    rows = conn.execute(
        "SELECT id, state, json_extract(data, '$.title') FROM snapshot WHERE listed = 1 "
        "UNION SELECT id, json_extract(data, '$.state'), json_extract(data, '$.title') FROM remote_session"
    ).fetchall()
    found: dict[str, str] = {}
    for key, state, title in rows:
        word = key if ":" in text else key.split(":", 1)[-1]
        if word.startswith(text) and len(found) < limit:
            found.setdefault(word, f"{state} · {title or ''}".rstrip(" ·"))
    return sorted(found.items())


# -- the rows ---------------------------------------------------------------------------------------------


def _ensure(conn: sqlite3.Connection, key: str) -> None:
    conn.execute("INSERT OR IGNORE INTO arrangement (id) VALUES (?)", (key,))


def _value(conn: sqlite3.Connection, key: str, column: str) -> object:
    row = conn.execute(f"SELECT {column} FROM arrangement WHERE id = ?", (key,)).fetchone()  # noqa: S608
    return row[0] if row else None


def pin(conn: sqlite3.Connection, key: str) -> bool:
    """Pin a session at the end of the pinned rows; False when it already was pinned."""
    with store.transaction(conn):
        if _value(conn, key, "pinned"):
            return False
        last = conn.execute("SELECT MAX(position) FROM arrangement WHERE pinned = 1").fetchone()[0]
        _ensure(conn, key)
        conn.execute(
            "UPDATE arrangement SET pinned = 1, position = ? WHERE id = ?",
            ((last + 1.0) if last is not None else 0.0, key),
        )
    return True


def unpin(conn: sqlite3.Connection, key: str) -> bool:
    """Unpin a session: it goes back among the others by its activity. False when it was not pinned."""
    with store.transaction(conn):
        if not _value(conn, key, "pinned"):
            return False
        conn.execute("UPDATE arrangement SET pinned = 0, position = NULL WHERE id = ?", (key,))
    return True


def hide(conn: sqlite3.Connection, key: str, now: float | None = None) -> bool:
    """Hide a session from the list. Only the list changes: its work goes on and still counts in the
    totals. False when the person had already hidden it."""
    now = time.time() if now is None else now
    with store.transaction(conn):
        if _value(conn, key, "hidden"):
            return False
        _ensure(conn, key)
        conn.execute("UPDATE arrangement SET hidden = 1, hidden_at = ? WHERE id = ?", (now, key))
    return True


def unhide(conn: sqlite3.Connection, key: str, now: float | None = None) -> bool:
    """Restore a session to the list, whether the person or automatic hiding hid it.

    `shown_at` makes automatic hiding count inactivity from now, so the restored row stays. Returns False
    when the session was not hidden at all.
    """
    now = time.time() if now is None else now
    row = _row(conn, key, now)
    if row is None or not (row.hidden_by_person or row.hidden_automatically):
        return False
    with store.transaction(conn):
        _ensure(conn, key)
        conn.execute("UPDATE arrangement SET hidden = 0, hidden_at = NULL, shown_at = ? WHERE id = ?", (now, key))
    return True


def dismiss(conn: sqlite3.Connection, key: str, now: float | None = None) -> bool:
    """Dismiss the ready reply or the error a row shows: it stays listed, and needs its person no more until
    the session's next one (`core.dismissal`). False when it already was; ArrangeError when the row shows
    nothing to dismiss (a permission or a question waits for an answer, not a look)."""
    row = _row(conn, key, time.time() if now is None else now)
    if row is None:
        raise UnknownSession(f"no session {key!r}")
    mark = dismissal.mark_of(row.session)
    if mark is None:
        raise ArrangeError(f"{key} is {row.session.state}: only a ready reply or an error can be dismissed")
    with store.transaction(conn):
        if _value(conn, key, "dismissed") == mark:
            return False
        _ensure(conn, key)
        conn.execute("UPDATE arrangement SET dismissed = ? WHERE id = ?", (mark, key))
    return True


def undismiss(conn: sqlite3.Connection, key: str) -> bool:
    """Take a dismissal back: the row needs its person again. False when nothing was dismissed."""
    with store.transaction(conn):
        if _value(conn, key, "dismissed") is None:
            return False
        conn.execute("UPDATE arrangement SET dismissed = NULL WHERE id = ?", (key,))
    return True


# The row actions the CLI and the web panel take by name (`act`).
ACTIONS = ("hide", "unhide", "pin", "unpin", "dismiss", "undismiss")


def act(conn: sqlite3.Connection, action: str, key: str) -> bool:
    """One of `ACTIONS` by its name: its change, and whether it changed anything (the web panel hides through its
    `HideHistory`, to undo)."""
    do: dict[str, Callable[[sqlite3.Connection, str], bool]] = {
        "hide": hide,
        "unhide": unhide,
        "pin": pin,
        "unpin": unpin,
        "dismiss": dismiss,
        "undismiss": undismiss,
    }
    return do[action](conn, key)


def _row(conn: sqlite3.Connection, key: str, now: float) -> Row | None:
    for row in read_rows(conn, now):
        if row.session.id == key:
            return row
    return None


# -- order --------------------------------------------------------------------------------------------------

# What a front end says after the person moved an unpinned row: when it will move again (`core.ordering`: a
# moved row keeps its place among older rows, and a session that does something new still rises above it).
MOVED_UNTIL = "A session below it that does something new will rise above it; pin it to keep its place."


def moved_words(title: str, pinned: bool) -> str:
    """The line that says a row was moved, and, for an unpinned one, when it will move again."""
    return f"Moved {title}." if pinned else f"Moved {title}. {MOVED_UNTIL}"


def move_before(conn: sqlite3.Connection, key: str, target: str, now: float | None = None) -> bool:
    """Move a row to just above `target`, within its group (pinned or not). False when it already is."""
    return _move(conn, key, target, before=True, now=now)


def move_after(conn: sqlite3.Connection, key: str, target: str, now: float | None = None) -> bool:
    """Move a row to just below `target`, within its group (pinned or not). False when it already is."""
    return _move(conn, key, target, before=False, now=now)


def _move(conn: sqlite3.Connection, key: str, target: str, *, before: bool, now: float | None) -> bool:
    if key == target:
        return False
    now = time.time() if now is None else now
    with store.transaction(conn):
        rows = read_rows(conn, now)
        by_id = {r.session.id: r for r in rows}
        if key not in by_id:
            raise UnknownSession(f"no session {key!r}")
        if target not in by_id:
            raise UnknownSession(f"no session {target!r}")
        moving = by_id[key]
        if moving.pinned != by_id[target].pinned:
            group = "pinned" if moving.pinned else "not pinned"
            raise ArrangeError(f"{key} is {group} and {target} is not: pinned sessions stay above the others")
        group_rows = [r for r in rows if r.pinned == moving.pinned]
        others = [r for r in group_rows if r.session.id != key]
        index = next(i for i, r in enumerate(others) if r.session.id == target)
        slot = index if before else index + 1  # moving goes in front of others[slot]
        current = [r.session.id for r in group_rows].index(key)
        if current == slot:
            return False  # already there (its neighbours on both sides are the ones asked for)
        ranks = [r.rank for r in others]
        value = ordering.rank_between(ranks[slot - 1] if slot > 0 else None, ranks[slot] if slot < len(ranks) else None)
        if value is None:
            # No room between the neighbours: space the whole group out evenly, in its current order.
            ranks = ordering.renumbered(ranks)
            for r, new_rank in zip(others, ranks, strict=True):
                _set_position(conn, r.session.id, ordering.position_for_rank(r.pinned, new_rank))
            value = ordering.rank_between(
                ranks[slot - 1] if slot > 0 else None, ranks[slot] if slot < len(ranks) else None
            )
            assert value is not None
        _set_position(conn, key, ordering.position_for_rank(moving.pinned, value))
    return True


def _set_position(conn: sqlite3.Connection, key: str, position: float) -> None:
    _ensure(conn, key)
    conn.execute("UPDATE arrangement SET position = ? WHERE id = ?", (position, key))


# -- settings -----------------------------------------------------------------------------------------------


def set_auto_hide_after(conn: sqlite3.Connection, seconds: float | None) -> None:
    """Turn automatic hiding on after `seconds` of inactivity, or off with None (the default)."""
    if seconds is not None and seconds <= 0:
        raise ArrangeError("the automatic hiding interval must be positive")
    store.set_setting(conn, AUTO_HIDE_SETTING, None if seconds is None else repr(float(seconds)))


# -- what complete catalogs list ----------------------------------------------------------------------------


def record_complete_listing(conn: sqlite3.Connection, provider: str, keys: Iterable[str], now: float) -> None:
    """Note that a complete catalog of `provider` (one that lists every session the client knows) was just
    read in full and listed `keys`.

    A source calls this from its batch's `commit`, inside the collector's transaction. It is what lets a
    hidden session leave the hidden list once that catalog has not listed it for 35 days; sources that see
    only some sessions (a live catalog of running processes) must not call it.
    """
    conn.execute(
        "INSERT INTO catalog_listing (provider, at) VALUES (?, ?) "
        "ON CONFLICT (provider) DO UPDATE SET at = excluded.at",
        (provider, now),
    )
    known = dict(conn.execute("SELECT id, listed_at FROM arrangement").fetchall())
    for key in keys:
        listed_at = known.get(key, -1.0)
        if listed_at is not None and listed_at >= 0 and now - listed_at < LISTING_RESOLUTION_S:
            continue
        conn.execute(
            "INSERT INTO arrangement (id, listed_at) VALUES (?, ?) "
            "ON CONFLICT (id) DO UPDATE SET listed_at = excluded.listed_at",
            (key, now),
        )


# -- undo while the panel is open ---------------------------------------------------------------------------


class HideHistory:
    """The hides made in one open panel, so Ctrl+Z can restore them, newest first. Kept in memory on purpose:
    the guide promises undo while the panel is open, not across its reopening."""

    def __init__(self) -> None:
        self._hidden: list[str] = []

    def __len__(self) -> int:
        return len(self._hidden)

    def hide(self, conn: sqlite3.Connection, key: str, now: float | None = None) -> bool:
        changed = hide(conn, key, now)
        if changed:
            self._hidden.append(key)
        return changed

    def undo(self, conn: sqlite3.Connection, now: float | None = None) -> str | None:
        """Restore the most recent hide that is still in effect; returns its id, or None."""
        while self._hidden:
            key = self._hidden.pop()
            if unhide(conn, key, now):
                return key
        return None
