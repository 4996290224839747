"""The web panel's walls against what another page or another program can do to it, on a real `lunavect web`:
a hostile page cannot lock the person out with wrong tokens, slow clients cannot take every descriptor, and
no outside text is ever read as markup by the page."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_support import Served, hook, isolated_env, open_page, start_web, stop_collector

SESSION = "eeeeeeee-5555-4555-8555-555555555555"


@pytest.fixture
def served(tmp_path) -> Iterator[Served]:
    env = isolated_env(tmp_path)
    hook(env, SESSION, "UserPromptSubmit", prompt="Fix the build", project="builder")
    server = start_web(env)
    try:
        yield server
    finally:
        server.stop()
        stop_collector(env)


class Page(http.server.ThreadingHTTPServer):
    """A page of another origin on this machine, serving one body."""

    def __init__(self, body: bytes) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/"


def status(served: Served, path: str, secret: str | None = None) -> int:
    conn = served.connection()
    conn.request("GET", path, headers={"Cookie": f"lunavect_web={secret}"} if secret else {})
    answer = conn.getresponse()
    answer.read()
    conn.close()
    return answer.status


def test_a_hostile_page_cannot_lock_the_person_out(served, browser):
    """As probed: eleven wrong tokens from any page made the right one get 429 too, for a minute at a time, and
    renewable; behind an SSH tunnel every user is 127.0.0.1."""
    images = "".join(f'<img src="{served.base}?token=x&n={n}">' for n in range(11))  # n: no image cache
    evil = Page(f"<!doctype html><body>{images}</body>".encode())
    context = browser.new_context()
    try:
        context.new_page().goto(evil.url, wait_until="load")  # every image has been asked for
    finally:
        context.close()
        evil.shutdown()
    assert status(served, "/api/me", "x") == 429  # the wrong tokens were counted: guessing is limited
    assert status(served, "/api/me", served.secret(served.control)) == 200
    page = open_page(browser, served.control)  # and the person's link opens the panel
    assert page.locator("li.row").count() == 1
    page.context.close()


SLOW = """
import socket, sys, time
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
socks, reconnects = [], 0

def dial():
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    return s

socks = [dial() for _ in range(count)]
print("open", flush=True)
end = time.monotonic() + seconds
turn = 0
while time.monotonic() < end:
    time.sleep(0.1)
    for i in range(turn % 30, count, 30):  # each socket sends one byte every 3 s
        try:
            socks[i].send(b"G" if turn < 30 else b"x")
        except OSError:
            socks[i].close()
            socks[i] = dial()
            reconnects += 1
    turn += 1
print(reconnects, flush=True)
"""


def descriptors(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/fd").iterdir()))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts descriptors in /proc")
def test_slow_clients_cannot_take_every_descriptor(tmp_path):
    """As probed: 1,100 connections each sending a header byte every 3 s held a server with 1,024 descriptors
    at its limit (`accept: EMFILE`), and the person's own requests were never served."""
    env = isolated_env(tmp_path)
    hook(env, SESSION, "UserPromptSubmit", prompt="Fix the build", project="builder")
    served = start_web(env, max_files=1024)
    host, port = served.hostport.rsplit(":", 1)
    slow = subprocess.Popen([sys.executable, "-c", SLOW, port, "1100", "12"], stdout=subprocess.PIPE, text=True)
    try:
        assert slow.stdout is not None and slow.stdout.readline().strip() == "open"
        most, answers = 0, []
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            most = max(most, descriptors(served.process.pid))
            started = time.monotonic()
            try:
                answers.append((status(served, "/api/me", served.secret(served.control)), time.monotonic() - started))
            except OSError as exc:
                answers.append((type(exc).__name__, time.monotonic() - started))  # type: ignore[arg-type]
            time.sleep(0.3)
        most = max(most, descriptors(served.process.pid))
        assert [code for code, _ in answers] == [200] * len(answers) and len(answers) >= 10
        assert max(took for _, took in answers) < 5.0
        assert most < 1024 - 24  # never at the limit: room is kept for the store and the rest
    finally:
        slow.kill()
        slow.wait()
        served.stop()
        stop_collector(env)
    output = "".join(served.output) + (served.process.stdout.read() if served.process.stdout else "")
    assert "out of system resource" not in output and "Too many open files" not in output


HOSTILE = [
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=2<-script>",  # a folder's name has no "/"
    "&amp; &lt;b&gt; <b>bold<-b>",
    '"><svg onload="window.__pwned=3">',
    "x" * 100_000 + "<i>end<-i>",
]


def test_outside_text_is_never_read_as_markup(tmp_path, browser):
    """Folders, titles and tool names come from outside: the page inserts them as text only (textContent)."""
    env = isolated_env(tmp_path)
    projects = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-home-u"
    projects.mkdir(parents=True)
    for n, text in enumerate(HOSTILE):
        session = f"ffffffff-{n:04d}-4fff-8fff-ffffffffffff"
        transcript = projects / f"{session}.jsonl"  # the title the person gave the session: any text at all
        transcript.write_text(json.dumps({"type": "custom-title", "customTitle": text, "sessionId": session}) + "\n")
        fields = {"project": text, "transcript_path": str(transcript)}
        hook(env, session, "UserPromptSubmit", prompt=text, **fields)
        hook(env, session, "PreToolUse", tool_name=text, tool_use_id=f"t{n}", tool_input={}, **fields)
    served = start_web(env)
    try:
        page = open_page(browser, served.control)
        page.wait_for_function(f"document.querySelectorAll('li.row').length === {len(HOSTILE)}", timeout=20_000)
        assert page.evaluate("window.__pwned") is None
        assert page.locator("#sessions img, #sessions script, #sessions svg, #sessions b, #sessions i").count() == 0
        shown = "\n".join(page.eval_on_selector_all("#sessions li.row", "rows => rows.map(r => r.textContent)"))
        for text in HOSTILE:
            assert text[:40] in shown  # the very characters, "&amp;" included, not what markup would make of them
        page.context.close()
    finally:
        served.stop()
        stop_collector(env)
