"""The sync client: a thread with its own asyncio loop inside the collector, so a tick never waits on the
network.

The collector hands it this machine's rows after each snapshot (`offer`, which only swaps a reference and
wakes the loop). The client puts a row into the bucket only when it differs from what the bucket holds for
it, deletes the keys of sessions that left (and, on connecting, every key of this host the bucket still
holds for a session this machine no longer lists: no ghosts), and beats every `beat_s`. It watches every
key and writes the other hosts' entries into the store with the revision reached (`remote.apply`); after a
reconnect or a restart it resumes right after that revision. With the server unreachable nothing here
blocks the collector: the local list goes on, and the store says since when other hosts are not current.

Each step of the loop (taking in a batch of entries, the arrangement, the beat, the puts) is guarded by
`faults.Loop`: a step that raises is logged, counted and shown by `lunavect doctor`, and the loop goes on with
the same connection; a batch that raises is taken in again entry by entry, so only the entry that fails is
lost. What arrives under this host's own name and was not written by this machine is another's (`own_keys`):
counted, written over, never a reason to stop.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import nats
import nats.errors
import nats.js.errors
from nats.js import api
from nats.js.kv import KeyValue

from lunavect import faults, store
from lunavect.core.terminal_text import clean
from lunavect.sync import arrange, keys, open_server, remote
from lunavect.sync.bucket import NameTaken, check_name, open_bucket, own_entries
from lunavect.sync.config import SyncConfig
from lunavect.sync.connect import options
from lunavect.sync.own_keys import OwnKeys

log = logging.getLogger("lunavect.sync")

KV_OP = "KV-Operation"
MARKER_REASON = "Nats-Marker-Reason"
_beat_encoder = msgspec.json.Encoder()


class SyncClient:
    """One host's link to the bucket; `start` it, `offer` rows, `stop` it."""

    def __init__(self, config: SyncConfig, machine: str, store_path: Path, *, own_ids: remote.OwnIds) -> None:
        """`own_ids` reads the ids of this machine's own sessions, which no other host's row may take."""
        self.config = config
        self.own_ids = own_ids
        self.machine = machine
        self.store_path = store_path
        self._lock = threading.Lock()
        self._offered: dict[str, bytes] = {}
        self._person_at: float | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._thread_main, name="lunavect-sync", daemon=True)
        self._inbox: list[remote.Entry] = []
        self._resubscribe = False
        self.stats: dict[str, int] = {}
        # Other machines' entries refused where they entered (their keys or values are not valid).
        self.drops = remote.Drops()
        self.faults = faults.Loop("sync", log, connect=lambda: store.connect(self.store_path))
        # This host's rows as the bucket holds them (key -> value), and this connection's own writes.
        self._published: dict[str, bytes] = {}
        self._own = OwnKeys(config.host)
        self._beat_now = False
        self._sub: Any = None
        self._probe: asyncio.Future[None] | None = None

    # -- the collector's side (any thread) ---------------------------------------------------------------

    def start(self) -> None:
        self._thread.start()

    def offer(self, rows: dict[str, bytes], person_at: float | None = None) -> None:
        """This machine's current rows (session id → the row as `list --json` prints it)."""
        with self._lock:
            self._offered = rows
            self._person_at = person_at
        self._poke()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._poke()
        self._thread.join(timeout)

    def _poke(self) -> None:
        loop, wake = self._loop, self._wake
        if loop is not None and wake is not None:
            try:
                loop.call_soon_threadsafe(wake.set)
            except RuntimeError:  # the loop has closed
                pass

    # -- the client's own thread ---------------------------------------------------------------------------

    def _thread_main(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        conn = store.connect(self.store_path)
        try:
            with store.transaction(conn):
                store.set_collector_value(conn, remote.STARTED, repr(time.time()))
                conn.execute("DELETE FROM collector WHERE key IN (?, ?)", (remote.CONNECTED_SINCE, remote.ERROR))
            wait = 0.5
            while not self._stop.is_set():
                try:
                    await self._connected(conn)
                    wait = 0.5
                except Exception as exc:  # noqa: BLE001 - any failure: say it, wait, connect again
                    log.info("sync: %s", exc)
                    self._note(conn, remote.ERROR, f"{type(exc).__name__}: {exc}".rstrip(": "))
                    self._disconnected(conn)
                    wait = min(wait * 2, 5.0)
                await self._sleep(wait)
        finally:
            conn.close()

    async def _sleep(self, seconds: float) -> None:
        assert self._wake is not None
        self._wake.clear()
        if self._stop.is_set():
            return
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except TimeoutError:
            pass

    def _note(self, conn: sqlite3.Connection, key: str, value: str | None) -> None:
        try:
            if value is None:
                conn.execute("DELETE FROM collector WHERE key = ?", (key,))
            else:
                store.set_collector_value(conn, key, value)
        except sqlite3.Error:
            log.exception("sync: cannot record %s", key)

    def _disconnected(self, conn: sqlite3.Connection) -> None:
        if store.collector_values(conn).get(remote.DISCONNECTED_SINCE) is None:
            self._note(conn, remote.DISCONNECTED_SINCE, repr(time.time()))

    async def _connected(self, conn: sqlite3.Connection) -> None:
        async def on_disconnect() -> None:
            self._disconnected(conn)

        async def on_reconnect() -> None:
            self._resubscribe = True
            self._poke()

        async def on_error(exc: Exception) -> None:
            log.info("sync: %s", exc)

        nc = await nats.connect(
            **options(self.config), disconnected_cb=on_disconnect, reconnected_cb=on_reconnect, error_cb=on_error
        )
        try:
            await self._serve(nc, conn)
        finally:
            self.stats = dict(nc.stats)
            try:
                await nc.close()
            except Exception:  # noqa: BLE001 - closing a broken connection
                pass

    async def _serve(self, nc: Any, conn: sqlite3.Connection) -> None:
        host = self.config.host
        js = nc.jetstream(timeout=5.0)
        kv = await open_bucket(js)
        mine = await own_entries(js, kv, host)
        self._check_own_beat(conn, mine)
        self._published = {key: value for key, value in mine.items() if keys.parse(key) is not None}
        self._published.pop(keys.beat_key(host), None)
        self._own = OwnKeys(host)
        # Asked beside the loop: a server that leaves an anonymous publish unanswered takes its timeout.
        self._probe = asyncio.ensure_future(self._ask_open(conn))
        self._sub = await self._watch(js, conn)
        self._note(conn, remote.DISCONNECTED_SINCE, None)
        self._note(conn, remote.ERROR, None)
        self._note(conn, remote.CONNECTED_SINCE, repr(time.time()))
        next_beat = 0.0
        try:
            while not self._stop.is_set() and not nc.is_closed:
                if self._resubscribe:
                    self._resubscribe = False
                    await _unsubscribe(self._sub)
                    if not await self._step(lambda: self._rewatch(js, conn)):
                        self._resubscribe = True
                if nc.is_connected:
                    await self._step(lambda: self._arrange(kv, conn))
                self._drain_inbox(conn)
                if nc.is_connected:
                    # The beat first: other hosts hear this one before its rows, so no row shows as silent.
                    if self._beat_now or time.monotonic() >= next_beat:
                        self._beat_now = False
                        await self._step(lambda: self._beat(kv))
                        next_beat = time.monotonic() + self.config.beat_s
                    await self._step(lambda: self._publish(kv))
                self.stats = dict(nc.stats)
                await self._sleep(max(0.05, min(self.config.beat_s, next_beat - time.monotonic())))
        finally:
            if self._probe is not None:
                self._probe.cancel()
            await _unsubscribe(self._sub)
            self._drain_inbox(conn)

    async def _ask_open(self, conn: sqlite3.Connection) -> None:
        try:
            open_to_all = await open_server.anyone_may_write(self.config)
        except Exception as exc:  # noqa: BLE001 - a question that fails is a failed step, nothing more
            self.faults.failed(exc)
            return
        self._note(conn, remote.OPEN_SERVER, open_server.WARNING if open_to_all else None)

    async def _step(self, body: Callable[[], Awaitable[object]]) -> bool:
        """One step of the loop under its guard (`faults.Loop`): True when it went well."""
        try:
            await body()
        except Exception as exc:  # noqa: BLE001 - the loop goes on with its connection: that is the point
            self.faults.failed(exc)
            wait = self.faults.pause()
            if wait:
                await asyncio.sleep(wait)
            return False
        return True

    async def _rewatch(self, js: Any, conn: sqlite3.Connection) -> None:
        self._sub = await self._watch(js, conn)
        self._note(conn, remote.DISCONNECTED_SINCE, None)
        self._note(conn, remote.CONNECTED_SINCE, repr(time.time()))

    def _check_own_beat(self, conn: sqlite3.Connection, mine: dict[str, bytes]) -> None:
        """A beat under this host's name from another installation, found on connecting: `sync set` made sure
        the name was free, so it is a forgery (or a stale claim): counted, and beaten over at once."""
        try:
            check_name(mine, self.config.host, self.machine)
        except NameTaken:
            self._foreign(
                conn, keys.beat_key(self.config.host), "a heartbeat under this host's name from another machine"
            )

    async def _beat(self, kv: KeyValue) -> None:
        with self._lock:
            person_at = self._person_at
        beat = remote.Beat(at=time.time(), every=self.config.beat_s, machine=self.machine, person_at=person_at)
        key = keys.beat_key(self.config.host)
        try:
            self._own.wrote(key, await kv.put(key, _beat_encoder.encode(beat)))
        except (nats.errors.Error, TimeoutError) as exc:
            log.info("sync: beat not delivered: %s", exc)

    async def _publish(self, kv: KeyValue) -> None:
        """Put what changed, delete what left; a failed put is tried again on the next wake."""
        host = self.config.host
        published = self._published
        with self._lock:
            offered = self._offered
        wanted = {keys.session_key(host, session): data for session, data in offered.items()}
        try:
            for key, data in wanted.items():
                if published.get(key) != data:
                    self._own.wrote(key, await kv.put(key, data))
                    published[key] = data
            for key in [key for key in published if key not in wanted]:
                parsed = keys.parse(key)
                if parsed is not None and parsed.kind == keys.SESSION:
                    await kv.delete(key)
                del published[key]
        except (nats.errors.Error, TimeoutError) as exc:
            log.info("sync: publishing paused: %s", exc)

    async def _arrange(self, kv: KeyValue, conn: sqlite3.Connection) -> None:
        """Put what the person changed here, then bring the merge of every host's records into the local
        table (see `lunavect.sync.arrange`). Arrivals are stored by `_drain_inbox` after this step, so a
        change from elsewhere is never mistaken for one made here."""
        host = self.config.host
        try:
            agreed = arrange.agreed(conn)
            local = arrange.local_rows(conn)
            seen = arrange.seen_revision(conn)
            for key, row in local.items():
                changes = arrange.local_changes(row, agreed.get(key))
                if not changes:
                    continue
                own = arrange.own_record(conn, host, key)
                fields = {name: getattr(own, name) for name in arrange.FIELDS}
                for name, value in changes.items():
                    hide = name == "hidden"
                    fields[name] = arrange.Change(value, 0, seen if hide else 0, row[2] if hide and value else None)
                record = arrange.Record(**fields)
                revision = await kv.put(keys.arrangement_key(host, key), arrange.encode(record))
                with store.transaction(conn):
                    arrange.store_record(conn, host, key, revision, record)
            # The rows as read before any put: a change the person makes meanwhile fails the compare-and-set
            # and is found (and put) on the next step instead of being overwritten. Only a session some machine
            # lists (or that has a local row already) takes its merge: a record for an id that exists nowhere
            # makes no local row, and a session listed later takes its merge at the next step.
            with self._lock:
                offered = set(self._offered)
            listed = self.own_ids(conn) | offered | arrange.remote_ids(conn) | set(local)
            for key, records in arrange.records(conn).items():
                if key not in listed:
                    continue
                merged = arrange.merge(records)
                if merged != agreed.get(key):
                    arrange.write_merged(conn, key, merged, local.get(key))
        except (nats.errors.Error, TimeoutError) as exc:
            log.info("sync: arrangement paused: %s", exc)

    # -- watching the other hosts ----------------------------------------------------------------------------

    async def _watch(self, js: Any, conn: sqlite3.Connection) -> Any:
        """Subscribe to every key from right after the revision the store has reached (all of the newest
        values when it has none; again from the start when the bucket was recreated behind it)."""
        self._drain_inbox(conn)
        remote.readmit_if_older(conn)
        reached = remote.revision(conn)
        info = await js.stream_info(keys.STREAM)
        if reached > info.state.last_seq:
            remote.forget_all(conn)
            reached = 0
        # What this host's keys held before this watch was read on connecting (`own_entries`).
        self._own.before = max(self._own.before, info.state.last_seq)
        if reached:
            config = api.ConsumerConfig(deliver_policy=api.DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=reached + 1)
        else:
            config = api.ConsumerConfig(deliver_policy=api.DeliverPolicy.LAST_PER_SUBJECT)
        return await js.subscribe(
            keys.SUBJECT_PREFIX + ">",
            stream=keys.STREAM,
            config=config,
            ordered_consumer=True,
            cb=self._on_message,
            inactive_threshold=60.0,
        )

    async def _on_message(self, msg: Any) -> None:
        meta = msg.metadata
        headers = msg.headers or {}
        deleted = headers.get(KV_OP) in ("DEL", "PURGE") or headers.get(MARKER_REASON) in ("MaxAge", "Purge", "Remove")
        self._inbox.append(
            remote.Entry(
                key=msg.subject[len(keys.SUBJECT_PREFIX) :],
                revision=meta.sequence.stream,
                value=None if deleted else bytes(msg.data),
                created=meta.timestamp.timestamp(),
            )
        )
        if self._wake is not None:
            self._wake.set()

    def _drain_inbox(self, conn: sqlite3.Connection) -> None:
        """Take in what the watch delivered: this host's own keys are checked against its own writes, the
        other hosts' entries stored (`remote.apply`). Never raises: a batch that fails is taken in entry by
        entry, so one entry that lunavect cannot take costs that entry only."""
        if not self._inbox:
            return
        batch, self._inbox = self._inbox, []
        for entry in batch:
            if self._own.mine(entry.key) and self._own.foreign(entry, self._published):
                # A beat with this machine's own id (`sync set` run again here) is beaten over, not counted.
                beat = remote.decode_beat(entry.value) if entry.value else None
                ours = beat is not None and beat.machine == self.machine
                self._foreign(conn, entry.key, "an entry under this host's name that this machine did not write", ours)
        try:
            remote.apply(conn, self.config.host, batch, self.drops, own_ids=self.own_ids)
        except sqlite3.Error:
            # Nothing of the batch was stored: watching again from the revision stored brings it back.
            log.exception("sync: cannot store other hosts' rows; watching again from the last stored revision")
            self._resubscribe = True
        except Exception as exc:  # noqa: BLE001 - a bug an entry triggers must not stop the intake
            self.faults.failed(exc)
            for entry in batch:
                try:
                    remote.apply(conn, self.config.host, [entry], self.drops, own_ids=self.own_ids)
                except sqlite3.Error:
                    self._resubscribe = True
                    return
                except Exception:  # noqa: BLE001 - recorded once above; the entry is skipped
                    log.warning("sync: skipped an entry lunavect could not take in (key %s)", clean(entry.key, 120))

    def _foreign(self, conn: sqlite3.Connection, key: str, why: str, ours: bool = False) -> None:
        """Someone else wrote `key` under this host's name: counted (unless `ours`), and written over."""
        if not ours:
            self.drops.note(key, why)
            try:
                with store.transaction(conn):
                    remote.add_refused(conn, 1)
            except sqlite3.Error:
                log.exception("sync: cannot record a refused entry")
        if key == keys.beat_key(self.config.host):
            self._beat_now = True
            # A deleted beat took this host's rows out of the others' lists: every row is put again.
            for published in self._published:
                self._published[published] = b""
        else:
            self._published[key] = b""  # put again if this machine lists it, else deleted


async def _unsubscribe(sub: Any) -> None:
    try:
        await sub.unsubscribe()
    except Exception:  # noqa: BLE001 - the connection may be gone already
        pass
