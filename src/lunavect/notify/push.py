"""Push to a phone through Apprise (the `push` extra): the notifications of the kinds the person chose also go
to every service of an Apprise configuration file (ntfy, Gotify, Pushover, Telegram, Matrix, e-mail, ...).

lunavect keeps only the file's path and a tag (`notifications push set FILE [--tag T]`): the services' URLs,
which hold their tokens, stay in the person's file. A push says what the desktop notification says (title and
body: never a prompt, a reply or a command), with the link that opens the session's row in the web panel when
it has a public address (`lunavect web --public-url URL`): the link carries no token, the page asks for it.

Sending waits on the network, so it runs on a thread of its own (`Pusher`): the notifier hands a notification
over and goes on. Each send's outcome is counted in the store, with the last failure's reason (the last line
Apprise logged), for `notifications push status` and `lunavect doctor`.
"""

from __future__ import annotations

import json
import logging
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from lunavect import store
from lunavect.core.extras import needs_extra
from lunavect.core.terminal_text import clean
from lunavect.notify.decide import Notification

log = logging.getLogger("lunavect.notify")

# The web panel's public address (`lunavect web --public-url`), read here to make a push's link.
PUBLIC_URL_SETTING = "web.public_url"
SENT_COUNTER, FAILED_COUNTER = "push.sent", "push.failed"
LAST_SENT, LAST_FAILURE = "push.last_sent", "push.last_failure"
MISSING = needs_extra("push notifications", "push")
# The kinds that need their person now: pushed with a raised priority where the service has one.
URGENT_KINDS = frozenset({"permission", "input", "error"})
# A service's raised priority, by Apprise's service name, used only where the person's URL left the default.
RAISED_PRIORITY: dict[str, object] = {"ntfy": "high", "Gotify": 8}
# Pushes waiting for the sending thread at most; more are dropped and counted as failed.
QUEUE_AT_MOST = 100
REASON_CHARS = 300


class PushError(Exception):
    """The configuration cannot be used (no extra, no file, no service in it): one line saying why."""


def check_public_url(text: str) -> str:
    """The web panel's public address as a person gives it: http(s), a host, no credentials, query or fragment."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("takes an http:// or https:// address with a host (e.g. https://desk.example.ts.net:8765)")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError("takes the panel's address only: no user, password, query or fragment (never a token)")
    return text.strip().rstrip("/")


def link_for(public_url: str | None, key: str | None) -> str | None:
    """The address that opens `key`'s row in the web panel (the page asks for its token), or None."""
    if not public_url or not key:
        return None
    return f"{public_url}/#session={quote(key, safe=':')}"


def _apprise() -> Any:
    try:
        import apprise
    except ImportError as exc:
        raise PushError(f"{MISSING} ({exc})") from None
    return apprise


def load(config: str, tag: str | None) -> tuple[Any, int]:
    """The Apprise object of `config`, and how many of its services `tag` selects (all when None)."""
    apprise = _apprise()
    path = Path(config)
    if not path.is_file():
        raise PushError(f"the Apprise configuration {config} is not a file")
    try:
        path.open("rb").close()
    except OSError as exc:
        raise PushError(f"cannot read the Apprise configuration {config}: {exc.strerror or exc}") from None
    settings = apprise.AppriseConfig()
    settings.add(str(path))
    sender = apprise.Apprise()
    sender.add(settings)
    chosen = list(sender.find(tag)) if tag else list(sender)
    return sender, len(chosen)


@dataclass(frozen=True)
class Push:
    """One push: what it says (the desktop notification's words), its link, and whether it is urgent."""

    title: str
    body: str
    link: str | None
    urgent: bool


def push_of(note: Notification, public_url: str | None) -> Push:
    link = link_for(public_url, note.open_id)
    urgent = bool(URGENT_KINDS & set(note.kinds))
    return Push(note.title, note.body if link is None else f"{note.body}\n{link}", link, urgent)


