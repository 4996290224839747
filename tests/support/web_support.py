"""The web panel's browser tests: a real `lunavect web` process (which starts a real collector) in an isolated
installation, sessions sent through the real hook shim, and Debian's Chromium driven by Playwright.

Chromium is the system's (`/usr/bin/chromium`, or $LUNAVECT_CHROMIUM), never a downloaded browser; the tests
skip with the reason only where it is missing (the test command installs it).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shlex
import shutil
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

LUNAVECT_BIN = str(Path(sys.executable).parent / "lunavect")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
LINK = re.compile(r"(control|view only)[^:]*: (https?://\S+)")


def chromium_path() -> str | None:
    wanted = os.environ.get("LUNAVECT_CHROMIUM")
    if wanted:
        return wanted if Path(wanted).exists() else None
    return shutil.which("chromium") or (str(Path("/usr/bin/chromium")) if Path("/usr/bin/chromium").exists() else None)


def isolated_env(root: Path) -> dict[str, str]:
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        HOME=str(home),
        CLAUDE_CONFIG_DIR=str(home / ".claude"),
        CODEX_HOME=str(home / ".codex"),
        LUNAVECT_HOME=str(root / "data"),
        PYTHONUNBUFFERED="1",
    )
    env.pop("XDG_DATA_HOME", None)
    return env


def hook(env: dict[str, str], session: str, event: str, *, client: str = "claude", **fields: object) -> None:
    """One event through the real shim, as the agent (Claude Code unless `client` names another) sends it."""
    from lunavect.install.command import hook_command

    payload = {
        "session_id": session,
        "hook_event_name": event,
        "cwd": f"/home/u/{fields.pop('project', 'proj')}",
        "transcript_path": f"/home/u/.claude/projects/x/{session}.jsonl",
        "permission_mode": "default",
        **fields,
    }
    proc = subprocess.run(
        shlex.split(hook_command(client)),
        input=json.dumps(payload).encode(),
        env=env,
        capture_output=True,
        timeout=20,
        check=False,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LUNAVECT_BIN, *args], env=env, capture_output=True, text=True, timeout=60, check=False)


def list_json(env: dict[str, str], *args: str) -> list[dict]:
    proc = lunavect(env, "list", "--json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def stop_collector(env: dict[str, str]) -> None:
    lock = Path(env["LUNAVECT_HOME"]) / "collector.lock"
    try:
        pid = int(lock.read_text().strip() or 0)
    except (OSError, ValueError):
        return
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return
    if b"daemon" not in cmdline or f"LUNAVECT_HOME={env['LUNAVECT_HOME']}".encode() not in environ.split(b"\0"):
        return
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)


@dataclass
class Served:
    """A running `lunavect web`, its links and its installation."""

    env: dict[str, str]
    process: subprocess.Popen[str]
    base: str
    control: str
    view: str
    output: list[str] = field(default_factory=list)

    @property
    def hostport(self) -> str:
        return self.base.split("://", 1)[1].rstrip("/")

    def connection(self) -> http.client.HTTPConnection:
        if self.base.startswith("https:"):
            return http.client.HTTPSConnection(self.hostport, timeout=10, context=ssl._create_unverified_context())
        return http.client.HTTPConnection(self.hostport, timeout=10)

    def secret(self, link: str) -> str:
        return link.split("token=", 1)[1]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)


def start_web(env: dict[str, str], *extra: str, timeout: float = 60, max_files: int | None = None) -> Served:
    """`lunavect web --listen 127.0.0.1:0` on a store without tokens: it prints its two first links.
    `max_files`: the descriptor limit the server runs with (as a person's shell may set it: 1024 is common)."""

    def limit() -> None:
        if max_files is not None:
            import resource

            resource.setrlimit(resource.RLIMIT_NOFILE, (max_files, max_files))

    process = subprocess.Popen(
        [LUNAVECT_BIN, "web", "--listen", "127.0.0.1:0", "--no-qr", *extra],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=limit if max_files is not None else None,
    )
    lines: list[str] = []
    links: dict[str, str] = {}
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while len(links) < 2 and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = LINK.search(line)
        if match:
            links[match.group(1)] = match.group(2)
    if len(links) < 2:
        process.kill()
        raise AssertionError("lunavect web printed no links:\n" + "".join(lines))
    base = links["control"].split("?", 1)[0]
    served = Served(env, process, base, links["control"], links["view only"], lines)
    wait_ready(served)
    return served


def wait_ready(served: Served, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            conn = served.connection()
            conn.request("GET", "/static/app.css")
            if conn.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("lunavect web did not answer")


@pytest.fixture(scope="module", name="browser")
def chromium_browser() -> Iterator[object]:
    """One Playwright and one Chromium per test module, stopped when the module's tests are done.

    Playwright's sync API marks its event loop as running in this thread for as long as it lives: kept for the
    whole test process, it made every later test in the same worker that runs `asyncio.run` (Textual's pilot,
    the sync tests, the change feed's asyncio form) fail. A module's tests run one after another, so the
    browser lives only while they do."""
    path = chromium_path()
    if path is None:
        pytest.skip("Chromium is not installed (scripts/test installs Debian's chromium)")
    pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (the test extra)")
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
    finally:
        playwright.stop()


def open_page(browser: object, link: str, width: int = 1100, height: int = 800):
    context = browser.new_context(viewport={"width": width, "height": height})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(link)
    page.wait_for_selector("body[data-loaded='1']", timeout=20_000)
    return page
