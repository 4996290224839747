"""The Codex catalog: which threads exist and what they are, as Codex's own app-server says, within budgets.

One refresh (the guide, "Codex catalog discovery"):

0. Codex's managed app-server daemon, when its socket exists, gives the live status of the threads it runs
   (`daemon.py`): never started, never kept open, bounded; its word wins for those threads. It is read on its
   own, more often and in its own thread (`start_live_refresh`), never behind the stdio server's steps below:
   a permission prompt must show within a tick or two, not once a slow `thread/list` (or a server still
   starting) has finished;
1. known active tasks are read first (`thread/read`, `includeTurns: false`), within their own budget: a task
   the server positively does not know is reported unconfirmed (its identity stays; its runtime evidence is
   downgraded); a slow or absent server confirms and denies nothing;
2. `thread/list` with every source kind, from the state database only (lunavect never asks Codex to repair
   its metadata), page by page within a budget;
3. recent rollout ids the list did not name are read one by one: at most 32 extra summaries sharing three
   seconds. Filename recency only orders this discovery and never establishes a working state.

It works, less well, when no app-server can be started: the listing is then empty and marked unavailable.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from lunavect.clients.codex import appserver, daemon
from lunavect.clients.codex.rollout import (
    MEMORIES_DIR,
    SESSIONS_DIR,
    UUID_RE,
    client_of,
    is_subagent_source,
    is_within,
    short_title,
)
from lunavect.core.ids import is_session_id
from lunavect.core.times import bounded

log = logging.getLogger("lunavect.clients.codex.catalog")

SOURCE_KINDS = (
    "cli",
    "vscode",
    "exec",
    "appServer",
    "subAgent",
    "subAgentReview",
    "subAgentCompact",
    "subAgentThreadSpawn",
    "subAgentOther",
    "unknown",
)
PAGE_SIZE = 100
LIST_BUDGET_S = 3.0
ACTIVE_READS = 16
ACTIVE_BUDGET_S = 1.5
EXTRA_READS = 32
EXTRA_BUDGET_S = 3.0
RETRY_AFTER_S = 60.0
# The server's answer for a thread it has no record of (0.169.0: "thread not loaded: <id>").
UNKNOWN_THREAD_CODE = -32600


@dataclass(frozen=True)
class Thread:
    """One thread as the catalog describes it: identity and metadata, and a live status only when this
    server runs it."""

    id: str
    title: str | None = None
    cwd: str | None = None
    originator: str | None = None
    client: str | None = None
    path: str | None = None
    parent_thread_id: str | None = None
    internal: bool = False
    status: str | None = None  # "busy" | "waiting" | "idle" | None (not loaded here)
    waiting_for: str | None = None
    updated_at: float | None = None
    # Read from Codex's managed daemon, which runs the thread: its status is live.
    live: bool = False


@dataclass
class Listing:
    """One refresh's answer."""

    threads: dict[str, Thread] = field(default_factory=dict)
    # Known active tasks the server positively does not know.
    unconfirmed: set[str] = field(default_factory=set)
    # The list was read to its last page (a thread absent from it is absent from Codex's catalog).
    complete: bool = False
    available: bool = False
    finished_at: float = 0.0
    # Codex's managed daemon answered (its threads carry their live status), or why it did not.
    live: bool = False
    live_reason: str | None = None
    # When the daemon was asked: its statuses held no earlier than this (a turn may end while it answers).
    live_at: float = 0.0
    # What the servers answered in a shape no reader takes, by where (`app-server thread/list`): what was wrong.
    rejected: dict[str, str] = field(default_factory=dict)
    _rejects: dict[str, tuple[str, int]] = field(default_factory=dict, repr=False)

    def reject(self, where: str, problem: str) -> None:
        """One answer (or one thread in it) from `where` that could not be read: the first problem is kept,
        the others counted."""
        first, more = self._rejects.get(where, (problem, -1))
        self._rejects[where] = (first, more + 1)
        self.rejected[where] = first + (f" (and {more + 1} more)" if more + 1 else "")


