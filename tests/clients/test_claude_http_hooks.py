"""Claude Code's states with `lunavect hooks install --http` (issue 21), the real client 2.1.328.

The tool events (PreToolUse, PostToolUse, PostToolUseFailure) go by HTTP to the collector's listener; the rest
keep the command shim. A representative set of test_claude_states.py's scenarios (tests/support/
claude_states_scenarios.py) runs again here unchanged, with this module's `iso_home` (HTTP hooks installed, the
collector running): background work (a shell, and an agent whose own tool calls come by HTTP), a permission
approved and denied, auto mode's own dialog, Esc and kill -9 during a tool, two sessions in one folder, closing
questions. Then what HTTP hooks add: the
collector stopped mid-session (the tool events of that time are lost) and started again shows no stuck state
and the tool the transcript names; while a 50 MB upload, a never-ending request, a wrong secret and
another user's request hit the collector's listener, the real client's events still arrive; and a person's
own `allowedHttpHookUrls` keeps working with lunavect's URL added to it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from anthropic_server import text, tool_use
from claude_states_scenarios import *  # noqa: F403 - the scenarios that run with both kinds of hooks, collected here
from claude_states_scenarios import PERMISSION_DIALOG
from claude_tmux import IsoHome
from lunavect_probe import Timeline, http_spool_lines, list_sessions, wait_for, wait_state

from lunavect.core.clients import ids as client_ids


def _lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args],
        env=env,
        cwd=env.get("HOME"),
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def iso_home() -> Iterator[IsoHome]:
    """A fresh temporary HOME with `hooks install --http` (which starts the collector and waits for it)."""
    iso = IsoHome.create()
    try:
        done = _lunavect(iso.env, "hooks", "install", *client_ids(), "--http")
        assert done.returncode == 0, done.stderr
        assert "answers" in done.stdout, done.stdout
        iso.lunavect_hooks_installed = True
        yield iso
    finally:
        iso.cleanup()


def _data(iso: IsoHome) -> Path:
    return Path(iso.env["LUNAVECT_HOME"])


def _port(iso: IsoHome) -> int:
    return int(json.loads((_data(iso) / "http-hooks.json").read_text())["port"])


def _secret(iso: IsoHome) -> str:
    return (_data(iso) / "hook-secret").read_text().strip()


def _stop_collector(iso: IsoHome) -> None:
    """Stop the collector (SIGTERM, by the pid in its lock) and wait until its listener is gone."""
    pid = int((_data(iso) / "collector.lock").read_text().strip())
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _answers(iso):
        time.sleep(0.1)
    assert not _answers(iso)


def _answers(iso: IsoHome) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", _port(iso)), timeout=1):
            return True
    except OSError:
        return False


def _http_lines(iso: IsoHome) -> list[dict]:
    return http_spool_lines(_data(iso))


def test_tool_events_arrive_by_http_and_the_rest_by_the_shim(claude_tmux, model_server, iso_home):
    model_server.script(
        tool_use("Bash", {"command": 'python3 -c "import time; time.sleep(4)"', "description": "wait"}), text("Done.")
    )
    claude = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits")
    claude.send_text("wait a little")
    running = wait_for(iso_home.env, lambda s: s["activity"] == "Bash", timeout=40)
    assert running["state"] == "working"
    wait_state(iso_home.env, "ready", timeout=40)
    events = {line["event"] for line in _http_lines(iso_home)}
    assert events == {"PreToolUse", "PostToolUse"}, events
    # An interactive session's HTTP events carry its process from the live catalog.
    assert all(line.get("pid") == claude.pid() for line in _http_lines(iso_home))


def test_collector_stopped_mid_session_leaves_no_state_stuck(claude_tmux, model_server, iso_home):
    # The approved command's PostToolUse and the next tool's PreToolUse are sent while no collector listens:
    # both are lost. Started again, the collector reads the transcript: working on the tool that runs, not
    # a permission prompt long answered.
    model_server.script(
        tool_use("Bash", {"command": "echo approved > marker.txt", "description": "write"}),
        tool_use("Bash", {"command": "sleep 15", "description": "wait"}),
        text("Done."),
    )
    claude = claude_tmux("--permission-mode", "default", "--allowedTools", "Bash(sleep:*)")
    claude.send_text("write the marker then wait")
    timeline = Timeline()
    waiting = wait_state(iso_home.env, "permission", timeline=timeline, timeout=40)
    assert waiting["waiting_for"] == "Bash"
    _stop_collector(iso_home)
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    claude.answer("Enter", until_gone=PERMISSION_DIALOG)
    claude.wait_for_screen(r"sleep 15", timeout=30)  # the second tool runs; its PreToolUse was lost
    # Any front end starts the collector again (`lunavect list` here); it opens the listener at once.
    running = wait_for(iso_home.env, lambda s: s["state"] != "permission", timeline=timeline, timeout=30)
    assert running["state"] == "working" and running["activity"] == "Bash", running
    assert list_sessions(iso_home.env)[0]["waiting_for"] is None
    wait_state(iso_home.env, "ready", timeline=timeline, timeout=60)
    assert timeline.states[-1] == "ready", timeline
    assert _answers(iso_home)


def _bad_requests(port: int, secret: str) -> tuple[list[socket.socket], list[str]]:
    """Open a 50 MB upload and a never-ending request, and send a wrong secret and another user's request."""
    head = (
        f"POST /lunavect/hook/claude HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Lunavect-Secret: {secret}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {50 * 1024 * 1024}\r\n\r\n"
    ).encode()
    upload = socket.create_connection(("127.0.0.1", port), timeout=10)
    upload.sendall(head + b"{" * 65536)
    endless = socket.create_connection(("127.0.0.1", port), timeout=10)
    endless.sendall(head[:30])
    body = b'{"hook_event_name": "PreToolUse", "session_id": "3fd75c2e-f60a-47a1-9b70-087f2037adbf"}'

    def request(secret_value: str) -> bytes:
        return (
            f"POST /lunavect/hook/claude HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Lunavect-Secret: {secret_value}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode() + body

    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request("0" * 64))
        wrong = sock.recv(100).split(b" ")[1].decode()
    statuses = [wrong]
    if os.geteuid() == 0 and shutil.which("setpriv"):
        # Another user's connection is closed at once, unread: the kernel's reset may overtake the 403.
        code = (
            "import socket,sys\ns=socket.create_connection(('127.0.0.1',int(sys.argv[1])))\n"
            "try:\n s.sendall(sys.stdin.buffer.read());s.shutdown(1);print((s.recv(100).split(b' ')+[b'reset'])[1].decode())\n"
            "except OSError: print('reset')"
        )
        proc = subprocess.run(
            ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups", sys.executable, "-I", "-c", code]
            + [str(port)],
            input=request(secret),
            capture_output=True,
            timeout=30,
            check=True,
        )
        statuses.append(proc.stdout.decode().strip())
    return [upload, endless], statuses


