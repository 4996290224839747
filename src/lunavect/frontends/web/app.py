"""The web panel's application for one store: its parts on `app.state`, its routes, its walls and its life.

The endpoints live in `routes/` (one module per part of the page), the request walls in `walls`, the refusals
and their statuses in `problems`; this module only puts them together, and starts and stops what runs beside
the requests (the live list's reading after each change and each clock tick).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware

from lunavect.faults import Loop
from lunavect.frontends.web import assets, problems
from lunavect.frontends.web.broadcast import CONTROL_RESERVE, LOOP_NAME, Broadcast, StoreWorker
from lunavect.frontends.web.routes import live, page, peek, rows, transitions
from lunavect.frontends.web.state import Panel, Settings
from lunavect.frontends.web.walls import COOKIE, OuterWall
from lunavect.listing import changes

__all__ = ["COOKIE", "Settings", "create_app"]

log = logging.getLogger("lunavect.web")

# Peek's `/api/sessions/{id}/messages|reply|answer` before the rows' `/api/sessions/{id}/{action}`, which would
# take them for unknown actions.
ROUTES = [*page.ROUTES, *live.ROUTES, *transitions.ROUTES, *peek.ROUTES, *rows.ROUTES]


def create_app(settings: Settings) -> Starlette:
    """The panel's application for one store."""
    from lunavect.frontends.web.connections import default_cap

    if settings.max_connections is None:
        settings.max_connections = default_cap()
    worker = StoreWorker(settings.connect)
    # View-only streams leave the gate's last connections to control tokens (broadcast.CONTROL_RESERVE).
    view_streams = max(1, settings.max_connections - CONTROL_RESERVE)
    feed = Broadcast(worker, guard=Loop(LOOP_NAME, log, connect=settings.connect), view_streams=view_streams)
    app = Starlette(
        routes=ROUTES,
        middleware=[
            Middleware(OuterWall, allowed_hosts=settings.allowed_hosts),
            Middleware(GZipMiddleware, minimum_size=800),
        ],
        exception_handlers=problems.HANDLERS,
        lifespan=lifespan,
    )
    app.state.panel = Panel(settings, worker, feed, assets.load())
    return app


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """While the server runs, the live list follows the shared change feed (the collector's notice of each commit
    that changes what a row shows, or PRAGMA data_version checks while no collector runs) and the clock; on
    the way out every stream ends and the store's connection closes."""
    panel: Panel = app.state.panel
    shared: changes.Feed | None = None
    if panel.settings.changes is not None:
        signals = panel.settings.changes()
    else:
        shared = changes.Feed()
        signals = shared.changes()
    panel.loop = asyncio.get_running_loop()
    tasks = [asyncio.create_task(panel.feed.follow(signals)), asyncio.create_task(panel.feed.tick())]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        panel.feed.close_all()
        await asyncio.gather(*tasks, return_exceptions=True)
        if shared is not None:
            shared.close()
        await asyncio.to_thread(panel.worker.close)
