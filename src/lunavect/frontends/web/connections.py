"""The web panel's connections: a deadline for each request to arrive, and a cap on how many are open at once.

uvicorn bounds neither. Its keep-alive timeout covers only the quiet time between requests (the first byte of
the next one cancels it), `limit_concurrency` answers 503 only once a whole head has arrived, and a head may
take forever. So 1,100 connections that each sent a header byte every 3 s held a server with 1,024
descriptors at its limit (`accept: EMFILE`), and the person's own requests were never served. On uvicorn's own
h11 protocol, then:

- each request must have arrived whole (head and body) within `REQUEST_S` of the connection's start, or of
  the end of the answer before it; a connection that has not managed that is closed;
- at most `cap` connections are open at once, well below the process's descriptor limit; one more closes the
  connection that has waited longest for its request (never one being answered: an open event stream stays),
  or itself at once when every open one is being answered.

A request of the person's own arrives in a millisecond, so it is served while any number of slow ones wait
their turn to be closed.

`H11Protocol`'s methods and attributes are uvicorn's private API (the web extra pins uvicorn below 1.0):
`h11_problem` checks the ones the gate relies on, and when a uvicorn release has changed them the panel is served
by uvicorn's own h11 protocol, without the gate, saying so in `lunavect web`'s output, its log and `doctor`.
"""

from __future__ import annotations

import asyncio
import inspect
import resource
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

# A browser sends a request in milliseconds, a phone on a poor network in a second or two.
REQUEST_S = 10.0
# How many connections asyncio accepts in one go before any of them is seen here; so also the listen backlog.
ACCEPT_BATCH = 64
# Descriptors kept for everything else: the store and its journal, the change feed, logs, a burst of accepts.
RESERVE = ACCEPT_BATCH + 128
MAX_OPEN = 4096
_ARRIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.SWITCHED_PROTOCOL)


# What GuardedH11 overrides of uvicorn's H11Protocol, and the attributes it reads there (tested on 0.30 to 0.55).
OVERRIDES = ("connection_made", "connection_lost", "data_received", "on_response_complete")
ATTRIBUTES = ("self.conn = ", "self.transport = ", "self.loop = ")


def h11_problem(protocol: type = H11Protocol) -> str | None:
    """Why the gate cannot ride on this uvicorn's h11 protocol (a method or attribute it relies on is gone), or
    None."""
    missing = [f"{name}()" for name in OVERRIDES if not callable(getattr(protocol, name, None))]
    try:
        source = inspect.getsource(protocol)
    except (OSError, TypeError):
        source = None  # no source to read (a zipped install): the methods are what can be checked
    if source is not None:
        missing += [name.strip(" =").removeprefix("self.") for name in ATTRIBUTES if name not in source]
    if not missing:
        return None
    return (
        f"uvicorn's H11Protocol has no {', '.join(missing)}: the web panel is served without its per-request "
        "deadline and connection cap (upgrade lunavect)"
    )


def default_cap() -> int:
    """How many connections may be open at once: what the descriptor limit leaves after the reserve."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MAX_OPEN
    return max(16, min(MAX_OPEN, soft - RESERVE))


class Gate:
    """One server's connections: how many are open, and which wait for a request, longest first."""

    def __init__(self, cap: int | None = None, request_s: float = REQUEST_S) -> None:
        self.cap = default_cap() if cap is None else cap
        self.request_s = request_s
        self.open = 0
        self.waiting: dict[GuardedH11, None] = {}  # insertion order: the one that waited longest first
        self.closed_slow = 0  # connections closed for being too slow, or to make room

    def protocol(self) -> type[GuardedH11]:
        """uvicorn's `http=` setting: its h11 protocol, guarded by this gate."""
        return type("Guarded", (GuardedH11,), {"gate": self})


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol with the gate's deadline and cap."""

    gate: Gate

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._deadline: asyncio.TimerHandle | None = None
        self._counted = False

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        gate = self.gate
        gate.open += 1
        self._counted = True
        if gate.open > gate.cap:
            oldest = next(iter(gate.waiting), None)
            if oldest is None:
                gate.closed_slow += 1
                transport.abort()  # every open connection is being answered: this one must wait its turn
                return
            oldest._too_slow()
        self._wait()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        if self._counted:
            self._counted = False
            self.gate.open -= 1
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in _ARRIVED:
            self._stop_waiting()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state not in _ARRIVED:
            self._wait()  # the next request (or the rest of this one) has its own deadline

    def _wait(self) -> None:
        self._stop_waiting()
        self._deadline = self.loop.call_later(self.gate.request_s, self._too_slow)
        self.gate.waiting[self] = None

    def _stop_waiting(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
        self.gate.waiting.pop(self, None)

    def _too_slow(self) -> None:
        """Closed now, unanswered: whatever it was sending had its time, or its place is wanted."""
        self._stop_waiting()
        if not self.transport.is_closing():
            self.gate.closed_slow += 1
            self.transport.abort()
