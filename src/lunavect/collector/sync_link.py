"""The collector's side of sync: start, restart or stop the client as `lunavect sync set|off` changes the
configuration, and hand it this machine's listed rows after every tick (each marked with whether it runs in a
tmux pane here, `tmux_rows`).

Everything here is a read of the local store and a reference handed to another thread: a tick never waits
on the network, and without the `sync` extra or a configuration it costs one settings lookup.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lunavect import store
from lunavect.collector.notify_feed import RemoteTransitions
from lunavect.collector.tmux_rows import TmuxRows
from lunavect.listing import hosts, sessions
from lunavect.sync import config as sync_config
from lunavect.sync import presence, remote
from lunavect.sync.config import SyncConfig

if TYPE_CHECKING:
    from lunavect.notify.decide import Transition
    from lunavect.sync.client import SyncClient

log = logging.getLogger("lunavect.sync")


class SyncLink:
    def __init__(self, store_path: Path) -> None:
        self.store_path = store_path
        self.config: SyncConfig | None = None
        self._client: SyncClient | None = None
        self._remote_moves = RemoteTransitions()
        self._tmux_rows = TmuxRows()

    @property
    def host(self) -> str | None:
        """This machine's host name in every row it writes, once sync is configured."""
        return self.config.host if self.config is not None else None

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Follow the stored configuration: (re)start the client when it changed, stop it when it is gone."""
        wanted = sync_config.load(conn)
        if wanted == self.config:
            return
        self.close()
        self.config = wanted
        if wanted is None:
            remote.forget_all(conn)
            return
        from lunavect.sync.connect import missing_extra

        problem = missing_extra()
        if problem is not None:
            with store.transaction(conn):
                store.set_collector_value(conn, remote.ERROR, problem)
            return
        from lunavect.sync.client import SyncClient

        with store.transaction(conn):
            machine = sync_config.machine_id(conn)
        client = SyncClient(wanted, machine, self.store_path, own_ids=sessions.own_ids)
        client.start()
        self._client = client

    def after_tick(self, conn: sqlite3.Connection, notify: Callable[[list[Transition]], None] | None = None) -> None:
        """Hand the client this machine's listed rows (it publishes only what changed), and the notifier the
        other hosts' state changes when this machine is the one that notifies for them."""
        if self._client is None or self.config is None:
            return
        rows = {key: data.encode() for key, data in conn.execute("SELECT id, data FROM snapshot WHERE listed = 1")}
        # Whether each live session is in a tmux pane here: what another machine's `open` attaches to.
        rows = self._tmux_rows.mark(rows)
        self._client.offer(rows, presence.person_at(conn))
        moved = self._remote_moves.collect(conn, self.config.host)
        if moved and notify is not None and hosts.notifies_for_other_hosts(conn):
            notify(moved)

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.stop()
