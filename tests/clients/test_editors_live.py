"""Sessions in editors, for real: code-server 4.100.0 (VS Code 1.100) on 127.0.0.1 with its own user-data and
extensions folders and no authentication, lunavect's companion installed by `lunavect editors install
code-server`, the workbench in Debian's Chromium through Playwright, and in its integrated terminals two real
Claude Code sessions and a real Codex session against the scripted model servers.

Proves: `lunavect open ID` makes exactly that session's terminal the active one, read back from the page (the
selected tab, the terminal that shows and holds the keyboard focus) and from the companion itself, for each
session and from each other terminal; `editors status` and doctor see the companion installed and answering;
once the browser tab is closed the terminals still run, and `open` says that their window closed, focusing
nothing; `editors uninstall` takes the companion out again.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from anthropic_server import AnthropicServer, has_tools, text
from claude_tmux import ClientPaths, IsoHome
from code_server import CodeServer, CodeServerMissing, Workbench, ensure_code_server
from open_support import ClientsStage, write_codex_hooks
from responses_server import ResponsesServer, message

from lunavect.install.command import hook_command

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="session")
def code_server_bin() -> Path:
    try:
        return ensure_code_server()
    except CodeServerMissing as exc:
        pytest.fail(str(exc))


def chromium() -> str:
    path = os.environ.get("LUNAVECT_CHROMIUM") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.skip("Chromium is not installed (scripts/test installs Debian's chromium)")
    return path


class Stage(ClientsStage):
    timeout = 120

    def __init__(self, iso: IsoHome, clients: ClientPaths, claude_url: str, responses: ResponsesServer) -> None:
        super().__init__(iso, clients, claude_url, responses)
        write_codex_hooks(iso.codex_dir, hook_command("codex"))


def _wait(predicate, what: str, timeout: float = 60, step: float = 0.3):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(step)


def _registration(channel: Path) -> dict | None:
    found = [json.loads(p.read_text()) for p in channel.glob("*.json")] if channel.is_dir() else []
    return found[0] if len(found) == 1 else None


def _ask(channel: Path, registration: dict, request: dict) -> dict:
    import socket

    with socket.socket(socket.AF_UNIX) as conn:
        conn.settimeout(10)
        conn.connect(str(channel / registration["socket"]))
        conn.sendall(json.dumps(request).encode() + b"\n")
        received = b""
        while not received.endswith(b"\n"):
            chunk = conn.recv(65536)
            if not chunk:
                break
            received += chunk
    return json.loads(received)


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _submit(wb: Workbench, prompt: str, sent, timeout: float = 60) -> None:
    wb.page.keyboard.type(prompt, delay=15)
    time.sleep(0.5)
    wb.page.keyboard.press("Enter")
    deadline = time.monotonic() + timeout
    while not sent():
        assert time.monotonic() < deadline, f"the prompt was never submitted:\n{wb.visible_terminal_text()[-1500:]}"
        time.sleep(2.0)
        if not sent():
            wb.page.keyboard.press("Enter")


def test_open_selects_each_sessions_terminal_in_code_server_and_a_closed_window_is_named(
    iso_home: IsoHome,
    client_paths: ClientPaths,
    model_server: AnthropicServer,
    codex_server: ResponsesServer,
    code_server_bin: Path,
) -> None:
    assert iso_home.lunavect_hooks_installed
    stage = Stage(iso_home, client_paths, model_server.url, codex_server)
    server = CodeServer(code_server_bin, iso_home.root, stage.env, iso_home.work)
    channel = iso_home.lunavect_home / "editors"

    # Installed through code-server's own --install-extension, into this server's folders.
    done = stage.lunavect(
        "editors",
        "install",
        "code-server",
        "--command",
        str(code_server_bin),
        "--extensions-dir",
        str(server.extensions),
        "--user-data-dir",
        str(server.user_data),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "companion 0.1.0 installed" in done.stdout, done.stdout
    assert "lunavect.lunavect-companion@0.1.0" in server.cli("--list-extensions", "--show-versions").stdout

    from playwright.sync_api import sync_playwright

    server.start()
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=chromium(),
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
            env=iso_home.env,  # its profile, caches and NSS database in the test's folder, never in ~
        )
        page = browser.new_context(viewport={"width": 1280, "height": 860}).new_page()
        page.goto(server.url)
        wb = Workbench(page)
        wb.wait_ready()

        # Three terminals: Claude Code in two folders, Codex in a third.
        runs = [
            ("a", "claude", "Reply from the first Claude"),
            ("b", "claude", "Reply from the second Claude"),
            ("c", "codex --dangerously-bypass-hook-trust", "Reply from Codex"),
        ]
        for index, (name, command, reply) in enumerate(runs):
            wb.new_terminal()
            _wait(lambda: re.search(r"[#$] *$", wb.visible_terminal_text(), re.M), "the shell's prompt", timeout=60)
            time.sleep(2.5)  # a new shell's prompt comes before its shell integration has finished starting
            # The terminal's login shell sets its own PATH (Debian's /etc/profile): the clients by their paths.
            wb.type_line(f"cd {stage.folder(name)} && {stage.bin_dir}/{command}")
            prompt = f"please answer with {reply.lower()}"
            if command == "claude":
                wb.wait_text("❯", timeout=60)
                model_server.script(text(reply), match=lambda r, p=prompt: has_tools(r) and p in r.last_user_text())
                _submit(wb, prompt, lambda p=prompt: any(p in r.last_user_text() for r in model_server.requests))
            else:
                _wait(lambda: re.search(r"Ask Codex to do anything|›", wb.visible_terminal_text()), "Codex's prompt")
                time.sleep(1.0)
                codex_server.script(
                    message(reply), match=lambda r, p=prompt: bool(r.tool_names) and p in r.last_user_text()
                )
                _submit(wb, prompt, lambda p=prompt: any(p in r.last_user_text() for r in codex_server.requests))
            wb.wait_text(reply, timeout=90)
            assert wb.terminal_count() == index + 1

        registration = _wait(
            lambda: (r := _registration(channel)) and len(r["terminals"]) == 3 and r, "the companion's registration"
        )
        assert (channel.stat().st_mode & 0o777, (channel / registration["socket"]).stat().st_mode & 0o777) == (
            0o700,
            0o600,
        )
        assert (channel / f"{registration['id']}.json").stat().st_mode & 0o777 == 0o600
        shells = [t["pid"] for t in registration["terminals"]]
        sessions = _wait(
            lambda: (ss := stage.sessions()) and len([s for s in ss if s["state"] == "ready"]) == 3 and ss,
            "three ready sessions",
            timeout=90,
        )
        # Each session's agent runs under one terminal's shell.
        by_shell = {}
        for shell in shells:
            below = {shell, *_children(shell)}
            below |= {g for c in list(below) for g in _children(c)}
            found = [s for s in sessions if s["pid"] in below]
            assert len(found) == 1, (shell, below, sessions)
            by_shell[shell] = found[0]
        assert [by_shell[s]["provider"] for s in shells] == ["claude", "claude", "codex"]

        status = json.loads(stage.lunavect("editors", "status", "--json").stdout)
        code_server_status = next(s for s in status if s["editor"] == "code-server")
        assert code_server_status["installed"] == "0.1.0" and code_server_status["answering"] == 1, status
        doctor = stage.lunavect("doctor")
        assert (
            "code-server: companion 0.1.0 installed" in doctor.stdout and "1 of 1 window(s) answering" in doctor.stdout
        )

        # From the last terminal to each other one, and back.
        for position in (0, 1, 2, 0):
            shell, session = shells[position], by_shell[shells[position]]
            proc = stage.lunavect("open", session["id"], "--json")
            assert proc.returncode == 0, proc.stdout + proc.stderr
            result = json.loads(proc.stdout)
            assert result["outcome"] == "focused", result
            assert result["target"] == f"{registration['id']}:{shell}", result
            assert result["terminal"] == "code-server"
            time.sleep(0.5)
            # The page: its tab is the selected one, its text is the terminal shown and the keyboard is there.
            assert (wb.selected_tab() or "").startswith(f"Terminal {position + 1} "), wb.selected_tab()
            assert runs[position][2] in wb.visible_terminal_text()
            assert runs[position][2] in wb.focused_terminal_text()
            for other in (r for i, r in enumerate(runs) if i != position):
                assert other[2] not in wb.visible_terminal_text()
            # The companion: the active terminal is that shell's.
            assert _ask(channel, registration, {"op": "ping"})["active"]["pid"] == shell

        # The browser tab closes: the window goes, its terminals (and agents) stay.
        page.close()
        _wait(lambda: not list(channel.glob("*.json")), "the registration to go", timeout=60)
        assert not list(channel.glob("*.sock"))
        assert (channel / f"{registration['id']}.closed").exists()
        assert all(Path(f"/proc/{s}").exists() for s in shells)
        for shell in shells:
            proc = stage.lunavect("open", by_shell[shell]["id"], "--json")
            result = json.loads(proc.stdout)
            assert proc.returncode == 1 and result["outcome"] == "gone", proc.stdout + proc.stderr
            assert "window that showed its terminal" in result["message"] and "has closed" in result["message"]
            assert f"shell pid {shell}" in result["message"]
        plain = stage.lunavect("open", by_shell[shells[0]]["id"])
        assert (
            plain.returncode == 1
            and plain.stderr.startswith("lunavect: gone: ")
            and len(plain.stderr.splitlines()) == 1
        )
        browser.close()
    finally:
        playwright.stop()
        server.stop()

    done = stage.lunavect(
        "editors",
        "uninstall",
        "code-server",
        "--command",
        str(code_server_bin),
        "--extensions-dir",
        str(server.extensions),
    )
    assert done.returncode == 0 and "removed companion 0.1.0" in done.stdout, done.stdout + done.stderr
    assert "lunavect.lunavect-companion" not in server.cli("--list-extensions").stdout


STAND_IN = """const vscode = require('vscode');
const fs = require('fs');
exports.activate = (context) => {
  context.subscriptions.push(vscode.window.registerUriHandler({
    handleUri(uri) { fs.appendFileSync(process.env.LUNAVECT_TEST_URI_LOG, `${uri.authority} ${uri.path} ${uri.query}\\n`); },
  }));
};
"""


def _stand_in_vsix(target: Path) -> Path:
    """An extension with Claude Code's id that only records the links it is handed: Claude Code's own
    extension cannot be installed here (it comes from the Marketplace)."""
    import zipfile

    from lunavect.navigation.editors import companion

    package = {
        "name": "claude-code",
        "publisher": "anthropic",
        "version": "0.0.1",
        "engines": {"vscode": "^1.100.0"},
        "activationEvents": ["onUri"],
        "main": "./extension.js",
        "contributes": {},
    }
    manifest = companion.Manifest("anthropic", "claude-code", "0.0.1", "stand-in", "", "^1.100.0")
    with zipfile.ZipFile(target, "w") as vsix:
        vsix.writestr("[Content_Types].xml", companion._CONTENT_TYPES)
        vsix.writestr("extension.vsixmanifest", companion._vsix_manifest(manifest))
        vsix.writestr("extension/package.json", json.dumps(package))
        vsix.writestr("extension/extension.js", STAND_IN)
    return target


def test_the_companion_hands_a_panel_session_to_claude_codes_uri_handler_in_its_window(
    iso_home: IsoHome, code_server_bin: Path
) -> None:
    """The companion's `panel` request opens Claude Code's documented link (`/open?session=<id>`) in its own
    window, where the extension with Claude Code's id receives it: no new browser tab, no prompt."""
    links = iso_home.root / "links.log"
    env = dict(iso_home.env, LUNAVECT_TEST_URI_LOG=str(links))
    server = CodeServer(code_server_bin, iso_home.root, env, iso_home.work)
    channel = iso_home.lunavect_home / "editors"
    for vsix in (_stand_in_vsix(iso_home.root / "stand-in.vsix"),):
        assert server.cli("--install-extension", str(vsix)).returncode == 0
    done = subprocess.run(
        [sys.executable, "-m", "lunavect", "editors", "install", "code-server", "--command", str(code_server_bin)]
        + ["--extensions-dir", str(server.extensions), "--user-data-dir", str(server.user_data)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    from playwright.sync_api import sync_playwright

    server.start()
    playwright = sync_playwright().start()
    try:
        browser = playwright.chromium.launch(
            executable_path=chromium(), args=["--headless", "--no-sandbox", "--disable-gpu"], env=env
        )
        context = browser.new_context(viewport={"width": 1280, "height": 860})
        page = context.new_page()
        page.goto(server.url)
        Workbench(page).wait_ready()
        registration = _wait(lambda: _registration(channel), "the companion's registration", timeout=90)
        assert registration["panels"] == {"claude": True, "codex": False}
        session = "5f0c2a9e-3b1d-4c8e-9a7f-2d6b8e1c4a30"
        answer = _ask(channel, registration, {"op": "panel", "provider": "claude", "session": session})
        assert answer == {"ok": True, "protocol": 1, "opened": "claude"}
        assert _wait(lambda: links.exists() and links.read_text(), "the link") == (
            f"anthropic.claude-code /open session={session}\n"
        )
        assert len(context.pages) == 1
        codex = _ask(channel, registration, {"op": "panel", "provider": "codex", "session": session})
        assert (codex["ok"], codex["error"]) == (False, "no-extension")
        refused = _ask(channel, registration, {"op": "panel", "provider": "claude", "session": "../../x"})
        assert (refused["ok"], refused["error"]) == (False, "bad-request")
        browser.close()
    finally:
        playwright.stop()
        server.stop()