def send(config: str, tag: str | None, push: Push) -> str | None:
    """Send `push` to the configuration's services (those of `tag`); None when every one took it, else the
    reason in one line (the last line Apprise logged)."""
    apprise = _apprise()
    try:
        sender, chosen = load(config, tag)
    except PushError as exc:
        return str(exc)
    if not chosen:
        return f"no service in {config}" + (f" has the tag {tag}" if tag else "")
    for service in sender.find(tag) if tag else sender:
        _dress(service, push)
    kind = apprise.NotifyType.WARNING if push.urgent else apprise.NotifyType.INFO
    with apprise.LogCapture(level=logging.WARNING, fmt="%(message)s") as captured:
        ok = sender.notify(title=push.title, body=push.body, notify_type=kind, tag=tag or apprise.common.MATCH_ALL_TAG)
        said = captured.getvalue()
    if ok:
        return None
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    return clean(lines[-1] if lines else "a service did not take the push", REASON_CHARS)


def _dress(service: Any, push: Push) -> None:
    """Give one service the push's link and priority where it has a place for them and the person's URL did
    not set one (ntfy's click action, ntfy's and Gotify's priority)."""
    if push.link and hasattr(service, "click") and service.click is None:
        service.click = push.link
    raised = RAISED_PRIORITY.get(str(getattr(service, "service_name", "")))
    if push.urgent and raised is not None and hasattr(service, "priority"):
        default = type(service).template_args.get("priority", {}).get("default")
        if service.priority in (None, default):
            service.priority = raised


def record(conn: sqlite3.Connection, failure: str | None, now: float) -> None:
    """Count one send and keep the last failure's reason (with its time) for status and doctor."""
    with store.transaction(conn):
        if failure is None:
            store.bump_counter(conn, SENT_COUNTER)
            store.set_collector_value(conn, LAST_SENT, repr(now))
        else:
            store.bump_counter(conn, FAILED_COUNTER)
            store.set_collector_value(conn, LAST_FAILURE, json.dumps({"at": now, "reason": failure}))


def status(conn: sqlite3.Connection) -> dict[str, object]:
    """How pushing went: sends and failures counted, the last failure and whether it came after the last send."""
    counted = store.counters(conn)
    values = store.collector_values(conn)
    failure: dict[str, object] | None = None
    try:
        raw = json.loads(values.get(LAST_FAILURE) or "null")
        if isinstance(raw, dict):
            failure = {"at": float(raw["at"]), "reason": str(raw["reason"])}
    except (ValueError, KeyError, TypeError):
        failure = None
    try:
        last_sent = float(values.get(LAST_SENT) or 0.0) or None
    except ValueError:
        last_sent = None
    failing = failure is not None and (last_sent is None or float(str(failure["at"])) > last_sent)
    return {
        "sent": counted.get(SENT_COUNTER, 0),
        "failed": counted.get(FAILED_COUNTER, 0),
        "last_sent": last_sent,
        "last_failure": failure,
        "failing": failing,
    }


class Pusher:
    """The sending thread: `offer` hands a push over and returns at once; `close` lets it finish."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], clock: Callable[[], float] = time.time) -> None:
        self._connect = connect
        self._clock = clock
        self._queue: queue.Queue[tuple[str, str | None, Push] | None] = queue.Queue(QUEUE_AT_MOST)
        self._thread = threading.Thread(target=self._run, name="lunavect-push", daemon=True)
        self._thread.start()

    def offer(self, config: str, tag: str | None, push: Push) -> bool:
        """Queue `push`; False (and nothing queued) when the thread is this far behind."""
        try:
            self._queue.put_nowait((config, tag, push))
        except queue.Full:
            return False
        return True

    def close(self, timeout: float = 5.0) -> None:
        try:
            self._queue.put(None, timeout=timeout)
        except queue.Full:
            return
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            conn = self._connect()
        except Exception:  # noqa: BLE001 - pushing failing must never take the collector down
            log.exception("push: cannot open the store")
            return
        try:
            while (item := self._queue.get()) is not None:
                config, tag, push = item
                try:
                    failure = send(config, tag, push)
                except Exception as exc:  # noqa: BLE001 - a service plugin's surprise costs this push only
                    failure = clean(f"{type(exc).__name__}: {exc}", REASON_CHARS)
                if failure is not None:
                    log.warning("push failed: %s", failure)
                try:
                    record(conn, failure, self._clock())
                except sqlite3.Error as exc:
                    log.warning("push: the outcome was not recorded: %s", exc)
        finally:
            conn.close()
