"""The web panel's routes: the page, its files, the live list as Server-Sent Events, and the row actions.

Every arrangement goes through `lunavect.listing.arrangement` and "open" through `lunavect.navigation.navigate`, the same
code as the CLI and the terminal panel. Every request passes the walls of `guard` first (Host, token, rate
limit; Origin and the control role for changes), and every failure is a one-line JSON error with its status,
never a traceback page.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import msgspec
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lunavect.core.model import Session
from lunavect.faults import Loop
from lunavect.frontends.web import assets, guard, peek, tokens
from lunavect.frontends.web.broadcast import KEEPALIVE, LOOP_NAME, Broadcast, StoreWorker
from lunavect.host.name import machine_name
from lunavect.listing import arrangement, changes
from lunavect.listing.sessions import read_sessions
from lunavect.store import StoreError

log = logging.getLogger("lunavect.web")

COOKIE = "lunavect_web"
COOKIE_MAX_AGE_S = 400 * 86400  # browsers cap cookies at 400 days
MAX_BODY = 4096
ROW_ACTIONS = ("pin", "unpin", "hide", "unhide", "open")
LOOPBACK = ("127.0.0.1", "::1")


class Problem(Exception):
    """A request the panel refuses, with the status and the one line that says why."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


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


class Walls:
    """Pure ASGI middleware: a Host that is not ours is refused before anything runs, and every answer carries
    the security headers (streams included, which is why this is not a BaseHTTPMiddleware)."""

    def __init__(self, app: ASGIApp, allowed_hosts: tuple[str, ...] = ()) -> None:
        self.app = app
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        extra = [(k.encode(), v.encode()) for k, v in guard.SECURITY_HEADERS.items()]

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        if not guard.host_allowed(host, self.allowed_hosts):
            response = JSONResponse({"error": "this server does not answer to that Host name"}, status_code=421)
            await response(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers or {})


