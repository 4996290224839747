"""The collector's notifier: fed the transitions the collector committed, it decides on its own thread and
delivers there, so the collector's tick never waits for a notification server, a focus probe or a command.

Usage warnings (an account's rate-limit window past the person's threshold, `notify.usage`) are delivered
the same way, looked for after each batch and every `usage.CHECK_S` in between.

It needs no front end: it lives in the collector process (`lunavect daemon`, the service, or a collector a
front end started). Settings are read again for each batch, so a change applies at once. What it sent is
recorded in the store before it is shown (a crash between the two loses one notification rather than
repeating it after a restart).
"""

from __future__ import annotations

import functools
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from lunavect import store
from lunavect.core.model import Session
from lunavect.faults import Loop
from lunavect.notify import kinds, push, sent, usage
from lunavect.notify.command import run_command
from lunavect.notify.decide import Decider, Notification, Transition
from lunavect.notify.settings import NotifySettings, load

log = logging.getLogger("lunavect.notify")


class Stored(Protocol):
    """What the notifier reads of this machine's stored snapshot. The snapshot is the listing's and the
    collector's to read, and the listing is above the notifier: the process that runs the notifier hands it the
    listing's readers (`lunavect.listing.sessions`, which has both)."""

    def all_sessions(self, conn: sqlite3.Connection) -> list[Session]:
        """Every session, listed or not (a notification's session and its neighbours, to place it)."""
        ...

    def title_of(self, conn: sqlite3.Connection, key: str) -> str | None:
        """One session's title (what a notification names it by)."""
        ...

    def find_session(self, conn: sqlite3.Connection, key: str) -> Session | None:
        """The session a notification's click opens: this machine's, else another machine's listed row."""
        ...


class Shower(Protocol):
    """What shows a notification on the desktop (`desktop.Desktop`, or a test's stand-in)."""

    def send(self, note: Notification, sound: str) -> str: ...

    def withdraw(self, identifier: str) -> None: ...

    def close(self) -> None: ...


_STOP = object()
# At most this many notifications are remembered for withdrawal (the newest): a desktop shows a handful.
MAX_SHOWN = 256
# The notifier's name among the serving loops (`faults.Loop`, as `lunavect doctor` shows it).
LOOP_NAME = "notifier"


@dataclass
class _State:
    """What the notifier's thread keeps from one batch to the next."""

    conn: sqlite3.Connection
    decider: Decider
    desktop: Shower | None = None
    # Why the desktop cannot be reached at all (desktop-notifier missing): every desktop delivery fails with it.
    desktop_failed: str | None = None
    usage_at: float = 0.0
    stopped: bool = False
    # The thread that sends pushes (`push.Pusher`), made when a push is first due.
    pusher: push.Pusher | None = None
    # The notifications on the desktop whose reason may still hold, by their identifier: what each said of
    # each of its sessions (kind, needs). Withdrawn once none holds (`kinds.still_holds`).
    shown: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)


def this_host(_session: Session) -> bool:
    """The default "should this machine notify for this row": every row the collector commits is one of this
    machine's own sessions (other hosts' rows come through sync, not the snapshot). A person with several
    machines who wants one of them to speak for all passes another predicate."""
    return True


