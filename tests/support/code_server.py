"""code-server (VS Code in a browser) for the editor companion's tests: installed once per machine by
scripts/install-code-server, started on 127.0.0.1 with its own user-data and extensions folders and no
authentication, every file it writes inside the test's folder, and driven in Debian's Chromium through
Playwright (see shared/research/code-server.md for the recipe and its pitfalls).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "scripts" / "install-code-server"
VERSION = "4.100.0"

# Written before the first start: no trust prompt, no welcome page, no update checks, terminals drawn by
# the DOM renderer (their text is the page's), none revived after a reload.
SETTINGS = {
    "security.workspace.trust.enabled": False,
    "workbench.startupEditor": "none",
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": False,
    "extensions.autoUpdate": False,
    "update.mode": "none",
    "terminal.integrated.defaultProfile.linux": "bash",
    "terminal.integrated.enablePersistentSessions": False,
    "terminal.integrated.gpuAcceleration": "off",
    "terminal.integrated.showTerminalConfigPrompt": False,
    "remote.autoForwardPorts": False,
    "workbench.tips.enabled": False,
}


class CodeServerMissing(RuntimeError):
    pass


def ensure_code_server() -> Path:
    """The pinned code-server, installed first if this machine has none (a few minutes, once)."""
    try:
        done = subprocess.run(
            ["bash", str(INSTALLER)], capture_output=True, text=True, timeout=1800, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise CodeServerMissing(f"scripts/install-code-server: {exc}") from exc
    if done.returncode != 0:
        raise CodeServerMissing(f"scripts/install-code-server failed: {done.stderr.strip()[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CodeServer:
    """One code-server process; `url` opens the workspace folder."""

    def __init__(self, binary: Path, root: Path, env: dict[str, str], workspace: Path) -> None:
        self.binary = binary
        self.root = root
        self.user_data = root / "cs-data"
        self.extensions = root / "cs-extensions"
        self.workspace = workspace
        self.port = free_port()
        self.env = dict(env, SHELL="/bin/bash")
        self.proc: subprocess.Popen | None = None
        self.log = root / "code-server.log"
        settings = self.user_data / "User" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(SETTINGS))
        self.extensions.mkdir(parents=True, exist_ok=True)
        self.config = root / "code-server.yaml"
        self.config.write_text(f"bind-addr: 127.0.0.1:{self.port}\nauth: none\ncert: false\n")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?folder={self.workspace}"

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """code-server's own command line on this server's folders (--install-extension, --list-extensions)."""
        argv = [str(self.binary), "--user-data-dir", str(self.user_data), "--extensions-dir", str(self.extensions)]
        return subprocess.run(
            [*argv, *args], env=self.env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )

    def start(self, timeout: float = 90) -> None:
        argv = [
            "nice",
            "-n",
            "19",
            str(self.binary),
            "--config",
            str(self.config),
            "--bind-addr",
            f"127.0.0.1:{self.port}",
            "--auth",
            "none",
            "--user-data-dir",
            str(self.user_data),
            "--extensions-dir",
            str(self.extensions),
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            str(self.workspace),
        ]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                argv, env=self.env, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"code-server exited {self.proc.returncode}: {self.log.read_text()[-2000:]}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2) as reply:
                    if reply.status == 200:
                        return
            time.sleep(0.2)
        raise TimeoutError(f"code-server did not answer in {timeout}s: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        """Its whole process group (server, extension host, pty host, the terminals' shells)."""
        if self.proc is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
        self.proc = None


class Workbench:
    """The VS Code page in Chromium: terminals opened, typed into and read back from the DOM."""

    def __init__(self, page) -> None:
        self.page = page

    def wait_ready(self, timeout: float = 120) -> None:
        self.page.wait_for_selector(".monaco-workbench", timeout=timeout * 1000)
        self.page.wait_for_selector(".statusbar", timeout=timeout * 1000)

    def command(self, name: str) -> None:
        self.page.keyboard.press("F1")
        self.page.wait_for_selector(".quick-input-widget input", timeout=30_000)
        self.page.keyboard.type(name, delay=10)
        self.page.wait_for_selector(".quick-input-list .monaco-list-row.focused", timeout=30_000)
        time.sleep(0.3)
        self.page.keyboard.press("Enter")

    def new_terminal(self) -> None:
        before = self.terminal_count()
        self.command("Terminal: Create New Terminal")
        deadline = time.monotonic() + 60
        while self.terminal_count() <= before:
            if time.monotonic() > deadline:
                raise TimeoutError("the new terminal did not appear")
            time.sleep(0.2)

    def terminal_count(self) -> int:
        return int(self.page.evaluate("document.querySelectorAll('.terminal-wrapper').length"))

    def visible_terminal_text(self) -> str:
        """The text of the terminal the page shows (the DOM renderer's rows)."""
        return str(
            self.page.evaluate(
                """() => {
                    const shown = [...document.querySelectorAll('.terminal-wrapper')].filter(w => w.offsetParent !== null);
                    return shown.map(w => (w.querySelector('.xterm-rows') || {}).innerText || '').join('\\n');
                }"""
            )
        )

    def selected_tab(self) -> str | None:
        """The aria-label of the selected row of the terminal tab list ("Terminal 2 bash"), shown with two or more."""
        return self.page.evaluate(
            """() => {
                const row = [...document.querySelectorAll('.terminal-tabs-entry')]
                    .map(e => e.closest('.monaco-list-row')).find(r => r && r.classList.contains('selected'));
                return row ? row.getAttribute('aria-label') : null;
            }"""
        )

    def focused_terminal_text(self) -> str:
        """The text of the terminal that holds the keyboard focus, '' when none does."""
        return str(
            self.page.evaluate(
                """() => {
                    const el = document.activeElement;
                    const wrapper = el && el.classList.contains('xterm-helper-textarea') ? el.closest('.terminal-wrapper') : null;
                    return wrapper ? ((wrapper.querySelector('.xterm-rows') || {}).innerText || '') : '';
                }"""
            )
        )

    def type_line(self, text: str, attempts: int = 4) -> None:
        """Type a command line and run it, once the terminal shows it whole: keys typed while a new shell
        is still starting can be lost (the line is cleared and typed again)."""
        for _ in range(attempts):
            self.page.keyboard.type(text, delay=20)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                # A long line wraps over several rows.
                if self.visible_terminal_text().replace("\n", "").rstrip().endswith(text):
                    self.page.keyboard.press("Enter")
                    return
                time.sleep(0.2)
            self.page.keyboard.press("Control+U")
            time.sleep(1.0)
        raise TimeoutError(
            f"the terminal never showed the typed line {text!r}:\n{self.visible_terminal_text()[-1500:]}"
        )

    def wait_text(self, pattern: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            text = self.visible_terminal_text()
            if pattern in text:
                return text
            if time.monotonic() > deadline:
                raise TimeoutError(f"the terminal did not show {pattern!r} in {timeout}s:\n{text[-2000:]}")
            time.sleep(0.3)
