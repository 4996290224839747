"""Another machine's entries as the sync watch delivers them (heartbeats and rows, with increasing revisions),
applied by the real decode path: what the tests of sync's intake and of its trust in other machines feed it."""

from __future__ import annotations

import time

import msgspec
from unit_support import a_session

from lunavect.core.model import State
from lunavect.listing.sessions import own_ids
from lunavect.sync import remote
from lunavect.sync.remote import Entry

GOOD = "aaaaaaaa-1111-2222-3333-444444444444"


def beat(**fields: object) -> bytes:
    values: dict[str, object] = {"at": time.time(), "every": 5.0, "machine": "0123abcd"}
    values.update(fields)
    return msgspec.json.encode(values)


def row(session_id: str = GOOD, **fields: object) -> bytes:
    values: dict[str, object] = {"host": "beta", "state": State.WORKING}
    values.update(fields)
    return msgspec.json.encode(a_session(session_id, **values))


class Bucket:
    """Entries as the watch delivers them, with increasing revisions, applied by the real decode path."""

    def __init__(self, conn) -> None:
        self.conn, self.revision, self.drops = conn, 0, remote.Drops()

    def put(self, *entries: tuple[str, bytes | None]) -> int:
        batch = []
        for key, value in entries:
            self.revision += 1
            batch.append(Entry(key=key, revision=self.revision, value=value, created=time.time()))
        return remote.apply(self.conn, "alpha", batch, self.drops, own_ids=own_ids)
