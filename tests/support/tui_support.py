"""Helpers of the panel's tests: a clock the test holds, waiting for the app, and reading rows as drawn."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable

import tui_seed as seed

from lunavect.collector.setup_probe import report_of
from lunavect.frontends.tui import PanelApp

NO_SETUP = report_of({})  # no client found, no hooks


class Clock:
    """The panel's clock, moved only by the test."""

    def __init__(self, now: float = seed.NOW) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = 10.0, what: str = "") -> float:
    """Let the app run until `predicate` holds; returns how long that took. Fails after `timeout`."""
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"not within {timeout}s: {what or predicate}")
        await pilot.pause(0.02)
    return time.monotonic() - started


def lines(app: PanelApp, selector: str = "#sessions") -> list[str]:
    """The text of every row of a session list, as drawn (all rows, not only those on screen)."""
    from lunavect.frontends.tui.session_list import SessionList

    widget = app.screen.query_one(selector, SessionList)
    out = []
    scroll = int(widget.scroll_offset.y)
    for index in range(len(widget.sessions)):
        out.append(widget.render_line(index - scroll).text)
    return out


def ids(app: PanelApp, selector: str = "#sessions") -> list[str]:
    from lunavect.frontends.tui.session_list import SessionList

    return [s.id for s in app.screen.query_one(selector, SessionList).sessions]


def pilot_test(function: Callable) -> Callable:
    """Run an async test on its own event loop (the suite has no asyncio plugin; Textual needs none)."""

    @functools.wraps(function)
    def run(*args: object, **kwargs: object) -> None:
        asyncio.run(function(*args, **kwargs))

    return run


def record_drawn_lines(monkeypatch) -> list[str]:
    """Every session-list line Textual draws from now on, as text, in order (what reached the screen, not what
    a test reads back with `lines`)."""
    from lunavect.frontends.tui.session_list import SessionList

    drawn: list[str] = []
    original = SessionList.render_line

    def spy(self, y):
        strip = original(self, y)
        drawn.append(strip.text)
        return strip

    monkeypatch.setattr(SessionList, "render_line", spy)
    return drawn


def seven_clients(monkeypatch) -> tuple[str, ...]:
    """Register the stand-in client (tests/unit/standin_client) and a second one ("Qwen") after lunavect's own,
    and return seven of the known ids in the descriptors' order: the first five lunavect ships and the two
    stand-ins. A client lunavect gains later is known too but has no session in these tests, so what they show
    stays the same."""
    import standin_client

    from lunavect.core import clients
    from lunavect.core.clients import Client

    base = standin_client.CLIENT
    second = Client(
        id="standin2", name="Qwen Stand-in", label="Qwen", package=base.package, cli=base.cli, process=base.process
    )
    shipped = clients.ids()[:5]
    monkeypatch.setattr(clients, "CLIENTS", (*clients.CLIENTS, base, second))
    return (*shipped, base.id, second.id)
