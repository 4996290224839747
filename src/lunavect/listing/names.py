"""Each session's project and title as this machine's snapshot names them: what the usage report groups and
names its rows by.

Apart from sessions.py because `lunavect usage` needs only these two fields: it then loads none of the listing's
arrangement, hosts and hiding rules. Its answer again is measured beside ccusage's (bench/peer.py), and nearly
all of it is the interpreter's start and the imports."""

from __future__ import annotations

import sqlite3

import msgspec


class _Names(msgspec.Struct):
    project: str | None = None
    title: str | None = None


_names_decoder = msgspec.json.Decoder(_Names)


def names(conn: sqlite3.Connection) -> dict[str, tuple[str | None, str | None]]:
    """Each session's (project, title) in this machine's snapshot, decoded from only those two fields."""
    found = {}
    for key, data in conn.execute("SELECT id, data FROM snapshot"):
        try:
            named = _names_decoder.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        found[key] = (named.project, named.title)
    return found
