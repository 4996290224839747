"""The usage history in the store: token counts by file, quarter hour, model and who sent them, and each
file's latest state (model, context fill).

Quarter hours, not hours: every time zone's offset is a whole number of quarter hours (India's +5:30, Nepal's
+5:45), so a day in any of them is a whole number of buckets and `lunavect usage --by day` is exact there.

Readers hand over the tokens a read added (deltas), never records, so the history stays a few rows per
session and quarter hour however long a conversation gets. A file read again from its start forgets its rows
first (`forget`), so a rewrite never counts twice. Sessions' totals, `lunavect usage` and the panels all
read from here: one owner for the figures.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from lunavect.core.bounds import count as bounded_count
from lunavect.core.times import iso
from lunavect.core.tokens import SessionUsage, Tokens
from lunavect.usage.windows import context_window


@dataclass(frozen=True)
class Delta:
    """Tokens one read added for one quarter hour (its start), model and sender."""

    quarter: int
    model: str
    subagent: bool
    tokens: Tokens


QUARTER_S = 900


def quarter_of(at: float | None, fallback: float) -> int:
    return int((at if at is not None else fallback) // QUARTER_S * QUARTER_S)


class Deltas:
    """What one read of one file adds to the history, summed by quarter hour, model and sender."""

    def __init__(self) -> None:
        self.by_key: dict[tuple[int, str, bool], Tokens] = {}

    def add(self, quarter: int, model: str | None, subagent: bool, tokens: Tokens) -> None:
        key = (quarter, model or "", subagent)
        held = self.by_key.get(key)
        self.by_key[key] = tokens if held is None else held.plus(tokens)  # Tokens are never changed in place

    def __iter__(self) -> Iterator[Delta]:
        return (Delta(h, m, s, t) for (h, m, s), t in self.by_key.items())

    def __bool__(self) -> bool:
        return bool(self.by_key)


def forget(conn: sqlite3.Connection, path: str) -> None:
    """A file read again from its start (or gone): what it added is taken back."""
    conn.execute("DELETE FROM usage_ledger WHERE path = ?", (path,))
    conn.execute("DELETE FROM usage_state WHERE path = ?", (path,))


def record(conn: sqlite3.Connection, path: str, key: str, deltas: Iterable[Delta]) -> None:
    conn.executemany(
        "INSERT INTO usage_ledger (path, id, quarter, model, subagent, input, output, cache_read, cache_write, "
        "cache_write_1h) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (path, quarter, model, subagent) DO UPDATE "
        "SET input = input + excluded.input, output = output + excluded.output, "
        "cache_read = cache_read + excluded.cache_read, cache_write = cache_write + excluded.cache_write, "
        "cache_write_1h = cache_write_1h + excluded.cache_write_1h",
        [
            (
                path,
                key,
                d.quarter,
                d.model,
                int(d.subagent),
                d.tokens.input,
                d.tokens.output,
                d.tokens.cache_read,
                d.tokens.cache_write,
                d.tokens.cache_write_1h,
            )
            for d in deltas
        ],
    )


def set_state(
    conn: sqlite3.Connection,
    path: str,
    key: str,
    model: str | None,
    context: int | None,
    window: int | None,
    updated: float,
) -> None:
    conn.execute(
        "INSERT INTO usage_state (path, id, model, context, context_window, updated) VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (path) DO UPDATE SET id = excluded.id, model = excluded.model, context = excluded.context, "
        "context_window = excluded.context_window, updated = excluded.updated",
        (path, key, model, context, window, updated),
    )


def set_window(conn: sqlite3.Connection, key: str, window: int, at: float) -> None:
    """The model's context window a hook of session `key` named at `at` (a client whose files do not say it):
    a newer one replaces it, an older one (a replay, a spool read late) does not."""
    conn.execute(
        "INSERT INTO usage_window (id, context_window, updated) VALUES (?, ?, ?) "
        "ON CONFLICT (id) DO UPDATE SET context_window = excluded.context_window, updated = excluded.updated "
        "WHERE excluded.updated >= usage_window.updated",
        (key, window, at),
    )


@dataclass(frozen=True)
class Latest:
    """A file's latest request as a read left it: its model, the context it filled, the model's window, its time."""

    model: str | None
    context: int | None
    window: int | None
    at: float


def save_read(
    conn: sqlite3.Connection, path: str, key: str | None, deltas: Deltas, latest: Latest | None, *, restarted: bool
) -> None:
    """What one read of a client's file added: a file read again from its start (or gone: `key` None) first takes
    back what it added; the latest state is kept when the read added tokens, or began again."""
    if restarted:
        forget(conn, path)
    if key is None:
        return
    if deltas:
        record(conn, path, key, deltas)
    if latest is not None and (deltas or restarted):
        set_state(conn, path, key, latest.model, latest.context, latest.window, latest.at)


def sessions(conn: sqlite3.Connection, listed: bool = False) -> dict[str, SessionUsage]:
    """Every session's usage, or only the listed sessions' (the store's `listed_session` view, what every
    refresh of a list reads): totals from the history, the latest state of the session's files."""
    where = "id IN (SELECT id FROM listed_session)" if listed else "1"
    found: dict[str, SessionUsage] = {}
    for key, subagent, i, o, cr, cw, cw1 in conn.execute(
        "SELECT id, subagent, SUM(input), SUM(output), SUM(cache_read), SUM(cache_write), SUM(cache_write_1h) "
        "FROM usage_ledger "
        f"WHERE {where} GROUP BY id, subagent"  # noqa: S608 - one of two constant conditions
    ):
        usage = found.setdefault(key, SessionUsage())
        tokens = Tokens(i, o, cr, cw, cw1)
        usage.tokens = usage.tokens.plus(tokens)
        if subagent:
            usage.subagents = usage.subagents.plus(tokens)
    hooked = dict(conn.execute(f"SELECT id, context_window FROM usage_window WHERE {where}"))  # noqa: S608
    for key, model, context, window, updated in conn.execute(
        f"SELECT id, model, context, context_window, MAX(updated) FROM usage_state WHERE {where} GROUP BY id"  # noqa: S608
    ):
        usage = found.setdefault(key, SessionUsage())
        usage.model = model
        usage.context = context
        # The file's own word, then the session's hook's, then what lunavect knows of the model.
        usage.context_window = window or bounded_count(hooked.get(key)) or context_window(model, context)
        usage.updated = iso(updated)
    return found


