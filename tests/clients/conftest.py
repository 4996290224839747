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
from codex_harness import codex_env
from responses_server import ResponsesServer

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
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "lunavect", "hooks", "install"],
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


@pytest.fixture
def model_server() -> Iterator[AnthropicServer]:
    """A running scripted Anthropic Messages API on 127.0.0.1 (see anthropic_server.py)."""
    with AnthropicServer() as server:  # started, and stopped at teardown
        yield server


@pytest.fixture
def codex_server() -> Iterator[ResponsesServer]:
    """A running scripted OpenAI Responses API on 127.0.0.1 for Codex (see responses_server.py)."""
    with ResponsesServer() as server:  # started, and stopped at teardown
        yield server


@pytest.fixture
def codex_tmux(client_paths: ClientPaths, iso_home: IsoHome, codex_server: ResponsesServer):
    """(paths, iso, env) for a Codex TUI under tmux; skipped where the pinned Codex or tmux is missing."""
    if client_paths.codex is None:
        pytest.skip("the pinned Codex CLI is not installed")
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    return client_paths, iso_home, codex_env(iso_home, client_paths)


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A running scripted OpenAI Chat Completions API on 127.0.0.1 for OpenCode (see chat_server.py)."""
    with ChatServer() as server:  # started, and stopped at teardown
        yield server


@pytest.fixture
def hook_log(iso_home: IsoHome) -> HookLog:
    """Test-only capture hooks for every Claude Code event in the iso HOME's settings.json."""
    return iso_home.install_capture_hooks()


@pytest.fixture
def claude_print(
    client_paths: ClientPaths, iso_home: IsoHome, model_server: AnthropicServer
) -> Callable[..., subprocess.CompletedProcess]:
    """``claude_print(prompt, *args, cwd=None, server=None, api_key=..., max_retries=0, env=None, timeout=60)``
    runs ``claude -p`` in the iso HOME against ``model_server`` (or ``server``)."""

    def run(
        prompt: str,
        *args: str,
        cwd: Path | str | None = None,
        server: AnthropicServer | None = None,
        base_url: str | None = None,
        api_key: str = DEFAULT_API_KEY,
        max_retries: int | None = 0,
        env: dict[str, str] | None = None,
        timeout: float = 60,
    ) -> subprocess.CompletedProcess:
        cwd = Path(cwd) if cwd else iso_home.work
        iso_home.prepare_claude(api_key=api_key, cwds=[cwd])
        url = base_url or (server or model_server).url
        full_env = iso_home.claude_env(url, api_key=api_key, max_retries=max_retries, extra=env)
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
        cwd: Path | str | None = None,
        server: AnthropicServer | None = None,
        base_url: str | None = None,
        api_key: str = DEFAULT_API_KEY,
        max_retries: int | None = 0,
        env: dict[str, str] | None = None,
        wait_ready: bool = True,
        ready_timeout: float = 30,
        via_shell: bool = False,
        width: int = 200,
        height: int = 50,
    ) -> ClaudeTmux:
        cwd = Path(cwd) if cwd else iso_home.work
        iso_home.prepare_claude(api_key=api_key, cwds=[cwd])
        url = base_url or (server or model_server).url
        full_env = iso_home.claude_env(url, api_key=api_key, max_retries=max_retries, extra=env)
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
