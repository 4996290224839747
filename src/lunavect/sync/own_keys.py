"""Which entries under this host's name this machine wrote, and which someone else did.

With the README's permissions only this machine may write its keys. A server that lets others write them (no
credentials, one shared user, an administrator's mistake) lets them forge a heartbeat or a row under this
host's name. A forged heartbeat used to stop this host for good ("host name already used" every 30 s): its
machine id was taken for another installation's. Now this machine knows its own writes by the revisions the
server gave its puts during this connection, so whatever else arrives under its name is another's: it is
counted, never believed, and written over (this host's beat again at once, its row again, or the key deleted),
and sync goes on. Whether a name is free is asked once, by `sync set`, where a person can choose another.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lunavect.sync import keys
from lunavect.sync.remote import Entry


@dataclass
class OwnKeys:
    """One connection's record of this host's own writes."""

    host: str
    # Entries up to this revision were in the bucket when the connection began (read as they were).
    before: int = 0
    # Per key, the revision of this machine's latest put of it.
    _written: dict[str, int] = field(default_factory=dict)

    def wrote(self, key: str, revision: int) -> None:
        self._written[key] = max(revision, self._written.get(key, 0))

    def mine(self, key: str) -> bool:
        """True for a key under this host's name that lunavect writes (its beat and its session rows; the
        arrangement records are every host's to merge, see `arrange`)."""
        parsed = keys.parse(key)
        return parsed is not None and parsed.host == self.host and parsed.kind in (keys.BEAT, keys.SESSION)

    def foreign(self, entry: Entry, published: dict[str, bytes]) -> bool:
        """True when `entry` (under this host's name) was written by someone else during this connection."""
        if entry.revision <= self.before:
            return False
        if entry.revision <= self._written.get(entry.key, 0):
            return False  # this machine's own put, or an older one it has written over since
        if entry.value is None:
            # While it runs, this machine never deletes its beat, and deletes only the rows it no longer
            # publishes: a delete of its beat or of a row it publishes is another's.
            return entry.key == keys.beat_key(self.host) or entry.key in published
        return True
