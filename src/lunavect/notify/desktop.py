"""Desktop notifications through desktop-notifier: D-Bus `org.freedesktop.Notifications` on Linux, the
notification centre on macOS. It runs its own asyncio loop on a thread of its own, because a click arrives
later as a signal on that loop; each send is bounded by `SEND_TIMEOUT_S`, so a notification server that hangs
costs one notification, never the notifier.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

from lunavect.notify.decide import Notification
from lunavect.notify.markup import body_text, title_text

log = logging.getLogger("lunavect.notify")

SEND_TIMEOUT_S = 5.0
APP_NAME = "lunavect"


class DesktopUnavailable(Exception):
    """desktop-notifier is not installed, or no notification server can be reached."""


class _Failures(logging.Handler):
    """desktop-notifier logs a failed send (with a traceback) instead of raising: keep its reason, show none."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.last: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        exc = record.exc_info[1] if record.exc_info else None
        self.last = f"{type(exc).__name__}: {exc}" if exc else record.getMessage()


_failures = _Failures()
_library_log = logging.getLogger("desktop_notifier")
_library_log.addHandler(_failures)
_library_log.propagate = False


class Desktop:
    """One connection to the platform's notification server. `on_open(session id)` runs on a click or "Open"."""

    def __init__(self, on_open: Callable[[str], None]) -> None:
        try:
            import desktop_notifier
        except ImportError as exc:  # an environment without it still runs the command hook
            raise DesktopUnavailable(f"desktop-notifier is not installed ({exc})") from None
        self._dn = desktop_notifier
        self._on_open = on_open
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="lunavect-desktop", daemon=True)
        self._thread.start()
        self._notifier = desktop_notifier.DesktopNotifier(app_name=APP_NAME, app_icon=None)

    def send(self, note: Notification, sound: str) -> str:
        """Show `note`; returns its identifier. Raises DesktopUnavailable when the server cannot be reached."""
        future = asyncio.run_coroutine_threadsafe(self._send(note, sound), self._loop)
        try:
            return future.result(timeout=SEND_TIMEOUT_S)
        except TimeoutError:
            future.cancel()
            raise DesktopUnavailable(f"the notification server did not answer within {SEND_TIMEOUT_S:g} s") from None
        except DesktopUnavailable:
            raise
        except Exception as exc:  # noqa: BLE001 - a bus or server failure is one failed delivery
            raise DesktopUnavailable(f"cannot show a notification: {exc}") from None

    async def _send(self, note: Notification, sound: str) -> str:
        dn = self._dn
        key = note.open_id

        def open_it() -> None:
            # Opening runs tmux and reads the store: off the loop, so other clicks and sends go on.
            if key is None:
                return
            threading.Thread(target=self._on_open, args=(key,), name="lunavect-open", daemon=True).start()

        dispatched = asyncio.Event()
        chosen = None
        if sound == "default":
            chosen = dn.DEFAULT_SOUND
        elif sound and sound != "none":
            chosen = dn.Sound(name=sound)
        urgency = dn.Urgency.Critical if {"permission", "input"} & set(note.kinds) else dn.Urgency.Normal
        _failures.last = None
        identifier = await self._notifier.send(
            title=title_text(note.title),
            message=body_text(note.body),
            urgency=urgency,
            buttons=[dn.Button(title="Open", on_pressed=open_it)] if key is not None else [],
            on_clicked=open_it if key is not None else None,
            on_dispatched=dispatched.set,
            sound=chosen,
        )
        if not dispatched.is_set():
            raise DesktopUnavailable(_failures.last or "the notification server refused it")
        return identifier

    def withdraw(self, identifier: str) -> None:
        """Take a notification shown before off the desktop (its reason is gone). Raises DesktopUnavailable when
        the server cannot be reached."""
        future = asyncio.run_coroutine_threadsafe(self._notifier.clear(identifier), self._loop)
        try:
            future.result(timeout=SEND_TIMEOUT_S)
        except TimeoutError:
            future.cancel()
            raise DesktopUnavailable(f"the notification server did not answer within {SEND_TIMEOUT_S:g} s") from None
        except Exception as exc:  # noqa: BLE001 - a bus or server failure is one failed withdrawal
            raise DesktopUnavailable(f"cannot withdraw a notification: {exc}") from None

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=2)
        with contextlib.suppress(RuntimeError):
            self._loop.close()