def _status(value: object) -> tuple[str | None, str | None]:
    if not isinstance(value, dict):
        return None, None
    kind = value.get("type")
    if kind == "active":
        flags = value.get("activeFlags") or []
        if "waitingOnApproval" in flags:
            return "waiting", "permission"
        if "waitingOnUserInput" in flags:
            return "waiting", "input"
        return "busy", None
    if kind == "idle":
        return "idle", None
    return None, None


def thread_from(raw: object, memories: Path | None) -> Thread | None:
    """A thread from the server's JSON, or None when it names no valid thread id."""
    found = read_thread(raw, memories)
    return found if isinstance(found, Thread) else None


def read_thread(raw: object, memories: Path | None) -> Thread | str:
    """A thread from the server's JSON, or what is wrong with it (never its content)."""
    if not isinstance(raw, dict):
        return f"a thread that is no object ({type(raw).__name__})"
    ident = raw.get("id")
    if not isinstance(ident, str) or not UUID_RE.match(ident):
        return "a thread whose id is no thread id"
    source = raw.get("source")
    # A parent that is no id is no parent: it never marks a thread internal (nor is it kept to name one).
    parent = raw.get("parentThreadId")
    parent = parent if isinstance(parent, str) and is_session_id(parent) else None
    cwd = raw.get("cwd") if isinstance(raw.get("cwd"), str) else None
    thread_source = raw.get("threadSource")
    internal = (
        bool(parent)
        or is_subagent_source(source)
        or thread_source in ("subagent", "memory_consolidation")
        or (memories is not None and is_within(cwd, memories))
    )
    name = raw.get("name") if isinstance(raw.get("name"), str) else None
    originator = raw.get("originator") if isinstance(raw.get("originator"), str) else None
    status, waiting_for = _status(raw.get("status"))
    updated = raw.get("updatedAt")
    return Thread(
        id=ident.lower(),
        title=short_title(name) or short_title(raw.get("preview")),
        cwd=cwd,
        originator=originator,
        client=client_of(originator, source),
        path=raw.get("path") if isinstance(raw.get("path"), str) else None,
        parent_thread_id=parent,
        internal=internal,
        status=status,
        waiting_for=waiting_for,
        updated_at=bounded(updated),
    )


def _running(
    worker: threading.Thread | None, target: Callable[..., None], name: str, args: tuple = ()
) -> tuple[threading.Thread, bool]:
    """`worker` while it still runs (and False), else a new thread running `target`, started (and True)."""
    if worker is not None and worker.is_alive():
        return worker, False
    thread = threading.Thread(target=target, args=args, name=name, daemon=True)
    thread.start()
    return thread, True


