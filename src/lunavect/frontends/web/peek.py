"""The web panel's peek and reply: a session's latest messages, a reply, a permission answer.

Private text leaves this machine only when the person started the server with `--allow-peek`, and only to
a control token from the panel's own page (the same walls as every change: Host, Origin, token, rate
limit). Messages are read on request through lunavect.conversation and never kept; replies and answers go
through lunavect.navigation.reply, the checks of `lunavect reply` and `lunavect answer`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from lunavect.core.model import Session

Handler = Callable[[Request], Awaitable[Response]]
MAX_MESSAGES = 200


@dataclass
class Walls:
    """What the panel's routes share with these: the control wall, the session finder, the body reader and
    how a refusal is raised (the app's Problem)."""

    allowed: bool
    hostname: str
    control: Callable[[Request], Awaitable[object]]
    find: Callable[[str], Awaitable[tuple[str, Session | None, list[Session]]]]
    body_json: Callable[[Request], Awaitable[dict[str, object]]]
    problem: Callable[[int, str], Exception]


def outcome(result: Any) -> Response:
    """A reply's or an answer's result; a refusal is a 409 whose `error` says why, as every refusal here."""
    body = result.as_dict()
    if not result.ok:
        body["error"] = result.message
    return JSONResponse(body, status_code=200 if result.ok else 409)


def routes(walls: Walls) -> list[tuple[str, Handler, list[str]]]:
    async def session_of(request: Request) -> tuple[Session, list[Session]]:
        if not walls.allowed:
            raise walls.problem(403, "peek and reply are off: start the server with `lunavect web --allow-peek`")
        await walls.control(request)
        _key, session, listed = await walls.find(request.path_params["id"])
        if session is None:
            raise walls.problem(404, "that session is not in the list")
        if session.host != walls.hostname:
            raise walls.problem(409, "that session runs on another machine: peek at it from that machine's panel")
        return session, [s for s in listed if s.id != session.id]

    async def messages(request: Request) -> Response:
        session, _ = await session_of(request)
        from lunavect.conversation.window import read_window
        from lunavect.conversation.window_parts import Unreadable
        from lunavect.listing.conversation import find_source

        body = await walls.body_json(request)
        last, before = body.get("last", 50), body.get("before")
        if not isinstance(last, int) or isinstance(last, bool) or not 1 <= last <= MAX_MESSAGES:
            raise walls.problem(400, f'"last" is a number of messages, 1 to {MAX_MESSAGES}')
        if before is not None and (not isinstance(before, str) or not before.replace(":", "").isdigit()):
            raise walls.problem(400, "before is a message's place, as a window gave it")
        source = await asyncio.to_thread(find_source, session.provider, session.session_id)
        if source is None:
            raise walls.problem(404, "this machine holds no conversation file for that session")
        try:
            window = await asyncio.to_thread(read_window, source, before=before, messages=last)
        except Unreadable as exc:
            raise walls.problem(409, str(exc)) from None
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
        text = (await walls.body_json(request)).get("text")
        if not isinstance(text, str) or not text.strip():
            raise walls.problem(400, 'give the reply as "text"')
        from lunavect.navigation.reply import reply as send

        result = await asyncio.to_thread(send, session, text, state=session.state, others=others)
        return outcome(result)

    async def answer(request: Request) -> Response:
        session, others = await session_of(request)
        choice = (await walls.body_json(request)).get("choice")
        from lunavect.navigation.reply import ANSWERS
        from lunavect.navigation.reply import answer as press

        if choice not in ANSWERS:
            raise walls.problem(400, f'give "choice": one of {", ".join(ANSWERS)}')
        assert isinstance(choice, str)
        result = await asyncio.to_thread(
            press, session, choice, state=session.state, expected_tool=session.waiting_for, others=others
        )
        return outcome(result)

    return [
        # POST, so that reading private text passes the same Origin wall as a change.
        ("/api/sessions/{id}/messages", messages, ["POST"]),
        ("/api/sessions/{id}/reply", reply, ["POST"]),
        ("/api/sessions/{id}/answer", answer, ["POST"]),
    ]
