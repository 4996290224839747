"""The web panel's refusals as types that carry their status, and the one place they become answers.

A route raises `NotFound("that session is not in the list")` and never chooses a status number or builds a
response itself: every failure leaves as the same one-line JSON error (`{"error": ...}`) with its status,
never a traceback page. What the lower floors raise is given its status here by its type as well: an
arrangement naming no session (`listing.arrangement.UnknownSession`) is a 404, any other arrangement refusal a
409, a store that cannot be used a 503; the words of a message never decide.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, ClassVar

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from lunavect.listing import arrangement
from lunavect.store import StoreError

log = logging.getLogger("lunavect.web")

Handler = Callable[[Request, Exception], Awaitable[Response]]


class Problem(Exception):
    """A request the panel refuses: the one line that says why, and the headers that go with it."""

    status: ClassVar[int] = 500

    def __init__(self, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.headers = dict(headers or {})


class BadRequest(Problem):
    status = 400


class Unauthorized(Problem):
    """No token, or one that is not valid: the page answers with its locked page instead."""

    status = 401


class Forbidden(Problem):
    status = 403


class NotFound(Problem):
    status = 404


class Conflict(Problem):
    """The request is understood, but what it asks cannot be done to that session now or from here."""

    status = 409


class TooLarge(Problem):
    status = 413


class NotJson(Problem):
    status = 415


class MisdirectedHost(Problem):
    """A Host name that is not ours (DNS rebinding): refused before any route runs."""

    status = 421


class TooManyTries(Problem):
    """Too many wrong tokens from one address: told to wait rather than that the token is wrong."""

    status = 429


def error(status: int, message: str, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The one shape of every failure the panel answers."""
    return JSONResponse({"error": message}, status_code=status, headers=dict(headers or {}))


def answer(problem: Problem) -> JSONResponse:
    return error(problem.status, problem.message, problem.headers)


async def _problem(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Problem)
    return answer(exc)


async def _http(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (no such route, a method the route does not take) in the same shape."""
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail))


def _as(kind: type[Problem]) -> Handler:
    """A lower floor's exception answered as the refusal `kind`, with its own message."""

    async def handle(request: Request, exc: Exception) -> Response:
        return answer(kind(str(exc)))

    return handle


async def _store(request: Request, exc: Exception) -> Response:
    return error(503, f"the store cannot be used right now: {exc}")


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.exception("unexpected failure on %s %s", request.method, request.url.path)
    return error(500, "internal error (the server's log says more)")


# Starlette picks a handler by the exception's class, most specific first (its MRO): an UnknownSession finds
# its own before ArrangeError's. `Exception` goes to the outermost middleware, so a bug is a 500 for that
# request only and the server goes on.
HANDLERS: dict[Any, Handler] = {
    Problem: _problem,
    HTTPException: _http,
    arrangement.UnknownSession: _as(NotFound),
    arrangement.ArrangeError: _as(Conflict),
    sqlite3.Error: _store,
    StoreError: _store,
    Exception: _unexpected,
}
