"""`/api/transitions`: the stream of state changes (`lunavect events`) as Server-Sent Events, for any token
that may view: each change one `transition` event whose id is its number, so a browser's EventSource (which
sends the last id it got as `Last-Event-ID` when it reconnects) or a script (`?since=N|TIME`) resumes exactly.

It rides on the live list's subscription (`broadcast.Broadcast.subscribe`): the same bounds per token and for
view-only tokens, the same end when its token is revoked or replaced, and the list's change signal as the
moment to look for new changes (at the latest every `LOOK_S`).
"""

from __future__ import annotations

import functools
import json
import sqlite3
import time
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from lunavect.events import log as changes_log
from lunavect.frontends.web.broadcast import KEEPALIVE_S
from lunavect.frontends.web.problems import BadRequest
from lunavect.frontends.web.state import panel_of
from lunavect.frontends.web.walls import authenticate

LOOK_S = 1.0
NO_STORE = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def _start(request: Request) -> changes_log.Since | None:
    """Where the stream starts: after `Last-Event-ID`, else `?since=`; None: after the newest change."""
    text = request.headers.get("last-event-id") or request.query_params.get("since")
    if text is None:
        return None
    try:
        return changes_log.parse_since(text)
    except ValueError as exc:
        raise BadRequest(f"since {exc}") from None


def _read(conn: sqlite3.Connection, *, since: changes_log.Since, host: str | None) -> list[changes_log.Change]:
    return changes_log.read(conn, since, host)


async def transitions(request: Request) -> Response:
    token, _ = await authenticate(request)
    start = _start(request)
    host = request.query_params.get("host") or None
    panel = panel_of(request)
    if start is None:
        start = changes_log.Since(seq=await panel.worker.run(changes_log.latest))
    subscriber = await panel.feed.subscribe(token.id, token.can_change)

    async def stream() -> AsyncIterator[bytes]:
        since = start
        quiet_since = time.monotonic()
        try:
            yield b"retry: 2000\n\n"
            while True:
                batch = await panel.worker.run(functools.partial(_read, since=since, host=host))
                for change in batch:
                    data = json.dumps(change.as_dict())
                    yield f"id: {change.seq}\nevent: transition\ndata: {data}\n\n".encode()
                if batch:
                    since, quiet_since = changes_log.Since(seq=batch[-1].seq), time.monotonic()
                    if len(batch) == changes_log.READ_AT_MOST:
                        continue
                if await subscriber.next(keepalive=LOOK_S) is None:
                    if subscriber.why is not None:  # revoked, or replaced: the page does not reopen it
                        yield f"event: {subscriber.why}\ndata: {{}}\n\n".encode()
                    return
                if time.monotonic() - quiet_since >= KEEPALIVE_S:
                    quiet_since = time.monotonic()
                    yield b": keepalive\n\n"
        finally:
            panel.feed.unsubscribe(subscriber)

    return StreamingResponse(stream(), media_type="text/event-stream", headers=NO_STORE)


ROUTES = [Route("/api/transitions", transitions, methods=["GET"])]
