"""What Claude Code 2.1.328 does with `"type": "http"` hooks, observed with the real client.

These facts decide which events lunavect may deliver over HTTP (tests/clients/NOTES.md, "HTTP hooks"):
what the client POSTs, which headers it sends, and what a refusing or silent URL costs the turn.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from anthropic_server import RefusingPort, text, tool_use


class Recorder:
    """A loopback HTTP server that records each POST (path, headers, body) and answers 200 with no body."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
                recorder.requests.append(
                    {"path": self.path, "headers": dict(self.headers.items()), "body": json.loads(body or b"null")}
                )
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _http_hooks(iso_home, url: str, events: list[str], *, timeout: int | None = None, extra: dict | None = None):
    data = iso_home.read_claude_settings()
    handler: dict = {
        "type": "http",
        "url": url,
        "headers": {"Authorization": "Bearer $LV_TEST_SECRET"},
        "allowedEnvVars": ["LV_TEST_SECRET"],
    }
    if timeout is not None:
        handler["timeout"] = timeout
    for event in events:
        data.setdefault("hooks", {}).setdefault(event, []).append({"hooks": [handler]})
    data.update(extra or {})
    iso_home.write_claude_settings(data)


EVENTS = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"]


def test_http_hook_posts_the_event_json_with_env_headers(claude_print, iso_home, model_server):
    rec = Recorder()
    try:
        _http_hooks(iso_home, rec.url + "/hook/abc", EVENTS)
        model_server.script(tool_use("Bash", {"command": "ls", "description": "list"}), text("done"))
        proc = claude_print("list files", env={"LV_TEST_SECRET": "s3cret"})
        assert proc.returncode == 0, proc.stderr
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "SessionEnd" not in [r["body"]["hook_event_name"] for r in rec.requests]:
            time.sleep(0.05)
        names = [r["body"]["hook_event_name"] for r in rec.requests]
        assert {"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} <= set(names), names
        first = rec.requests[0]
        assert first["path"] == "/hook/abc"
        assert first["headers"].get("Authorization") == "Bearer s3cret"
        assert first["body"]["session_id"]
    finally:
        rec.close()


@pytest.mark.parametrize("kind", ["refused", "silent"])
def test_http_hook_failure_does_not_stop_the_turn(claude_print, iso_home, model_server, kind):
    if kind == "refused":
        port = RefusingPort()
        url = port.url if hasattr(port, "url") else f"http://127.0.0.1:{port.port}"
    else:
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)  # accepts at kernel level, never answers
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
    # A silent URL holds the turn for the hook's whole timeout: one event, the shortest timeout.
    _http_hooks(iso_home, url + "/hook/x", EVENTS if kind == "refused" else ["Stop"], timeout=1)
    model_server.script(tool_use("Bash", {"command": "ls", "description": "list"}), text("done"))
    proc = claude_print("list files", env={"LV_TEST_SECRET": "s3cret"})
    assert proc.returncode == 0
    assert "done" in proc.stdout


def test_allowed_http_hook_urls_blocks_other_targets(claude_print, iso_home, model_server):
    rec = Recorder()
    try:
        _http_hooks(iso_home, rec.url + "/hook/abc", EVENTS, extra={"allowedHttpHookUrls": ["http://127.0.0.1:1/*"]})
        model_server.script(text("done"))
        proc = claude_print("hi", env={"LV_TEST_SECRET": "s3cret"})
        assert proc.returncode == 0
        assert rec.requests == []
    finally:
        rec.close()