def create_app(settings: Settings) -> Starlette:
    """The panel's application for one store."""
    worker = StoreWorker(settings.connect)
    feed = Broadcast(worker, guard=Loop(LOOP_NAME, log, connect=settings.connect))
    files = assets.load()
    histories: dict[str, arrangement.HideHistory] = {}

    # -- walls ----------------------------------------------------------------------------------------------

    def client_address(request: Request) -> str:
        return request.client.host if request.client else "?"

    async def authenticate(request: Request, *, query: bool = False) -> tuple[tokens.Token, str | None]:
        """The token this request carries (cookie, bearer header or, for the page, `?token=`); the second value
        is a secret from the URL to turn into a cookie."""
        from_url = request.query_params.get("token") if query else None
        secret = from_url or request.cookies.get(COOKIE)
        header = request.headers.get("authorization", "")
        if not secret and header.lower().startswith("bearer "):
            secret = header[7:].strip()
        if not secret:
            raise Problem(401, "a token is needed: open the link `lunavect web` printed")
        # A right token is never refused, whatever was tried from this address before (guard.FailureLimiter).
        address, digest = client_address(request), tokens.digest(secret)
        if not settings.limiter.known_wrong(address, digest):
            token = tokens.verify(await worker.run(tokens.list_tokens), secret)
            if token is not None:
                return token, from_url
        wait = settings.limiter.blocked(address)
        settings.limiter.failed(address, digest)
        if wait:
            raise Problem(429, "too many wrong tokens: try again later", {"Retry-After": str(int(wait) + 1)})
        raise Problem(401, "this token is not valid (revoked, or mistyped)")

    async def control(request: Request) -> tokens.Token:
        """A change: it must come from our own page (Origin) and carry a control token."""
        scheme = "https" if settings.tls else "http"
        if not guard.same_origin(request.headers.get("origin"), request.headers.get("host"), scheme):
            raise Problem(403, "changes are accepted only from the panel's own page (Origin)")
        token, _ = await authenticate(request)
        if not token.can_change:
            raise Problem(403, "this token is view-only: it cannot change the list")
        return token

    async def body_json(request: Request) -> dict[str, object]:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise Problem(415, "send the request body as application/json")
        try:
            declared = int(request.headers.get("content-length") or 0)
        except ValueError:
            raise Problem(400, "malformed Content-Length") from None
        if declared > MAX_BODY:
            raise Problem(413, f"the request body is over {MAX_BODY} bytes")
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_BODY:
                raise Problem(413, f"the request body is over {MAX_BODY} bytes")
        if not body.strip():
            return {}
        try:
            value = msgspec.json.decode(body)
        except msgspec.DecodeError:
            raise Problem(400, "the request body is not valid JSON") from None
        except RecursionError:
            raise Problem(400, "the request body is nested too deep") from None
        if not isinstance(value, dict):
            raise Problem(400, "the request body must be a JSON object")
        return value

    # -- the page and its files -----------------------------------------------------------------------------

    def asset_response(request: Request, name: str, status: int = 200) -> Response:
        asset = files.get(name)
        if asset is None:
            raise Problem(404, "no such file")
        headers = {"ETag": asset.etag, "Cache-Control": "no-cache"}
        if status == 200 and request.headers.get("if-none-match") == asset.etag:
            return Response(status_code=304, headers=headers)
        return Response(asset.body, status_code=status, media_type=asset.media_type, headers=headers)

    async def page(request: Request) -> Response:
        try:
            _, from_url = await authenticate(request, query=True)
        except Problem as problem:
            if problem.status in (401, 429):
                return asset_response(request, "locked.html", problem.status)
            raise
        response = asset_response(request, "index.html")
        response.headers["Cache-Control"] = "no-store"
        if from_url:
            # The page removes the token from the address bar (app.js); from now on the cookie carries it,
            # unreadable by scripts and never sent by another site's page.
            response.set_cookie(
                COOKIE,
                from_url,
                max_age=COOKIE_MAX_AGE_S,
                httponly=True,
                samesite="strict",
                secure=settings.tls,
                path="/",
            )
        return response

    async def static(request: Request) -> Response:
        return asset_response(request, request.path_params["name"])

    # -- reading --------------------------------------------------------------------------------------------

    async def me(request: Request) -> Response:
        token, _ = await authenticate(request)
        return JSONResponse(
            {
                "role": token.role,
                "can_open": token.can_change and client_address(request) in LOOPBACK,
                "can_peek": token.can_change and settings.allow_peek,
                "host": settings.hostname,
            },
            headers={"Cache-Control": "no-store"},
        )

    async def state(request: Request) -> Response:
        await authenticate(request)
        data = feed.latest if feed.subscribers and feed.latest is not None else await feed.refresh()
        return Response(data, media_type="application/json", headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        token, _ = await authenticate(request)
        subscriber = await feed.subscribe(token.id)

        async def stream() -> AsyncIterator[bytes]:
            try:
                yield b"retry: 2000\n\n"
                while True:
                    data = await subscriber.next()
                    if data is None:
                        if subscriber.revoked:
                            yield b"event: revoked\ndata: {}\n\n"
                        return
                    yield b": keepalive\n\n" if data is KEEPALIVE else b"event: sessions\ndata: " + data + b"\n\n"
            finally:
                feed.unsubscribe(subscriber)

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )

    # -- changing -------------------------------------------------------------------------------------------

    async def find(key: str) -> tuple[str, Session | None, list[Session]]:
        def look(conn: sqlite3.Connection) -> tuple[str, Session | None, list[Session]]:
            resolved = arrangement.resolve_id(conn, key)
            listed = read_sessions(conn, include_hidden=True)
            return resolved, next((s for s in listed if s.id == resolved), None), listed

        return await worker.run(look)

    async def row_action(request: Request) -> Response:
        token = await control(request)
        action = request.path_params["action"]
        if action not in ROW_ACTIONS:
            raise Problem(404, f"no action {action!r} (one of {', '.join(ROW_ACTIONS)})")
        await body_json(request)
        key, session, listed = await find(request.path_params["id"])
        if action == "open":
            return await open_row(request, session, listed)
        if action == "hide":
            history = histories.setdefault(token.id, arrangement.HideHistory())
            changed = await worker.run(lambda conn: history.hide(conn, key))
        else:
            do = {"pin": arrangement.pin, "unpin": arrangement.unpin, "unhide": arrangement.unhide}[action]
            changed = await worker.run(lambda conn: do(conn, key))
        return JSONResponse({"id": key, "action": action, "changed": changed})

    async def open_row(request: Request, session: Session | None, listed: list[Session]) -> Response:
        if session is None:
            raise Problem(404, "that session is not in the list")
        if client_address(request) not in LOOPBACK or session.host != settings.hostname:
            raise Problem(409, "open works only in a browser on the session's own machine: copy its resume command")
        from lunavect.navigation.navigate import open_session

        others = [s for s in listed if s.id != session.id]
        result = await asyncio.to_thread(open_session, session, resume_in=None, others=others)
        return JSONResponse(result.as_dict())

    async def move(request: Request) -> Response:
        await control(request)
        body = await body_json(request)
        before, after = body.get("before"), body.get("after")
        if (before is None) == (after is None) or not isinstance(before or after, str):
            raise Problem(400, 'give exactly one of "before" or "after", a session id')
        key, _, _ = await find(request.path_params["id"])
        target, _, _ = await find(str(before or after))
        shift = arrangement.move_before if before is not None else arrangement.move_after
        changed = await worker.run(lambda conn: shift(conn, key, target))
        return JSONResponse({"id": key, "changed": changed})

    async def undo(request: Request) -> Response:
        token = await control(request)
        await body_json(request)
        history = histories.get(token.id)
        restored = await worker.run(history.undo) if history is not None else None
        return JSONResponse({"restored": restored})

    # -- failures -------------------------------------------------------------------------------------------

    async def problem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Problem)
        return _error(exc.status, exc.message, exc.headers)

    async def http_problem(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        return _error(exc.status_code, str(exc.detail))

    async def arrange_problem(request: Request, exc: Exception) -> Response:
        text = str(exc)
        return _error(404 if text.startswith("no session") else 409, text)

    async def store_problem(request: Request, exc: Exception) -> Response:
        return _error(503, f"the store cannot be used right now: {exc}")

    async def unexpected(request: Request, exc: Exception) -> Response:
        log.exception("unexpected failure on %s %s", request.method, request.url.path)
        return _error(500, "internal error (the server's log says more)")

    # -- life -----------------------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # The change feed shared by every front end: the collector's notice of each commit that changes what a
        # row shows (or PRAGMA data_version checks while no collector runs).
        shared: changes.Feed | None = None
        if settings.changes is not None:
            signals = settings.changes()
        else:
            shared = changes.Feed()
            signals = shared.changes()
        app.state.loop = asyncio.get_running_loop()
        tasks = [asyncio.create_task(feed.follow(signals)), asyncio.create_task(feed.tick())]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            feed.close_all()
            await asyncio.gather(*tasks, return_exceptions=True)
            if shared is not None:
                shared.close()
            await asyncio.to_thread(worker.close)

    handler = Callable[[Request], Awaitable[Response]]
    routes: list[tuple[str, handler, list[str]]] = [
        ("/", page, ["GET"]),
        ("/static/{name}", static, ["GET"]),
        ("/api/me", me, ["GET"]),
        ("/api/state", state, ["GET"]),
        ("/api/events", events, ["GET"]),
        ("/api/sessions/{id}/move", move, ["POST"]),
        *peek.routes(peek.Walls(settings.allow_peek, settings.hostname, control, find, body_json, Problem)),
        ("/api/sessions/{id}/{action}", row_action, ["POST"]),
        ("/api/undo", undo, ["POST"]),
    ]
    app = Starlette(
        routes=[Route(path, endpoint, methods=methods) for path, endpoint, methods in routes],
        middleware=[
            Middleware(Walls, allowed_hosts=settings.allowed_hosts),
            Middleware(GZipMiddleware, minimum_size=800),
        ],
        exception_handlers={
            Problem: problem,
            HTTPException: http_problem,
            arrangement.ArrangeError: arrange_problem,
            sqlite3.Error: store_problem,
            StoreError: store_problem,
            Exception: unexpected,
        },
        lifespan=lifespan,
    )
    app.state.feed = feed
    return app