@dataclass(frozen=True)
class HistoryRow:
    id: str
    quarter: int
    model: str
    subagent: bool
    tokens: Tokens


def history(conn: sqlite3.Connection, since: float, by: str = "all") -> list[HistoryRow]:
    """The history's rows from `since` on (counts only), for `lunavect usage`, summed in SQL over what `by`
    does not need: by "day" each quarter hour and model, by "model" each model, by "project" or "session" each
    session and model, by "client" each client's id (in `id`) and model, by "client-day" each client's id and
    quarter hour ("all": every row as stored, by session, quarter hour, model and sender)."""
    keys = {
        "day": ("''", "quarter", "model", "0"),
        "model": ("''", "0", "model", "0"),
        "project": ("id", "0", "model", "0"),
        "session": ("id", "0", "model", "0"),
        # The client: the part of the session's key before its colon (`core.model.session_key`).
        "client": ("substr(id, 1, instr(id, ':') - 1)", "0", "model", "0"),
        "client-day": ("substr(id, 1, instr(id, ':') - 1)", "quarter", "''", "0"),
    }.get(by, ("id", "quarter", "model", "subagent"))
    columns = ", ".join(keys)
    groups = ", ".join(k for k in keys if k not in ("''", "0"))
    return [
        HistoryRow(key, quarter, model, bool(subagent), Tokens(i, o, cr, cw, cw1))
        for key, quarter, model, subagent, i, o, cr, cw, cw1 in conn.execute(
            f"SELECT {columns}, SUM(input), SUM(output), SUM(cache_read), SUM(cache_write), "  # noqa: S608 - constants
            f"SUM(cache_write_1h) "
            f"FROM usage_ledger WHERE quarter >= ? GROUP BY {groups}",
            (int(since // QUARTER_S * QUARTER_S),),
        )
    ]
