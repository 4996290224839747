"""The web page's usage: bars of the last 14 days' tokens by client (the widest day the full track, each client its
colour named in the legend) and each rate-limit window's fill with its line over the last two hours, readable in
a light and a dark page; hidden while no tokens and no windows are known."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import Served, hook, isolated_env, open_page, start_web, stop_collector

from lunavect import store
from lunavect.core.tokens import Tokens
from lunavect.usage import chart, ledger, limits
from lunavect.usage.limits import Limits, LimitWindow

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
        for back, used in ((100 * 60, 10.0), (60 * 60, 25.0), (60, 42.0)):  # Codex's 5 h window filling
            limits.record(conn, "codex", Limits(at=now - back, primary=LimitWindow(used, 300, now + 3600)))
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
    assert page.locator("#usage-chart summary").inner_text() == "Usage"
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
    # The window: its fill now (42 % of the track), its line over the last two hours climbing from 10 % through
    # 25 % to 42 % (the figure held between reports), and what `lunavect usage` says of it.
    window = page.evaluate(
        """(() => { const li = document.querySelector('#usage-windows li');
            return { label: li.firstChild.textContent, words: li.querySelector('.words').textContent,
                     fill: li.querySelector('.fill').getBoundingClientRect().width,
                     track: li.querySelector('.track').getBoundingClientRect().width,
                     colour: getComputedStyle(li.querySelector('polyline')).stroke,
                     ys: li.querySelector('polyline').getAttribute('points').split(' ').map((p) => +p.split(',')[1]) };
        })()"""
    )
    assert window["label"] == "codex 5 h" and window["words"].startswith("42 % · resets ")
    assert window["fill"] == pytest.approx(0.42 * window["track"], abs=1)
    climb = [(100 - y) / 100 * 42 for y in dict.fromkeys(window["ys"])]  # drawn up to its highest figure
    assert climb == pytest.approx([10, 25, 42]) and window["colour"] == "rgb(16, 163, 127)"
    assert window["words"].endswith("· the last 2 h: 10 % → 42 %")
    context.close()


def test_no_tokens_no_chart(tmp_path, browser) -> None:
    env = isolated_env(tmp_path)
    hook(env, SESSION, "UserPromptSubmit", prompt="Nothing counted", project="empty")
    server = start_web(env)
    try:
        page = open_page(browser, server.control)
        page.wait_for_selector("li.row", timeout=20_000)
        assert page.locator("#usage-chart").is_hidden()  # no tokens, no window: nothing to draw
    finally:
        server.stop()
        stop_collector(env)
