"""What any token may read: who it is (`/api/me`), the list (`/api/state`) and the list live (`/api/events`).

The list comes from the one shared reading (`broadcast.Broadcast`): a stream gets each changed list as a
Server-Sent Event, a keep-alive while nothing changes, `revoked` when its token is taken away, and `replaced`
when newer streams of its token took its place (`broadcast.STREAMS_PER_TOKEN`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from lunavect.frontends.web.broadcast import KEEPALIVE
from lunavect.frontends.web.state import panel_of
from lunavect.frontends.web.walls import authenticate, on_this_machine

NO_STORE = {"Cache-Control": "no-store"}


async def me(request: Request) -> Response:
    """The token's role and what the page may offer with it (open, peek), and this machine's name."""
    token, _ = await authenticate(request)
    settings = panel_of(request).settings
    return JSONResponse(
        {
            "role": token.role,
            "can_open": token.can_change and on_this_machine(request),
            "can_peek": token.can_change and settings.allow_peek,
            "host": settings.hostname,
        },
        headers=NO_STORE,
    )


async def state(request: Request) -> Response:
    await authenticate(request)
    feed = panel_of(request).feed
    data = feed.latest if feed.subscribers and feed.latest is not None else await feed.refresh()
    return Response(data, media_type="application/json", headers=NO_STORE)


async def events(request: Request) -> Response:
    token, _ = await authenticate(request)
    feed = panel_of(request).feed
    subscriber = await feed.subscribe(token.id, token.can_change)

    async def stream() -> AsyncIterator[bytes]:
        try:
            yield b"retry: 2000\n\n"
            while True:
                data = await subscriber.next()
                if data is None:
                    if subscriber.why is not None:  # revoked, or replaced: the page does not reopen it
                        yield f"event: {subscriber.why}\ndata: {{}}\n\n".encode()
                    return
                yield b": keepalive\n\n" if data is KEEPALIVE else b"event: sessions\ndata: " + data + b"\n\n"
        finally:
            feed.unsubscribe(subscriber)

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={**NO_STORE, "X-Accel-Buffering": "no"},
    )


ROUTES = [
    Route("/api/me", me, methods=["GET"]),
    Route("/api/state", state, methods=["GET"]),
    Route("/api/events", events, methods=["GET"]),
]
