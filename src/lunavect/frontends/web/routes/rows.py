"""A row's actions (pin, unpin, hide, unhide, dismiss, undismiss, open), moving a row, undoing the last hide, and "next": open the
session that needs its person most.

Every arrangement goes through `lunavect.listing.arrangement` and "open" through `lunavect.navigation.navigate`,
the same code as the CLI and the terminal panel; "next" chooses by `lunavect.listing.attention.needs_person`, as
`lunavect next` does, then opens as "open" does. Each is a change, so each passes `walls.control` first.
"""

from __future__ import annotations

import asyncio

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from lunavect.core.model import Session
from lunavect.frontends.web.problems import BadRequest, Conflict, NotFound
from lunavect.frontends.web.state import panel_of
from lunavect.frontends.web.walls import body_json, control, on_this_machine
from lunavect.listing import arrangement
from lunavect.listing.attention import NOTHING_WAITS, needs_person
from lunavect.listing.sessions import read_sessions

ROW_ACTIONS = ("pin", "unpin", "hide", "unhide", "dismiss", "undismiss", "open")


async def row_action(request: Request) -> Response:
    token = await control(request)
    action = request.path_params["action"]
    if action not in ROW_ACTIONS:
        raise NotFound(f"no action {action!r} (one of {', '.join(ROW_ACTIONS)})")
    await body_json(request)
    panel = panel_of(request)
    key, session, listed = await panel.find(request.path_params["id"])
    if action == "open":
        return await open_row(request, session, listed)
    if action == "hide":
        # Each control token undoes its own hides, not another browser's.
        history = panel.histories.setdefault(token.id, arrangement.HideHistory())
        changed = await panel.worker.run(lambda conn: history.hide(conn, key))
    else:
        changed = await panel.worker.run(lambda conn: arrangement.act(conn, action, key))
    return JSONResponse({"id": key, "action": action, "changed": changed})


async def open_row(request: Request, session: Session | None, listed: list[Session]) -> Response:
    return JSONResponse(await _open(request, session, listed))


async def _open(request: Request, session: Session | None, listed: list[Session]) -> dict[str, object]:
    """Raise the session's terminal, or resume it in a new one: only for a browser on the session's machine."""
    if session is None:
        raise NotFound("that session is not in the list")
    if not on_this_machine(request) or session.host != panel_of(request).settings.hostname:
        raise Conflict("open works only in a browser on the session's own machine: copy its resume command")
    from lunavect.navigation.navigate import open_session

    others = [s for s in listed if s.id != session.id]
    result = await asyncio.to_thread(open_session, session, resume_in=None, others=others)
    return result.as_dict()


async def next_row(request: Request) -> Response:
    """Open the session that needs its person most, as "open" would; which one it was comes back with it."""
    await control(request)
    await body_json(request)
    listed = await panel_of(request).worker.run(lambda conn: read_sessions(conn, include_hidden=True))
    waiting = needs_person(listed)
    if not waiting:
        raise NotFound(NOTHING_WAITS)
    chosen = waiting[0]
    return JSONResponse({"id": chosen.id, "title": chosen.title, **await _open(request, chosen, listed)})


async def move(request: Request) -> Response:
    await control(request)
    body = await body_json(request)
    before, after = body.get("before"), body.get("after")
    if (before is None) == (after is None) or not isinstance(before or after, str):
        raise BadRequest('give exactly one of "before" or "after", a session id')
    panel = panel_of(request)
    key, session, _ = await panel.find(request.path_params["id"])
    target, _, _ = await panel.find(str(before or after))
    shift = arrangement.move_before if before is not None else arrangement.move_after
    changed = await panel.worker.run(lambda conn: shift(conn, key, target))
    said = ""
    if changed and session is not None:  # and when it will move again
        said = arrangement.moved_words(f"“{session.title or key}”", session.pinned)
    return JSONResponse({"id": key, "changed": changed, "message": said})


async def undo(request: Request) -> Response:
    token = await control(request)
    await body_json(request)
    panel = panel_of(request)
    history = panel.histories.get(token.id)
    restored = await panel.worker.run(history.undo) if history is not None else None
    return JSONResponse({"restored": restored})


# `/move` before `/{action}`, which would take it for an unknown action; the app puts peek's routes before these
# for the same reason.
ROUTES = [
    Route("/api/next", next_row, methods=["POST"]),
    Route("/api/sessions/{id}/move", move, methods=["POST"]),
    Route("/api/sessions/{id}/{action}", row_action, methods=["POST"]),
    Route("/api/undo", undo, methods=["POST"]),
]
