"""Usage warnings on a real desktop: real Codex 0.169.0 reports the rate-limit headers the scripted server
chose, the collector (`lunavect daemon`) stores them, and its notifier warns through a real D-Bus session bus
and dunst under Xvfb, once per window. Real Claude Code, signed in with a subscription's token, hands its
windows to the status-line wrapper, and they warn the same way.

"No warning" is proven by a warning of the same check arriving alone: the 5 h and 7 d windows of one report
are looked at together, so the 7 d window's warning proves the 5 h window's figure was looked at too.
"""

from __future__ import annotations

import json
import time

import pytest
from claude_tmux import SUBSCRIPTION
from codex_harness import codex_env, lunavect, run_exec, write_config
from notifications_support import Collector
from responses_server import ResponsesServer, message

from lunavect.core.clients import ids as client_ids

FIVE_H = 300
SEVEN_D = 10080


def _headers(primary: float, primary_resets: int, secondary: float, secondary_resets: int) -> dict[str, str]:
    return {
        "x-codex-primary-used-percent": f"{primary:g}",
        "x-codex-primary-window-minutes": str(FIVE_H),
        "x-codex-primary-reset-at": str(primary_resets),
        "x-codex-secondary-used-percent": f"{secondary:g}",
        "x-codex-secondary-window-minutes": str(SEVEN_D),
        "x-codex-secondary-reset-at": str(secondary_resets),
    }


def _turn(paths, iso, env, server: ResponsesServer, headers: dict[str, str]) -> None:
    """One real Codex turn whose response carries `headers`; returns once lunavect reports those figures."""
    step = message("Counted.")
    step.headers = headers
    server.script(step)
    proc = run_exec(paths, env, iso.work, "count")
    assert proc.returncode == 0, proc.stderr[-2000:]
    wanted = float(headers["x-codex-primary-used-percent"])
    deadline = time.monotonic() + 30
    while True:
        report = json.loads(lunavect(env, "usage", "--json", "--since", "1d").stdout)
        windows = [w for a in report["limits"] if a["client"] == "codex" for w in a["windows"]]
        if any(w["name"] == "primary" and w["used_percent"] == wanted for w in windows):
            return
        assert time.monotonic() < deadline, f"lunavect did not store {wanted} %: {windows}"
        time.sleep(0.2)


def _warnings(shown: list[dict[str, str]]) -> list[str]:
    return [n["summary"] for n in shown if "window at" in n["summary"]]


def test_a_window_past_90_percent_warns_once_per_window(client_paths, iso_home, codex_server, desktop):
    if client_paths.codex is None:
        pytest.skip("the pinned Codex CLI is not installed")
    env = codex_env(iso_home, client_paths)
    write_config(iso_home, codex_server)
    now = int(time.time())
    five_h, seven_d = now + 3 * 3600, now + 4 * 86400
    running = Collector({**env, **desktop.env}).start()
    try:
        _turn(client_paths, iso_home, env, codex_server, _headers(91, five_h, 8, seven_d))
        desktop.wait(lambda: len(_warnings(desktop.shown())) == 1, what="the 5 h window's warning")
        [note] = [n for n in desktop.shown() if "window at" in n["summary"]]
        assert note["summary"] == "Codex: 5 h window at 91 %"
        assert note["body"].startswith("resets ") and "Counted" not in note["body"]

        # The same 5 h window again, higher: no warning; the 7 d window crossing in the same report warns.
        _turn(client_paths, iso_home, env, codex_server, _headers(93, five_h, 95, seven_d))
        desktop.wait(lambda: len(_warnings(desktop.shown())) == 2, what="the 7 d window's warning")
        assert _warnings(desktop.shown()) == ["Codex: 5 h window at 91 %", "Codex: 7 d window at 95 %"]

        # A restarted collector looks at once, and finds nothing new to say.
        running.kill()
        running = Collector({**env, **desktop.env}).start()

        # The 5 h window reset: its next window warns again; the 7 d window, still the same, does not.
        _turn(client_paths, iso_home, env, codex_server, _headers(92, five_h + FIVE_H * 60, 97, seven_d))
        desktop.wait(lambda: len(_warnings(desktop.shown())) == 3, what="the next 5 h window's warning")
        assert _warnings(desktop.shown()) == [
            "Codex: 5 h window at 91 %",
            "Codex: 7 d window at 95 %",
            "Codex: 5 h window at 92 %",
        ]
    finally:
        running.kill()


def test_claude_code_s_window_past_90_percent_warns(claude_tmux, model_server, iso_home, desktop):
    """Claude Code's figure comes through the status-line wrapper's file, after the reply's own transitions:
    the notifier's regular look finds it."""
    from anthropic_server import text

    env = {**iso_home.env, **desktop.env}
    assert lunavect(env, "hooks", "install", *client_ids(), "--statusline").returncode == 0
    now = int(time.time())
    step = text("Answered.")
    step.headers = {
        "anthropic-ratelimit-unified-status": "allowed",
        "anthropic-ratelimit-unified-5h-status": "allowed_warning",
        "anthropic-ratelimit-unified-5h-utilization": "0.91",
        "anthropic-ratelimit-unified-5h-reset": str(now + 3600),
        "anthropic-ratelimit-unified-7d-status": "allowed",
        "anthropic-ratelimit-unified-7d-utilization": "0.3",
        "anthropic-ratelimit-unified-7d-reset": str(now + 5 * 86400),
    }
    model_server.script(step)
    running = Collector(env).start()
    try:
        claude = claude_tmux(env=SUBSCRIPTION)
        claude.send_text("say something")
        desktop.wait(lambda: len(_warnings(desktop.shown())) == 1, timeout=60, what="Claude Code's warning")
        assert _warnings(desktop.shown()) == ["Claude Code: 5 h window at 91 %"]
    finally:
        running.kill()
