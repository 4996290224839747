"""The web page's tokens per day: bars of the last 14 days by client, the widest day the full track, each client
its colour named in the legend, readable in a light and a dark page; hidden while no tokens are known."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import Served, hook, isolated_env, open_page, start_web, stop_collector

from lunavect import store
from lunavect.core.tokens import Tokens
from lunavect.usage import chart, ledger

SESSION = "aaaaaaaa-1111-4111-8111-111111111111"
DAY = 86400.0
# (client's session key, days back, tokens): Claude Code 2M three days back, the widest day.
USED = [
    ("claude:u1", 0, Tokens(600_000, 0, 0, 0)),
    ("codex:c1", 0, Tokens(0, 0, 400_000, 0)),
    ("codex:c1", 1, Tokens(500_000, 0, 0, 0)),
    ("claude:u2", 3, Tokens(0, 0, 2_000_000, 0)),
]


def seed(env: dict[str, str]) -> None:
    conn = store.connect(Path(env["LUNAVECT_HOME"]) / "lunavect.sqlite3")
    now = time.time()
    with conn:
        for key, back, tokens in USED:
            at = now - back * DAY
            ledger.record(conn, f"/seeded/{key}", key, [ledger.Delta(ledger.quarter_of(at, at), "m", False, tokens)])
    conn.close()


@pytest.fixture
def served(tmp_path) -> Iterator[Served]:
    env = isolated_env(tmp_path)
    seed(env)
    hook(env, SESSION, "UserPromptSubmit", prompt="Count my tokens", project="counted")
    server = start_web(env)
    try:
        yield server
    finally:
        server.stop()
        stop_collector(env)


def bars(page) -> list[dict]:
    return page.evaluate(
        """[...document.querySelectorAll('#usage-days li')].map((li) => ({
            total: li.querySelector('.total').textContent,
            parts: [...li.querySelectorAll('.part')].map((p) => ({
                width: p.getBoundingClientRect().width, colour: getComputedStyle(p).backgroundColor })),
            track: li.querySelector('.track').getBoundingClientRect().width,
        }))"""
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_tokens_per_day_as_bars_by_client(served, browser, scheme: str) -> None:
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.goto(served.control)
    page.wait_for_selector("body[data-loaded='1']", timeout=20_000)
    page.wait_for_selector("#usage-chart:not([hidden])", timeout=20_000)
    page.click("#usage-chart summary")
    shown = bars(page)
    assert len(shown) == chart.DAYS
    widest = next(day for day in shown if day["total"] == "2.0M")
    assert len(widest["parts"]) == 1 and widest["parts"][0]["width"] == pytest.approx(widest["track"], abs=1)
    today = shown[-1]
    assert today["total"] == "1.0M" and len(today["parts"]) == 2  # Claude Code, then Codex
    claude, codex = today["parts"]
    assert claude["width"] == pytest.approx(0.3 * widest["track"], abs=1)
    assert codex["width"] == pytest.approx(0.2 * widest["track"], abs=1)
    assert claude["colour"] == "rgb(217, 119, 87)" and codex["colour"] == "rgb(16, 163, 127)"  # chart.COLOURS
    assert sum(1 for day in shown if day["total"] == "—") == chart.DAYS - 3
    assert page.locator("#usage-legend").inner_text().split() == ["Claude", "Code", "Codex"]
    # Readable: the totals' colour is the page's text colour, unlike its background, in either scheme.
    colours = page.evaluate(
        "[getComputedStyle(document.querySelector('#usage-days .total')).color,"
        " getComputedStyle(document.body).backgroundColor]"
    )
    assert colours[0] != colours[1]
    context.close()


def test_no_tokens_no_chart(tmp_path, browser) -> None:
    env = isolated_env(tmp_path)
    hook(env, SESSION, "UserPromptSubmit", prompt="Nothing counted", project="empty")
    server = start_web(env)
    try:
        page = open_page(browser, server.control)
        page.wait_for_selector("li.row", timeout=20_000)
        assert page.locator("#usage-chart").is_hidden()
    finally:
        server.stop()
        stop_collector(env)
