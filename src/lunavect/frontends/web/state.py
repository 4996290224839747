"""What every route of the web panel shares, kept on `app.state` and read through `panel_of(request)`.

Starlette hands each endpoint its request and nothing else; `request.app.state` is its place for what lives as
long as the application (Starlette's "Applications" guide). One typed `Panel` there, rather than loose
attributes, lets the route modules and the walls be plain functions that a type checker follows. The panel is
kept on `app.state` rather than in a lifespan's state (which only requests see) because the server's signal
handler also needs its live list, outside any request (server.serve).
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from starlette.requests import Request

from lunavect.core.model import Session
from lunavect.frontends.web import guard
from lunavect.frontends.web.assets import Asset
from lunavect.frontends.web.broadcast import Broadcast, StoreWorker
from lunavect.host.name import machine_name
from lunavect.listing import arrangement
from lunavect.listing.sessions import read_sessions


@dataclass
class Settings:
    """How this server was started."""

    connect: Callable[[], sqlite3.Connection]
    allowed_hosts: tuple[str, ...] = ()
    tls: bool = False
    hostname: str = field(default_factory=machine_name)
    limiter: guard.FailureLimiter = field(default_factory=guard.FailureLimiter)
    # Whether a control token may read a session's messages, reply and answer its permission (--allow-peek).
    allow_peek: bool = False
    # Where the signals of a change come from: the shared change feed (lunavect.listing.changes) unless a test gives
    # its own.
    changes: Callable[[], AsyncIterator[None]] | None = None
    # How many connections may be open at once (`connections.Gate`); None: what the descriptor limit leaves.
    max_connections: int | None = None


class Found(NamedTuple):
    """The session a request names: its full id, its row (None when it is no longer listed) and the whole list,
    which "open" and a reply need to tell a session's terminal from its neighbours'."""

    key: str
    session: Session | None
    listed: list[Session]


@dataclass
class Panel:
    """One server's parts: its settings, its one store connection, the live list every browser shares, the page's
    files, and each control token's own undo history of hides."""

    settings: Settings
    worker: StoreWorker
    feed: Broadcast
    files: dict[str, Asset]
    histories: dict[str, arrangement.HideHistory] = field(default_factory=dict)
    # The event loop that serves, once started: a stop asked from a signal handler reaches the streams through it.
    loop: asyncio.AbstractEventLoop | None = None

    async def find(self, text: str) -> Found:
        """The session a person names (a full id, a session id or a unique prefix, as in the CLI); an unknown one
        raises `arrangement.UnknownSession`, which the panel answers 404."""

        def look(conn: sqlite3.Connection) -> Found:
            key = arrangement.resolve_id(conn, text)
            listed = read_sessions(conn, include_hidden=True)
            return Found(key, next((s for s in listed if s.id == key), None), listed)

        return await self.worker.run(look)


def panel_of(request: Request) -> Panel:
    panel: Panel = request.app.state.panel
    return panel
