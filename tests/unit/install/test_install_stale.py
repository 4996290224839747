"""A hook command whose virtual environment moved or was upgraded is reported as stale, not lost silently.

The shim's failures never reach the agent, so a command that no longer runs lunavect would lose every event
without a word; `hooks status` must say "stale: reinstall", and `hooks install` must say what it wrote.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lunavect.cli.root import cli
from lunavect.clients.claude import install
from lunavect.core.clients import ids as client_ids
from lunavect.install import command

PAYLOAD = json.dumps({"hook_event_name": "Stop", "session_id": "s-stale-1", "cwd": "/tmp"}).encode()


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def other_venv(root: Path) -> tuple[Path, Path]:
    """A real virtual environment whose package folder holds this checkout's lunavect (as a link)."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = venv / "lib" / "lunavect-site"
    site.mkdir(parents=True)
    (site / "lunavect").symlink_to(command.package_parent() / "lunavect")
    return venv / "bin" / "python", site


def command_in(python: Path, site: Path) -> str:
    return shlex.join([str(python), "-I", "-S", "-c", command.LAUNCHER, str(site), "claude"])


def write_command(iso_env, hook: str) -> None:
    run("hooks", "install", *client_ids())
    path = install.settings_path()
    settings = json.loads(path.read_text())
    for event in install.EVENTS:
        settings["hooks"][event][-1]["hooks"][0]["command"] = hook
    path.write_text(json.dumps(settings))


def spooled(iso_env, hook: str) -> int:
    """Run the command as the agent would and count the spool's lines afterwards."""
    subprocess.run(["bash", "-c", hook], input=PAYLOAD, env=iso_env.env, check=False, timeout=60)
    spool = Path(iso_env.env["LUNAVECT_HOME"]) / "spool" / "events.jsonl"
    return len(spool.read_bytes().splitlines()) if spool.exists() else 0


def test_install_names_the_interpreter_and_package_it_wrote(iso_env):
    out = run("hooks", "install", *client_ids()).stdout
    assert f"hook command: {sys.executable} running lunavect's shim from {command.package_parent()}" in out


@pytest.mark.process
def test_a_moved_virtual_environment_is_stale_reinstall(iso_env, tmp_path):
    python, site = other_venv(tmp_path / "a")
    hook = command_in(python, site)
    write_command(iso_env, hook)
    assert spooled(iso_env, hook) == 1  # a working installation: only another one than this
    assert install.status().detail == "points at another lunavect installation"

    (tmp_path / "a").rename(tmp_path / "b")

    assert spooled(iso_env, hook) == 1  # the event is lost, and the agent is not told
    state = install.status()
    assert (state.state, state.stale_commands) == ("stale", [hook])
    assert "no longer exists" in state.detail
    assert "claude: stale: reinstall" in run("hooks", "status").stdout
    run("hooks", "install", *client_ids())
    assert install.status().state == "installed"


@pytest.mark.process
def test_an_upgraded_base_interpreter_is_stale_reinstall(iso_env, tmp_path):
    python, site = other_venv(tmp_path)
    hook = command_in(python, site)
    write_command(iso_env, hook)
    assert install.status().detail == "points at another lunavect installation"
    python.unlink()
    python.symlink_to(tmp_path / "gone" / "python3.99")  # the base Python it linked to was upgraded away
    assert spooled(iso_env, hook) == 0
    assert install.status().detail == "points at a path that no longer exists"
    assert "claude: stale: reinstall" in run("hooks", "status").stdout


@pytest.mark.process
def test_a_package_folder_without_lunavect_is_stale(iso_env, tmp_path):
    python, site = other_venv(tmp_path)
    hook = command_in(python, site)
    write_command(iso_env, hook)
    (site / "lunavect").unlink()  # lunavect was uninstalled from that environment
    assert not command.still_runs(hook)
    assert install.status().detail == "points at a path that no longer exists"
    assert os.path.exists(python)


def test_codex_says_stale_reinstall_for_a_missing_interpreter(iso_env, monkeypatch, tmp_path):
    from lunavect.clients.codex import install as codex_install

    monkeypatch.setenv("LUNAVECT_CODEX", str(tmp_path / "no-such-codex"))  # no app-server to ask for trust
    codex_install.install()
    path = codex_install.hooks_path()
    hooks = json.loads(path.read_text())
    gone = str(tmp_path / "moved" / "bin" / "python")
    for groups in hooks["hooks"].values():
        handler = groups[-1]["hooks"][0]
        handler["command"] = handler["command"].replace(shlex.quote(sys.executable), gone, 1)
    path.write_text(json.dumps(hooks))
    state = codex_install.status()
    assert state.state == "stale" and state.detail == "points at a path that no longer exists"
    assert codex_install.describe_status(state).startswith("codex: stale: reinstall")
