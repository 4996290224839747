"""Each session's project and title as this machine's snapshot names them: what the usage report groups and
names its rows by.

Apart from sessions.py because `lunavect usage` needs only these two fields: decoding them alone, without the
listing's arrangement, hosts and hiding rules, keeps a command a person runs again and again at the speed of
the interpreter's start (bench/peer.py measures it beside ccusage)."""

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
