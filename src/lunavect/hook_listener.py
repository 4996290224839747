"""Claude Code's HTTP hooks into the collector: a loopback listener that answers first and spools after.

A command hook costs the agent an interpreter start per event; an HTTP hook costs it a loopback POST.
But the client waits for the answer up to the hook's timeout (observed: a listener that accepts and never
answers holds the turn for the whole timeout, per hook), so this listener answers every request at once,
refuses anything that is not exactly lunavect's own hook, and never lets one request hold another:
each connection gets its own short-lived thread, a byte limit and a deadline, and the number of
connections at once is bounded. An accepted event is appended to the spool with the shim's own append
code, after the answer, so normal ingestion stores it exactly once, the same as a command hook's line.

Who may speak: 127.0.0.1 only, the per-install secret (lunavect/hook_secret.py) in a header, and on Linux
only a connection whose other end belongs to this user (the kernel names its owner: host/loopback_peer.py).
"""

from __future__ import annotations

import hmac
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from lunavect.claude.http_hooks import HOOK_PATH
from lunavect.claude.http_hooks import SECRET_HEADER as _SECRET_HEADER
from lunavect.host.loopback_peer import peer_uid
from lunavect.shim.jsoncodec import json_loads
from lunavect.shim.payload import extract
from lunavect.shim.spoolfile import SPOOL_FORMAT, append_record, new_id

__all__ = ["HOOK_PATH", "SECRET_HEADER", "HookListener", "peer_uid"]
SECRET_HEADER = _SECRET_HEADER.lower()  # header names are compared lower-cased
# Tells `hooks status` that what answers at the port is this listener and not another program.
SERVER_HEADER = "Server: lunavect-hooks"
# Claude's hook payloads are a few KB; a PostToolUse carries the tool's output, kept whole up to this size.
MAX_BODY_BYTES = 8 * 1024 * 1024
MAX_HEAD_BYTES = 16 * 1024
# A local client writes its request in well under a millisecond; a slower one is not a hook.
REQUEST_DEADLINE_S = 2.0
MAX_CONNECTIONS = 32
# After a refusal: how much of the rest of the request is read so the answer is not lost to a reset.
DRAIN_S = 0.5
DRAIN_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str


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
    base = {"v": SPOOL_FORMAT, "id": new_id(), "client": "claude", "t": round(received, 6), "via": "http"}
    try:
        payload = json_loads(body.decode("utf-8", errors="replace"))
    except (ValueError, RecursionError):
        return dict(base, rejected="not-json")
    if not isinstance(payload, dict):
        return dict(base, rejected="not-an-object")
    record = extract("claude", payload)
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
    ) -> None:
        self._spool_file = spool_file
        self._secret = secret.encode("ascii")
        self._owner_uid = os.getuid() if owner_uid is None else owner_uid
        self._uid_of = uid_of
        self._deadline_s = deadline_s
        self._process_of = process_of
        self._slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self._sock = socket.create_server(("127.0.0.1", port))
        self._sock.settimeout(0.5)
        self._closed = threading.Event()
        self.port: int = self._sock.getsockname()[1]
        self.accepted = 0
        self.refused: dict[str, int] = {}
        self._thread = threading.Thread(target=self._serve, name="lunavect-hook-listener", daemon=True)

    def start(self) -> HookListener:
        self._thread.start()
        return self

    def close(self) -> None:
        self._closed.set()
        self._thread.join(timeout=5)
        self._sock.close()

    def _serve(self) -> None:
        while not self._closed.is_set():
            try:
                conn, peer = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._closed.is_set():
                    return
                time.sleep(0.05)  # out of descriptors for a moment: never spin
                continue
            if not self._slots.acquire(blocking=False):
                self._answer(conn, Refusal(503, "busy"))
                conn.close()
                continue
            threading.Thread(target=self._connection, args=(conn, peer), daemon=True).start()

    def _connection(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        try:
            received = time.time()
            outcome = self._read(conn, peer)
            if isinstance(outcome, Refusal):
                self.refused[outcome.reason] = self.refused.get(outcome.reason, 0) + 1
                self._answer(conn, outcome)
                self._drain(conn)
                return
            self._answer(conn, None)  # the agent goes on now; storing is the collector's time, not its
            conn.close()
            if append_record(self._spool_file, _record(outcome, received, self._process_of)):
                self.accepted += 1
        except Exception:  # noqa: BLE001 - one bad connection must never stop the listener
            pass
        finally:
            conn.close()
            self._slots.release()

    def _read(self, conn: socket.socket, peer: tuple[str, int]) -> bytes | Refusal:
        """The request's body, or why it is refused; reads at most the limits, within the deadline."""
        uid = self._uid_of(peer, conn.getsockname())
        if uid is not None and uid != self._owner_uid:
            return Refusal(403, "other-user")
        end = time.monotonic() + self._deadline_s
        buf = b""
        while b"\r\n\r\n" not in buf:
            if len(buf) > MAX_HEAD_BYTES:
                return Refusal(413, "head-too-large")
            chunk = self._recv(conn, end)
            if chunk is None:
                return Refusal(408, "too-slow")
            if not chunk:
                return Refusal(400, "incomplete")
            buf += chunk
        head, _, body = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3:
            return Refusal(400, "bad-request-line")
        method, path = parts[0], parts[1]
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if not sep:
                return Refusal(400, "bad-header")
            headers[name.strip().lower()] = value.strip()
        if path != HOOK_PATH:
            return Refusal(404, "wrong-path")
        if method != "POST":
            return Refusal(405, "wrong-method")
        if not hmac.compare_digest(headers.get(SECRET_HEADER, "").encode("latin-1"), self._secret):
            return Refusal(403, "wrong-secret")
        try:
            length = int(headers["content-length"])
        except (KeyError, ValueError):
            return Refusal(411, "no-length")
        if length < 0 or length > MAX_BODY_BYTES:
            return Refusal(413, "too-large")  # refused before a byte of it is read
        while len(body) < length:
            chunk = self._recv(conn, end)
            if chunk is None:
                return Refusal(408, "too-slow")
            if not chunk:
                return Refusal(400, "incomplete")
            body += chunk
        return body[:length]

    @staticmethod
    def _recv(conn: socket.socket, end: float) -> bytes | None:
        remaining = end - time.monotonic()
        if remaining <= 0:
            return None
        conn.settimeout(remaining)
        try:
            return conn.recv(65536)
        except TimeoutError:
            return None

    @staticmethod
    def _drain(conn: socket.socket) -> None:
        """Read (and drop) a little of what the sender still sends before closing, within a short bound.

        Closing a socket with unread bytes makes the kernel reset the connection, and a reset may throw
        away the answer the sender has not read yet: a refused client would see an error, not the refusal."""
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
    def _answer(conn: socket.socket, refusal: Refusal | None) -> None:
        status = 200 if refusal is None else refusal.status
        line = f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\nContent-Length: 0\r\nConnection: close\r\n{SERVER_HEADER}\r\n\r\n"
        try:
            conn.settimeout(1.0)
            conn.sendall(line.encode("ascii"))
        except OSError:
            pass
