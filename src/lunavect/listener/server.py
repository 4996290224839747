"""Claude Code's HTTP hooks into the collector: a loopback listener that answers first and spools after.

A command hook costs the agent an interpreter start per event; an HTTP hook costs it a loopback POST.
But the client waits for the answer up to the hook's timeout (observed: a listener that accepts and never
answers holds the turn for the whole timeout, per hook), so this listener answers every request at once,
refuses anything that is not exactly lunavect's own hook, and never lets one request hold another:
each connection gets its own short-lived thread, a byte limit and a deadline, and the number of
connections at once is bounded, for all and for each user. An accepted event is appended to the spool with the shim's own append
code, after the answer, so normal ingestion stores it exactly once, the same as a command hook's line.

Who may speak: 127.0.0.1 only, the per-install secret (lunavect/hook_secret.py) in a header, and on Linux
only a connection whose other end belongs to this user (the kernel names its owner: host/loopback_peer.py).
The owner is asked as the connection is accepted, before it may take a slot: another user's connection is
closed at once, unread, so no other local user can hold a slot for even a moment (they once held all of them,
and every real hook was answered 503: Claude Code does not send it again).

The accept loop and each connection run under `lunavect.faults.Loop`: whatever fails in one is logged,
counted and shown by `lunavect doctor`, and the listener goes on with the next.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from lunavect.core.clients import CLAUDE
from lunavect.faults import Loop
from lunavect.host.loopback_peer import peer_uid
from lunavect.listener.request import (
    END,
    HEAD_READ_LIMIT,
    HOOK_PATH,
    MAX_BODY_BYTES,
    MAX_HEAD_BYTES,
    SECRET_HEADER,
    Refusal,
    body_length,
    head_end,
)
from lunavect.shim.jsoncodec import json_loads
from lunavect.shim.payload import extract
from lunavect.shim.spoolfile import SPOOL_FORMAT, append_record, new_id

__all__ = ["HOOK_PATH", "MAX_BODY_BYTES", "MAX_HEAD_BYTES", "SECRET_HEADER", "HookListener", "peer_uid"]
log = logging.getLogger(__name__)
LOOP_NAME = "hook listener"
# Tells `hooks status` that what answers at the port is this listener and not another program.
SERVER_HEADER = "Server: lunavect-hooks"
# A local client writes its request in well under a millisecond; a slower one is not a hook.
REQUEST_DEADLINE_S = 2.0
MAX_CONNECTIONS = 32
# No one user holds more than this many at once: where the kernel cannot name a peer's owner (not Linux),
# the peers it cannot tell apart count as one user, and they still leave the other half free.
MAX_PER_USER = MAX_CONNECTIONS // 2
# After a refusal of this user's own request: how much of the rest is read so the answer is not lost to a reset.
DRAIN_S = 0.5
DRAIN_BYTES = 1024 * 1024


_REASONS = {
    200: "OK",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    411: "Length Required",
    413: "Content Too Large",
    503: "Service Unavailable",
}


ProcessOf = Callable[[str], "dict | None"]


def _record(body: bytes, received: float, process_of: ProcessOf | None = None) -> dict:
    """The spool line for one accepted body: the shim's own filter, or a counted rejection. The request names
    no process, so `process_of` (the live catalog, by session id) gives the facts the shim reads from /proc."""
    base = {"v": SPOOL_FORMAT, "id": new_id(), "client": CLAUDE.id, "t": round(received, 6), "via": "http"}
    try:
        payload = json_loads(body.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return dict(base, rejected="not-json")
    if not isinstance(payload, dict):
        return dict(base, rejected="not-an-object")
    record = extract(CLAUDE.id, payload)
    if record is None:
        return dict(base, rejected="no-event-name")
    record.update(base)
    session_id = record.get("session")
    if process_of is not None and "pid" not in record and isinstance(session_id, str):
        try:
            record.update(process_of(session_id) or {})
        except Exception:  # noqa: BLE001 - without process facts the event still counts
            pass
    return record


class Slots:
    """How many connections are being served, in all and per user (their uid, None when unknown)."""

    def __init__(self, total: int = MAX_CONNECTIONS, per_user: int = MAX_PER_USER) -> None:
        self.total = total
        self.per_user = per_user
        self._held: dict[int | None, int] = {}
        self._lock = threading.Lock()

    def take(self, uid: int | None) -> bool:
        with self._lock:
            if sum(self._held.values()) >= self.total or self._held.get(uid, 0) >= self.per_user:
                return False
            self._held[uid] = self._held.get(uid, 0) + 1
            return True

    def give(self, uid: int | None) -> None:
        with self._lock:
            left = self._held.get(uid, 0) - 1
            if left > 0:
                self._held[uid] = left
            else:
                self._held.pop(uid, None)


class HookListener:
    """The listener on its own thread; `close()` stops it. `port` is where `hooks install --http` points."""

    def __init__(
        self,
        spool_file: str,
        secret: str,
        *,
        port: int = 0,
        owner_uid: int | None = None,
        uid_of: Callable[[tuple[str, int], tuple[str, int]], int | None] = peer_uid,
        deadline_s: float = REQUEST_DEADLINE_S,
        process_of: ProcessOf | None = None,
        guard: Loop | None = None,
    ) -> None:
        self._spool_file = spool_file
        self._secret = secret.encode("ascii")
        self._owner_uid = os.getuid() if owner_uid is None else owner_uid
        self._uid_of = uid_of
        self._deadline_s = deadline_s
        self._process_of = process_of
        self._guard = guard or Loop(LOOP_NAME, log)
        self._slots = Slots()
        self._sock = socket.create_server(("127.0.0.1", port))
        self._sock.settimeout(0.5)
        self._closed = threading.Event()
        self.port: int = self._sock.getsockname()[1]
        self.accepted = 0
        self.refused: dict[str, int] = {}
        self._counts = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name="lunavect-hook-listener", daemon=True)

    def start(self) -> HookListener:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def _refused(self, reason: str) -> None:
        with self._counts:
            self.refused[reason] = self.refused.get(reason, 0) + 1

    def _serve(self) -> None:
        while not self._closed.is_set():
            self._guard.step(self._accept)

    def _accept(self) -> None:
        """One connection: its owner asked before anything else, then a slot and a thread of its own."""
        try:
            conn, peer = self._sock.accept()
        except TimeoutError:
            return
        except OSError:
            if not self._closed.is_set():
                time.sleep(0.05)  # out of descriptors for a moment: never spin
            return
        try:
            self._admit(conn, peer)
        except BaseException:
            conn.close()
            raise

    def _admit(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        uid = self._uid_of(peer, conn.getsockname())
        if uid is not None and uid != self._owner_uid:
            # Another user's: answered if the answer fits at once, never read, closed now.
            self._refused("other-user")
            self._answer(conn, Refusal(403, "other-user"), wait=False)
            conn.close()
            return
        if not self._slots.take(uid):
            self._refused("busy")
            self._answer(conn, Refusal(503, "busy"), wait=False)
            conn.close()
            return
        try:
            threading.Thread(target=self._connection, args=(conn, uid), daemon=True).start()
        except BaseException:
            self._slots.give(uid)
            raise

    def _connection(self, conn: socket.socket, uid: int | None) -> None:
        try:
            received = time.time()
            outcome = self._read(conn)
            if isinstance(outcome, Refusal):
                self._refused(outcome.reason)
                self._answer(conn, outcome)
                self._drain(conn)
                return
            self._answer(conn, None)  # the agent goes on now; storing is the collector's time, not its
            conn.close()
            if append_record(self._spool_file, _record(outcome, received, self._process_of)):
                with self._counts:
                    self.accepted += 1
        except Exception as exc:  # noqa: BLE001 - one bad connection must never stop the listener
            self._guard.failed(exc)
        finally:
            conn.close()
            self._slots.give(uid)

    def _read(self, conn: socket.socket) -> bytes | Refusal:
        """The request's body, or why it is refused; reads at most the limits, within the deadline. While the
        head has not ended, no read goes past the head's limit, so the limit holds to the byte."""
        end = time.monotonic() + self._deadline_s
        buf = b""
        while True:
            found = head_end(buf)
            if isinstance(found, Refusal):
                return found
            if found is not None:
                break
            chunk = self._recv(conn, end, HEAD_READ_LIMIT - len(buf))
            if chunk is None:
                return Refusal(408, "too-slow")
            if not chunk:
                return Refusal(400, "incomplete")
            buf += chunk
        length = body_length(buf[: found - len(END)], self._secret)
        if isinstance(length, Refusal):
            return length
        body = buf[found:]
        while len(body) < length:
            chunk = self._recv(conn, end, min(65536, length - len(body)))
            if chunk is None:
                return Refusal(408, "too-slow")
            if not chunk:
                return Refusal(400, "incomplete")
            body += chunk
        return body[:length]

    @staticmethod
    def _recv(conn: socket.socket, end: float, most: int = 65536) -> bytes | None:
        """Up to `most` bytes; None when the deadline passed, b"" when the sender is gone."""
        remaining = end - time.monotonic()
        if remaining <= 0:
            return None
        conn.settimeout(remaining)
        try:
            return conn.recv(most)
        except TimeoutError:
            return None
        except OSError:
            return b""  # reset by the sender: as gone as a close

    @staticmethod
    def _drain(conn: socket.socket) -> None:
        """Read (and drop) a little of what the sender still sends before closing, within a short bound.

        Closing a socket with unread bytes makes the kernel reset the connection, and a reset may throw
        away the answer the sender has not read yet: a refused client would see an error, not the refusal.
        Only this user's own connections are drained; another user's never hold a slot that long."""
        try:
            conn.shutdown(socket.SHUT_WR)
            end, left = time.monotonic() + DRAIN_S, DRAIN_BYTES
            while left > 0:
                chunk = HookListener._recv(conn, end)
                if not chunk:
                    return
                left -= len(chunk)
        except OSError:
            pass

    @staticmethod
    def _answer(conn: socket.socket, refusal: Refusal | None, *, wait: bool = True) -> None:
        """The status line; with `wait=False`, only what the socket takes at once (the accept loop never waits
        on a sender)."""
        status = 200 if refusal is None else refusal.status
        line = f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\nContent-Length: 0\r\nConnection: close\r\n{SERVER_HEADER}\r\n\r\n"
        try:
            if wait:
                conn.settimeout(1.0)
                conn.sendall(line.encode("ascii"))
            else:
                conn.send(line.encode("ascii"), socket.MSG_DONTWAIT)
        except OSError:
            pass