def test_bad_requests_are_refused_and_never_block_the_clients_events(claude_tmux, model_server, iso_home):
    opened, statuses = _bad_requests(_port(iso_home), _secret(iso_home))
    try:
        assert statuses[0] == "403"  # a wrong secret
        if len(statuses) > 1:
            assert statuses[1] in ("403", "reset")  # the right secret, from user nobody
        model_server.script(
            tool_use("Bash", {"command": 'python3 -c "import time; time.sleep(4)"', "description": "wait"}),
            text("Done."),
        )
        claude = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits")
        claude.send_text("wait a little")
        wait_for(iso_home.env, lambda s: s["activity"] == "Bash", timeout=40)
        wait_state(iso_home.env, "ready", timeout=40)
        for sock in opened:  # the listener answered both (413, 408) and closed them; the client never waited
            sock.settimeout(10)
            assert sock.recv(100).split(b" ")[1] in (b"413", b"408")
    finally:
        for sock in opened:
            sock.close()
    # Nothing of the refused requests was stored: the only HTTP events are the client's own.
    assert {line["event"] for line in _http_lines(iso_home)} == {"PreToolUse", "PostToolUse"}
    assert len(_http_lines(iso_home)) == 2


def test_a_persons_allow_list_keeps_working_with_lunavects_url_in_it(claude_print, model_server, iso_home):
    # The person allows HTTP hooks to one host of theirs only; installing again adds lunavect's exact URL.
    settings = iso_home.read_claude_settings()
    iso_home.write_claude_settings({**settings, "allowedHttpHookUrls": ["https://hooks.example.com/*"]})
    done = _lunavect(iso_home.env, "hooks", "install", *client_ids(), "--http")
    assert done.returncode == 0, done.stderr
    allowed = iso_home.read_claude_settings()["allowedHttpHookUrls"]
    assert allowed == ["https://hooks.example.com/*", f"http://127.0.0.1:{_port(iso_home)}/lunavect/hook/claude"]
    model_server.script(tool_use("Bash", {"command": "ls", "description": "list"}), text("done"))
    proc = claude_print("list files", "--allowedTools", "Bash")
    assert proc.returncode == 0, proc.stderr
    assert "blocked" not in proc.stderr, proc.stderr
    assert wait_for_lines(iso_home, 2) == {"PreToolUse", "PostToolUse"}


def wait_for_lines(iso: IsoHome, count: int, timeout: float = 20) -> set[str]:
    deadline = time.monotonic() + timeout
    while len(_http_lines(iso)) < count and time.monotonic() < deadline:
        time.sleep(0.1)
    return {line["event"] for line in _http_lines(iso)}