class Catalog:
    """Refreshes the catalog through one long-lived `codex app-server` child, in a background thread, so that
    a slow server never delays the collector's tick."""

    def __init__(self, codex_home: Path, env: Mapping[str, str] | None = None) -> None:
        self.codex_home = codex_home
        self.env = dict(env) if env is not None else None
        self.memories = codex_home / MEMORIES_DIR
        self.server: appserver.AppServer | None = None
        self.native: appserver.NativeExecutable | None = None
        self._failed_at: float | None = None
        self._lock = threading.Lock()
        self._worker: threading.Thread | None = None
        self._result: Listing | None = None
        self._live_worker: threading.Thread | None = None
        self._live_result: Listing | None = None
        # The threads the daemon ran at its last read: the stdio server does not read them (it would call
        # them not loaded), and a complete list counts them as listed.
        self.live_ids: frozenset[str] = frozenset()
        self.live_listed: frozenset[str] = frozenset()  # of those, the ones that are no internal agent
        # Called (from the reading thread) when a daemon read found other statuses than the last: a collector
        # at rest then takes them at once rather than at its next sweep.
        self.on_live_change: Callable[[], None] | None = None
        self._live_seen: frozenset[tuple[str, str | None, str | None]] = frozenset()
        self._live_reason: str | None = None

    # -- in the background ------------------------------------------------------------------------------

    def start_refresh(self, active: list[str], candidates: list[str]) -> bool:
        """Start a refresh unless one runs; True when started."""
        with self._lock:
            self._worker, started = _running(self._worker, self._run, "codex-catalog", (list(active), list(candidates)))
            return started

    def take_result(self) -> Listing | None:
        """The finished refresh's listing, once."""
        with self._lock:
            result, self._result = self._result, None
            return result

    def start_live_refresh(self) -> bool:
        """Start reading the daemon unless a read runs; True when started."""
        with self._lock:
            self._live_worker, started = _running(self._live_worker, self._run_live, "codex-daemon")
            return started

    def take_live_result(self) -> Listing | None:
        """The finished daemon read (a listing of the daemon's threads only), once."""
        with self._lock:
            result, self._live_result = self._live_result, None
            return result

    def wait(self, timeout: float = 30.0) -> None:
        for worker in (self._worker, self._live_worker):
            if worker is not None:
                worker.join(timeout)

    def wait_live(self, timeout: float = 30.0) -> None:
        worker = self._live_worker
        if worker is not None:
            worker.join(timeout)

    def _run_live(self) -> None:
        listing = Listing()
        try:
            self._read_daemon(listing)
        except Exception as exc:  # noqa: BLE001 - a broken daemon read must never stop the collector
            log.exception("reading Codex's app-server daemon failed")
            listing.reject("app-server daemon", f"{type(exc).__name__}: {exc}"[:200])
        listing.finished_at = time.time()
        seen = frozenset((t.id, t.status, t.waiting_for) for t in listing.threads.values())
        with self._lock:
            self._live_result = listing
            self.live_ids = frozenset(listing.threads)
            self.live_listed = frozenset(t.id for t in listing.threads.values() if not t.internal)
            changed, self._live_seen = seen != self._live_seen, seen
        if changed and self.on_live_change is not None:
            self.on_live_change()

    def _run(self, active: list[str], candidates: list[str]) -> None:
        try:
            listing = self.refresh(active, candidates)
        except Exception as exc:  # noqa: BLE001 - a broken catalog must never stop the collector
            log.exception("the Codex catalog refresh failed")
            listing = Listing()
            listing.reject("app-server refresh", f"{type(exc).__name__}: {exc}"[:200])
        with self._lock:
            self._result = listing

    # -- one refresh ------------------------------------------------------------------------------------

    def _server(self) -> appserver.AppServer | None:
        if self.server is not None and self.server.running:
            if self.native is not None and not self.native.valid():
                self.native = None  # an update replaced the launcher or the native executable
                self.close()
            else:
                return self.server
        if self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER_S:
            return None
        if not (self.codex_home / SESSIONS_DIR).is_dir():
            # Codex was never used here: starting its server would initialise a Codex home (databases,
            # skills) that the person never asked for.
            return None
        executable = appserver.find_codex(self.env if self.env is not None else os.environ)
        if executable is None:
            self._failed_at = time.monotonic()
            return None
        home = (self.env if self.env is not None else os.environ).get("HOME") or "/"
        server = appserver.AppServer(executable, env=self.env, cwd=home if os.path.isdir(home) else "/")
        try:
            server.start()
        except (appserver.AppServerError, TimeoutError) as exc:
            log.info("no Codex app-server: %s", exc)
            self._failed_at = time.monotonic()
            return None
        self._failed_at = None
        self.server = server
        return server

    def refresh(self, active: list[str], candidates: list[str]) -> Listing:
        listing = Listing()
        server = self._server()
        if server is None:
            listing.finished_at = time.time()
            return listing
        listing.available = True
        try:
            self._read_active(server, active, listing)
            self._list(server, listing)
            if self.native is None and server.pid is not None:
                # A request just succeeded: the process behind the launcher is the native Codex.
                self.native = appserver.native_behind(server.executable, server.pid)
            self._supplement(server, candidates, listing)
        except appserver.AppServerError as exc:
            log.info("the Codex app-server stopped answering: %s", exc)
            self.close()
        listing.finished_at = time.time()
        return listing

    def _read_daemon(self, listing: Listing) -> None:
        """The live status of the threads Codex's managed daemon runs (its own word wins over the stdio
        server's `notLoaded`); nothing when there is no daemon to ask."""
        listing.live_at = time.time()
        live = daemon.read_live(self.codex_home)
        listing.live, listing.live_reason = live.available, live.reason
        if live.reason not in (None, "absent") and live.reason != self._live_reason:
            # Said when it becomes so: it is read every few seconds, and a stale socket stays refused for good.
            log.info("Codex's app-server daemon is unavailable: %s", live.reason)
        self._live_reason = live.reason
        for raw in live.threads.values():
            thread = read_thread(raw, self.memories)
            if isinstance(thread, str):
                listing.reject("app-server daemon", thread)
            else:
                listing.threads[thread.id] = replace(thread, live=True)

    def _read(self, server: appserver.AppServer, thread_id: str, timeout: float, listing: Listing) -> Thread | None:
        result = server.request("thread/read", {"threadId": thread_id, "includeTurns": False}, timeout=timeout)
        thread = read_thread(result.get("thread") if isinstance(result, dict) else result, self.memories)
        if isinstance(thread, str):
            listing.reject("app-server thread/read", thread)
            return None
        return thread

    def _read_active(self, server: appserver.AppServer, active: list[str], listing: Listing) -> None:
        deadline = time.monotonic() + ACTIVE_BUDGET_S
        for thread_id in active[:ACTIVE_READS]:
            if thread_id in listing.threads or thread_id in self.live_ids:
                continue  # the daemon runs it and said how it is
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                thread = self._read(server, thread_id, left, listing)
            except TimeoutError:
                return  # slow, not a denial: nothing is downgraded
            except appserver.AppServerError as exc:
                if exc.code is None:
                    raise
                if exc.code == UNKNOWN_THREAD_CODE:
                    listing.unconfirmed.add(thread_id)
                continue
            if thread is not None and thread.id not in listing.threads:
                listing.threads[thread.id] = thread

    def _list(self, server: appserver.AppServer, listing: Listing) -> None:
        deadline = time.monotonic() + LIST_BUDGET_S
        cursor: str | None = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            params: dict = {
                "sourceKinds": list(SOURCE_KINDS),
                "limit": PAGE_SIZE,
                "useStateDbOnly": True,
                "sortKey": "updated_at",
            }
            if cursor:
                params["cursor"] = cursor
            try:
                page = server.request("thread/list", params, timeout=left)
            except TimeoutError:
                return
            data = page.get("data") if isinstance(page, dict) else None
            if not isinstance(data, list):
                listing.reject("app-server thread/list", f"a page whose data is no list ({type(data).__name__})")
                return  # a list it cannot read through is no complete list
            for raw in data:
                thread = read_thread(raw, self.memories)
                if isinstance(thread, str):
                    listing.reject("app-server thread/list", thread)
                else:
                    listing.threads.setdefault(thread.id, thread)
            cursor = page.get("nextCursor") if isinstance(page.get("nextCursor"), str) else None
            if not cursor:
                listing.complete = True
                return

    def _supplement(self, server: appserver.AppServer, candidates: list[str], listing: Listing) -> None:
        deadline = time.monotonic() + EXTRA_BUDGET_S
        reads = 0
        for thread_id in candidates:
            if thread_id in listing.threads or thread_id in self.live_ids:
                continue
            left = deadline - time.monotonic()
            if reads >= EXTRA_READS or left <= 0:
                return
            reads += 1
            try:
                thread = self._read(server, thread_id, left, listing)
            except TimeoutError:
                return
            except appserver.AppServerError as exc:
                if exc.code is None:
                    raise
                continue  # optional discovery: an unreadable candidate stays undiscovered
            if thread is not None:
                listing.threads[thread.id] = thread

    def close(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            server.close()
