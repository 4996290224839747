"""The page and its files: `/` for a token's holder (the locked page for anyone else) and `/static/{name}`.

The files need no token (they hold nothing of the person's); the page itself does, and the first visit with
`?token=` turns the link's token into a cookie.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from lunavect.frontends.web.problems import NotFound, TooManyTries, Unauthorized
from lunavect.frontends.web.state import panel_of
from lunavect.frontends.web.walls import COOKIE, authenticate

COOKIE_MAX_AGE_S = 400 * 86400  # browsers cap cookies at 400 days


def asset_response(request: Request, name: str, status: int = 200) -> Response:
    """One of the page's files, or 304 when the browser's copy (its ETag) is current."""
    asset = panel_of(request).files.get(name)
    if asset is None:
        raise NotFound("no such file")
    headers = {"ETag": asset.etag, "Cache-Control": "no-cache"}
    if status == 200 and request.headers.get("if-none-match") == asset.etag:
        return Response(status_code=304, headers=headers)
    return Response(asset.body, status_code=status, media_type=asset.media_type, headers=headers)


async def page(request: Request) -> Response:
    try:
        _, from_url = await authenticate(request, query=True)
    except (Unauthorized, TooManyTries) as refusal:
        return asset_response(request, "locked.html", refusal.status)
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
            secure=panel_of(request).settings.tls,
            path="/",
        )
    return response


async def static(request: Request) -> Response:
    return asset_response(request, request.path_params["name"])


ROUTES = [
    Route("/", page, methods=["GET"]),
    Route("/static/{name}", static, methods=["GET"]),
]
