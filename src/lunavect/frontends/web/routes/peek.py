"""Peek and reply: a session's latest messages, a reply, a permission answer.

Private text leaves this machine only when the person started the server with `--allow-peek`, and only to
a control token from the panel's own page (the same walls as every change: Host, Origin, token, rate
limit). Messages are read on request through lunavect.conversation and never kept; replies and answers go
through lunavect.navigation.reply, the checks of `lunavect reply` and `lunavect answer`.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lunavect.core.model import Session
from lunavect.frontends.web.problems import BadRequest, Conflict, Forbidden, NotFound
from lunavect.frontends.web.state import panel_of
from lunavect.frontends.web.walls import body_json, control

MAX_MESSAGES = 200


def outcome(result: Any) -> Response:
    """A reply's or an answer's result; a refusal is a 409 whose `error` says why, as every refusal here."""
    body = result.as_dict()
    if not result.ok:
        body["error"] = result.message
    return JSONResponse(body, status_code=200 if result.ok else 409)


async def session_of(request: Request) -> tuple[Session, list[Session]]:
    """The session to peek at and its neighbours, once peek is on, the request is a control one from our own page,
    and the session runs on this machine (its conversation file is here)."""
    panel = panel_of(request)
    if not panel.settings.allow_peek:
        raise Forbidden("peek and reply are off: start the server with `lunavect web --allow-peek`")
    await control(request)
    _key, session, listed = await panel.find(request.path_params["id"])
    if session is None:
        raise NotFound("that session is not in the list")
    if session.host != panel.settings.hostname:
        raise Conflict("that session runs on another machine: peek at it from that machine's panel")
    return session, [s for s in listed if s.id != session.id]


async def messages(request: Request) -> Response:
    session, _ = await session_of(request)
    from lunavect.conversation.window import read_window
    from lunavect.conversation.window_parts import Unreadable
    from lunavect.listing.conversation import find_source

    body = await body_json(request)
    last, before = body.get("last", 50), body.get("before")
    if not isinstance(last, int) or isinstance(last, bool) or not 1 <= last <= MAX_MESSAGES:
        raise BadRequest(f'"last" is a number of messages, 1 to {MAX_MESSAGES}')
    if before is not None and (not isinstance(before, str) or not before.replace(":", "").isdigit()):
        raise BadRequest("before is a message's place, as a window gave it")
    source = await asyncio.to_thread(find_source, session.provider, session.session_id)
    if source is None:
        raise NotFound("this machine holds no conversation file for that session")
    try:
        window = await asyncio.to_thread(read_window, source, before=before, messages=last)
    except Unreadable as exc:
        raise Conflict(str(exc)) from None
    body = {
        "id": session.id,
        "messages": window.messages,
        "start": window.start,
        "older": window.older,
        "skipped": window.skipped,  # lines of the file that could not be read, never what they hold
    }
    return Response(msgspec.json.encode(body), media_type="application/json", headers={"Cache-Control": "no-store"})


async def reply(request: Request) -> Response:
    session, others = await session_of(request)
    text = (await body_json(request)).get("text")
    if not isinstance(text, str) or not text.strip():
        raise BadRequest('give the reply as "text"')
    from lunavect.navigation.reply import reply as send

    result = await asyncio.to_thread(send, session, text, state=session.state, others=others)
    return outcome(result)


async def answer(request: Request) -> Response:
    session, others = await session_of(request)
    choice = (await body_json(request)).get("choice")
    from lunavect.navigation.reply import ANSWERS
    from lunavect.navigation.reply import answer as press

    if choice not in ANSWERS:
        raise BadRequest(f'give "choice": one of {", ".join(ANSWERS)}')
    assert isinstance(choice, str)
    result = await asyncio.to_thread(
        press, session, choice, state=session.state, expected_tool=session.waiting_for, others=others
    )
    return outcome(result)


ROUTES = [
    # POST, so that reading private text passes the same Origin wall as a change.
    Route("/api/sessions/{id}/messages", messages, methods=["POST"]),
    Route("/api/sessions/{id}/reply", reply, methods=["POST"]),
    Route("/api/sessions/{id}/answer", answer, methods=["POST"]),
]
