"""A client that retries a failed request, with the real Claude Code 2.1.328: the reason shows while it
retries, plain working returns once a response flows, and a turn that gives up ends in its error as before.

Claude Code writes a `system/api_error` record for each retry in headless runs (`claude -p`, the SDK); the
interactive client shows its retries on screen only and keeps its catalog `busy` (observed here), so an
interactive session stays plain working while it retries.
"""

from __future__ import annotations

import json
import threading

import pytest
from anthropic_server import error, text, tool_use
from codex_harness import codex_env, rollouts, run_exec, sessions, write_config
from lunavect_probe import wait_for, wait_state
from responses_server import drop, message

SLOW = "python3 -c 'import time; time.sleep(5)'"


def _in_background(run, *args, **kwargs) -> threading.Thread:
    thread = threading.Thread(target=run, args=args, kwargs=kwargs, daemon=True)
    thread.start()
    return thread


def test_retrying_shows_the_reason_then_working_again(claude_print, model_server, iso_home):
    model_server.script(
        error(500),
        error(500),
        tool_use("Bash", {"command": SLOW, "description": "slow step"}, delay=6),
        text("Recovered and done."),
    )
    run = _in_background(claude_print, "do the slow step", "--allowedTools", "Bash", max_retries=4, timeout=120)
    retrying = wait_for(iso_home.env, lambda s: s["activity"] == "retrying", timeout=40)
    assert (retrying["state"], retrying["error"]) == ("working", "service")
    flowing = wait_for(iso_home.env, lambda s: s["state"] == "working" and s["activity"] == "Bash", timeout=40)
    assert flowing["error"] is None
    run.join(timeout=90)
    done = wait_for(iso_home.env, lambda s: s["state"] in ("ready", "idle"), timeout=40)
    assert done["error"] is None


def test_a_client_that_gives_up_ends_in_its_error(claude_print, model_server, iso_home):
    model_server.script(error(500), error(500), error(500, delay=6))
    run = _in_background(claude_print, "hello", max_retries=2, timeout=120)
    wait_for(iso_home.env, lambda s: s["activity"] == "retrying", timeout=40)
    run.join(timeout=90)
    failed = wait_state(iso_home.env, "error", timeout=60)
    assert (failed["error"], failed["activity"]) == ("service", None)


def test_codex_reconnects_silently_and_the_turn_ends_ready(client_paths, iso_home, codex_server):
    """Codex 0.169.0 reconnects a dropped stream ("Reconnecting... 1/4" on its live event stream only): its
    rollout gets no record of it and no hook fires, so the session stays plain working and ends ready."""
    if client_paths.codex is None:
        pytest.skip("the pinned Codex CLI is not installed")
    write_config(iso_home, codex_server)
    config = iso_home.codex_dir / "config.toml"
    config.write_text(config.read_text().replace("stream_max_retries = 0", "stream_max_retries = 4"))
    env = codex_env(iso_home, client_paths)
    codex_server.script(drop(), drop(), message("Recovered fine"))
    proc = run_exec(client_paths, env, iso_home.work, "hello there", "--json")
    assert proc.returncode == 0 and "Reconnecting... 2/4" in proc.stdout  # the live stream says it
    assert len(codex_server.responses_requests) == 3
    kinds = [json.loads(line)["payload"].get("type") for line in rollouts(iso_home)[0].read_text().splitlines()]
    assert not {"stream_error", "error"} & set(kinds)  # the rollout does not
    row = next(s for s in sessions(env) if s["provider"] == "codex")
    assert (row["state"], row["error"]) == ("ready", None)
