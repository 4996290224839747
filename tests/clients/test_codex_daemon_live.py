"""Codex's live status from its own managed app-server daemon, with the real interactive Codex 0.169.0 and no
lunavect hook: the daemon's `thread/status` decides working, permission and the turn's end; lunavect reads it
over its unix socket without ever starting it or keeping it alive."""

from __future__ import annotations

import json

import pytest
from codex_harness import (
    at_the_marker_approval,
    lunavect,
    wait_session,
    without_hooks,
)
from responses_server import ResponsesServer

from lunavect.clients.codex.daemon import SOCKET, read_live


@pytest.fixture
def codex(codex_tmux):
    without_hooks(codex_tmux[1])
    return codex_tmux


def test_without_hooks_the_daemon_shows_the_approval_prompt_as_permission(codex, codex_server: ResponsesServer):
    iso, env = codex[1:]
    assert read_live(iso.codex_dir).reason == "absent"  # no daemon yet, and lunavect starts none
    with at_the_marker_approval(codex, codex_server, hooks=False) as (tui, _marker):
        asking = wait_session(env, lambda s: s["state"] == "permission" and not s["untitled"], timeout=40)
        assert "catalog" in asking["basis"] and asking["title"] == "write the marker"
        assert json.loads(lunavect(env, "counts", "--json").stdout)["awaiting_input"] == 1
        live = read_live(iso.codex_dir)
        assert live.available and live.threads[asking["session_id"]]["status"]["activeFlags"] == ["waitingOnApproval"]

        tui.send_keys("Enter")  # "1. Yes, proceed"

        tui.wait_for_screen(r"Marker written", timeout=40)
        ready = wait_session(env, lambda s: s["state"] in ("ready", "idle"), timeout=40)
        assert ready["session_id"] == asking["session_id"]


def test_an_unusable_socket_is_unavailable_not_an_error(codex):
    _paths, iso, env = codex
    socket_path = iso.codex_dir / SOCKET
    socket_path.parent.mkdir(parents=True, exist_ok=True)
    import socket

    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(socket_path))  # bound, never listening: what a crashed daemon leaves behind
    try:
        assert read_live(iso.codex_dir).reason == "refused"
        assert lunavect(env, "list", "--json").returncode == 0
    finally:
        stale.close()