def hidden_ids(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT id FROM arrangement WHERE hidden = 1")}


class Notifier:
    """A `collector.loop.TransitionObserver`: call it with committed transitions; close it when the collector stops."""

    def __init__(
        self,
        connect: Callable[[], sqlite3.Connection] = store.connect,
        *,
        stored: Stored,
        ours: Callable[[Session], bool] = this_host,
        clock: Callable[[], float] = time.time,
        desktop: Callable[[Callable[[str], None]], Shower] | None = None,
        usage_every: float = usage.CHECK_S,
    ) -> None:
        self._connect = connect
        self._stored = stored
        self._usage_every = usage_every
        self._ours = ours
        self._clock = clock
        self._desktop_factory = desktop
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="lunavect-notifier", daemon=True)
        self._thread.start()

    def __call__(self, moved: list[Transition]) -> None:
        self._queue.put(moved)

    def close(self) -> None:
        self._queue.put(_STOP)
        self._thread.join(timeout=5)

    # -- the notifier's thread ------------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            conn = self._connect()
        except Exception:  # noqa: BLE001 - the notifier failing must never take the collector down
            log.exception("the notifier could not open the store")
            return
        state = _State(conn, Decider(already_sent=lambda key, mark: sent.was_sent(conn, key, mark), ours=self._ours))
        state.usage_at = self._clock()  # the rate-limit windows are looked at first at once, then every usage_every
        # One batch that raises (a figure no formatter expected, a notification server's odd answer) costs that
        # batch: it is logged, counted and shown by `doctor`, and the next batch is notified as usual.
        guard = Loop(LOOP_NAME, log, connect=self._connect)
        try:
            while not state.stopped:
                guard.step(lambda: self._batch(state))
        finally:
            if state.desktop is not None:
                state.desktop.close()
            if state.pusher is not None:
                state.pusher.close()
            conn.close()

    def _batch(self, state: _State) -> None:
        """Wait for the next transitions (or the next due time), then decide and deliver what is due."""
        conn, decider = state.conn, state.decider
        due_at = decider.next_due()
        wake = state.usage_at if due_at is None else min(due_at, state.usage_at)
        timeout = max(0.0, wake - self._clock())
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            item = None
        if item is _STOP:
            state.stopped = True
            return
        try:
            settings = load(conn)
            decider.policy = settings.policy()
            if isinstance(item, list):
                self._withdraw(state, item)
                self._offer(conn, decider, item)
            notes = decider.due(
                self._clock(), self._looking(conn, settings), lambda key: self._stored.title_of(conn, key)
            )
            for note in notes:
                sent.record(conn, note.items, self._clock())
        except sqlite3.Error as exc:  # a busy or damaged store costs this batch, not the notifier
            log.warning("notifications skipped: %s", exc)
            return
        now = self._clock()
        if isinstance(item, list) or now >= state.usage_at:
            state.usage_at = now + self._usage_every
            try:
                notes += usage.due(conn, settings, now)
            except sqlite3.Error as exc:
                log.warning("usage warnings skipped: %s", exc)
        for note in notes:
            outcome, reason = self._deliver(state, note, settings)
            if note.items:
                try:
                    sent.delivered(conn, note.items, outcome, reason)
                except sqlite3.Error as exc:
                    log.warning("the outcome of a notification was not recorded: %s", exc)

    def _deliver(self, state: _State, note: Notification, settings: NotifySettings) -> tuple[str, str | None]:
        """Show `note` on the desktop and give it to the command, as the settings say: sent (by either), failed
        (by every way tried, with the reasons) or not shown (no way is on)."""
        failures: list[str] = []
        delivered = False
        if settings.desktop:
            if state.desktop is None and state.desktop_failed is None:
                state.desktop, state.desktop_failed = self._make_desktop()
            failure = state.desktop_failed or (self._show(state, note, settings) if state.desktop else None)
            if failure:
                failures.append(f"desktop: {failure}")
            delivered = delivered or failure is None
        if settings.command:
            failure = run_command(settings.command, note)
            if failure:
                log.warning("%s", failure)
                failures.append(failure)
            delivered = delivered or failure is None
        if settings.push_config:
            # Handed to the push thread: its own outcome is counted there (`push.status`, doctor).
            if state.pusher is None:
                state.pusher = push.Pusher(self._connect, self._clock)
            public_url = store.get_setting(state.conn, push.PUBLIC_URL_SETTING)
            if state.pusher.offer(settings.push_config, settings.push_tag, push.push_of(note, public_url)):
                delivered = True
            else:
                push.record(state.conn, "too many pushes waiting to be sent", self._clock())
                failures.append("push: too many pushes waiting to be sent")
        if delivered:
            return sent.SENT, None
        if failures:
            return sent.FAILED, "; ".join(failures)
        return sent.NOT_SHOWN, "desktop notifications are off and neither a command nor push is set"

    def _offer(self, conn: sqlite3.Connection, decider: Decider, moved: list[Transition]) -> None:
        hidden = hidden_ids(conn) if moved else set()
        now = self._clock()
        for t in moved:
            if t.session.id in hidden:
                t = replace(t, hidden=True)
            outcome = decider.offer(t, now)
            if outcome != "no kind":
                log.info("no notification for %s (%s): %s", t.session.id, t.session.state, outcome)

    def _looking(self, conn: sqlite3.Connection, settings: NotifySettings) -> Callable[[str], bool]:
        if not settings.focus:
            return lambda _key: False

        def looking(key: str) -> bool:
            from lunavect.navigation.watched import looking_at

            sessions = self._stored.all_sessions(conn)
            found = next((s for s in sessions if s.id == key), None)
            if found is None:
                return False
            try:
                seen = looking_at(found, self._clock(), [s for s in sessions if s.id != key])
            except OSError:
                return False
            if seen:
                log.info("no notification for %s: its person is looking at it", key)
            return seen

        return looking

    def _make_desktop(self) -> tuple[Shower | None, str | None]:
        from lunavect.notify.desktop import Desktop, DesktopUnavailable

        factory: Callable[[Callable[[str], None]], Shower] = self._desktop_factory or Desktop
        try:
            return factory(functools.partial(open_from_notification, stored=self._stored)), None
        except DesktopUnavailable as exc:
            log.warning("desktop notifications are off: %s", exc)
            return None, str(exc)

    def _show(self, state: _State, note: Notification, settings: NotifySettings) -> str | None:
        """Show `note`; None when it was shown, else why not."""
        from lunavect.notify.desktop import DesktopUnavailable

        assert state.desktop is not None
        sound = settings.sound_for(note.kinds, tuple(i.project for i in note.items))
        try:
            identifier = state.desktop.send(note, sound)
        except DesktopUnavailable as exc:
            log.warning("%s", exc)
            return str(exc)
        if note.items:
            state.shown[identifier] = {i.key: (i.kind, i.needs) for i in note.items}
            for oldest in list(state.shown)[:-MAX_SHOWN]:
                del state.shown[oldest]  # long gone from any desktop: no longer worth withdrawing
        return None

    def _withdraw(self, state: _State, moved: list[Transition]) -> None:
        """Withdraw each notification on the desktop whose reason is gone for every session it named: the
        prompt was answered (here or in the pane), the session moved on or left the list."""
        from lunavect.notify.desktop import DesktopUnavailable

        now = {t.session.id: (t.session if t.listed else None) for t in moved}
        for identifier, said in list(state.shown.items()):
            for key in [key for key in said if key in now]:
                if not kinds.still_holds(*said[key], now[key]):
                    del said[key]
            if said:
                continue
            del state.shown[identifier]
            if state.desktop is not None:
                try:
                    state.desktop.withdraw(identifier)
                except DesktopUnavailable as exc:
                    log.info("a stale notification was not withdrawn: %s", exc)


def open_from_notification(key: str, *, stored: Stored) -> None:
    """A click on a notification (or its "Open"): the same code as `lunavect open`."""
    from lunavect.navigation.navigate import open_session

    try:
        conn = store.connect()
    except (store.StoreError, OSError) as exc:
        log.warning("cannot open %s: %s", key, exc)
        return
    try:
        # Another machine's session too: `open_session` opens it over ssh, as `lunavect open` does.
        found = stored.find_session(conn, key)
        sessions = stored.all_sessions(conn)
    finally:
        conn.close()
    if found is None:
        log.warning("cannot open %s: it is no longer in the store", key)
        return
    try:
        result = open_session(found, others=[s for s in sessions if s.id != key])
    except OSError as exc:
        log.warning("cannot open %s: %s", key, exc)
        return
    log.info("opened %s from a notification: %s", key, result.message)
