"""The web panel's walls as functions of the request: who is asking, whether they may change anything, and the
body they sent.

Every route calls them first, in this order: `authenticate` (a token, with the rate limit per address and
token) for anything it serves, `control` (our own page's Origin and a control token) for every change, and
`body_json` (a JSON object, size and depth bounded) before it reads a value the browser sent. The rules
themselves are `guard`'s, pure and unit-tested; `OuterWall` refuses a foreign Host before any route runs.
A wall refuses by raising a `problems` type, which carries its status.
"""

from __future__ import annotations

import msgspec
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lunavect.frontends.web import guard, tokens
from lunavect.frontends.web.problems import (
    BadRequest,
    Forbidden,
    MisdirectedHost,
    NotJson,
    TooLarge,
    TooManyTries,
    Unauthorized,
    answer,
)
from lunavect.frontends.web.state import panel_of

COOKIE = "lunavect_web"
MAX_BODY = 4096
LOOPBACK = ("127.0.0.1", "::1")


class OuterWall:
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
            refusal = answer(MisdirectedHost("this server does not answer to that Host name"))
            await refusal(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)


def client_address(request: Request) -> str:
    return request.client.host if request.client else "?"


def on_this_machine(request: Request) -> bool:
    """Whether the browser runs on this machine (only then may "open" raise a terminal here)."""
    return client_address(request) in LOOPBACK


async def authenticate(request: Request, *, query: bool = False) -> tuple[tokens.Token, str | None]:
    """The token this request carries (cookie, bearer header or, for the page, `?token=`); the second value
    is a secret from the URL to turn into a cookie."""
    panel = panel_of(request)
    limiter = panel.settings.limiter
    from_url = request.query_params.get("token") if query else None
    secret = from_url or request.cookies.get(COOKIE)
    header = request.headers.get("authorization", "")
    if not secret and header.lower().startswith("bearer "):
        secret = header[7:].strip()
    if not secret:
        raise Unauthorized("a token is needed: open the link `lunavect web` printed")
    # A right token is never refused, whatever was tried from this address before (guard.FailureLimiter).
    address, digest = client_address(request), tokens.digest(secret)
    if not limiter.known_wrong(address, digest):
        token = tokens.verify(await panel.worker.run(tokens.list_tokens), secret)
        if token is not None:
            return token, from_url
    wait = limiter.blocked(address)
    limiter.failed(address, digest)
    if wait:
        raise TooManyTries("too many wrong tokens: try again later", {"Retry-After": str(int(wait) + 1)})
    raise Unauthorized("this token is not valid (revoked, or mistyped)")


async def control(request: Request) -> tokens.Token:
    """A change: it must come from our own page (Origin) and carry a control token."""
    scheme = "https" if panel_of(request).settings.tls else "http"
    if not guard.same_origin(request.headers.get("origin"), request.headers.get("host"), scheme):
        raise Forbidden("changes are accepted only from the panel's own page (Origin)")
    token, _ = await authenticate(request)
    if not token.can_change:
        raise Forbidden("this token is view-only: it cannot change the list")
    return token


async def body_json(request: Request) -> dict[str, object]:
    """The request's body as a JSON object ({} when empty): declared JSON, at most MAX_BODY bytes however it
    arrives, and refused as a 400 when too deep for the decoder rather than failing as a 500."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise NotJson("send the request body as application/json")
    try:
        declared = int(request.headers.get("content-length") or 0)
    except ValueError:
        raise BadRequest("malformed Content-Length") from None
    if declared > MAX_BODY:
        raise TooLarge(f"the request body is over {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise TooLarge(f"the request body is over {MAX_BODY} bytes")
    if not body.strip():
        return {}
    try:
        value = msgspec.json.decode(body)
    except msgspec.DecodeError:
        raise BadRequest("the request body is not valid JSON") from None
    except RecursionError:
        raise BadRequest("the request body is nested too deep") from None
    if not isinstance(value, dict):
        raise BadRequest("the request body must be a JSON object")
    return value
