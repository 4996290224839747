"""What the usage screen draws: the tokens of each of the last days, by client, and each rate-limit window's fill.

Tokens are all four kinds together (input, output, cache read, cache write), summed by the reader's local day
(quarter-hour history: exact in a half-hour time zone too); a day without tokens is kept as an empty bar, so the
days stand evenly. Counts only, as the rest of the usage history.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from lunavect.core import clients
from lunavect.core.times import local_text
from lunavect.usage import ledger, report

DAYS = 14
# One colour a client, in the clients' order, for the panel's and the web page's bars: mid-tone, so that each reads
# on a dark and on a light background.
COLOURS = ("#d97757", "#10a37f", "#4285f4", "#a855f7", "#0891b2", "#ca8a04", "#db2777", "#65a30d")
OTHER = "#8a8a8a"  # a client this lunavect does not know (another host's newer one)


def colour(client_id: str) -> str:
    ids = [client.id for client in clients.every()]
    return COLOURS[ids.index(client_id) % len(COLOURS)] if client_id in ids else OTHER


@dataclass
class Day:
    day: str  # the local date, YYYY-MM-DD
    by_client: dict[str, int] = field(default_factory=dict)  # client id -> tokens, in the clients' order

    @property
    def total(self) -> int:
        return sum(self.by_client.values())


def days_by_client(conn: sqlite3.Connection, now: float, days: int = DAYS) -> list[Day]:
    """The last `days` local days, today the last, each with its tokens by client (the clients' order)."""
    since = report.parse_since(f"{days}d", now)
    if since is None:
        return []
    found: dict[str, Day] = {}
    quarter = since
    while quarter <= now:  # every day, also the empty ones (a step of 6 h meets each day, DST or not)
        key = local_text(quarter, "%Y-%m-%d", missing="")
        if key:
            found.setdefault(key, Day(key))
        quarter += 6 * 3600
    found.setdefault(local_text(now, "%Y-%m-%d", missing=""), Day(local_text(now, "%Y-%m-%d", missing="")))
    order = {client.id: i for i, client in enumerate(clients.every())}
    for row in ledger.history(conn, since, "client-day"):
        day = found.get(local_text(row.quarter, "%Y-%m-%d", missing=""))
        total = row.tokens.input + row.tokens.output + row.tokens.cache_read + row.tokens.cache_write
        if day is not None and total:
            day.by_client[row.id] = day.by_client.get(row.id, 0) + total
    for day in found.values():
        day.by_client = dict(sorted(day.by_client.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))
    return [found[key] for key in sorted(found) if key]


__all__ = ["COLOURS", "DAYS", "Day", "colour", "days_by_client"]
