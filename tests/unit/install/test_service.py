"""`lunavect service`: the unit and agent files, and an honest answer where no service manager runs."""

from __future__ import annotations

import os
import plistlib
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lunavect.install import service as svc


def test_the_systemd_unit_runs_this_interpreter_with_the_folders_it_was_installed_with(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "LUNAVECT_HOME": str(tmp_path / "data dir"), "PATH": "/usr/bin"}
    unit = svc.systemd_unit(env, python="/opt/py/bin/python3")
    assert "ExecStart=/opt/py/bin/python3 -m lunavect daemon --quiet\n" in unit
    assert f'Environment="LUNAVECT_HOME={tmp_path}/data dir"\n' in unit
    # PATH too: where the installing shell found tmux and the clients' commands (a login's PATH may differ).
    assert "Environment=PATH=/usr/bin\n" in unit
    assert "Restart=on-failure" in unit and "WantedBy=default.target" in unit
    assert svc.unit_path(env, "linux") == tmp_path / ".config/systemd/user/lunavect.service"
    assert svc.unit_path({**env, "XDG_CONFIG_HOME": "/x"}, "linux") == Path("/x/systemd/user/lunavect.service")


def test_the_service_sees_every_client_s_folders_as_the_installing_shell_did(tmp_path: Path) -> None:
    """A collector started at login reads Gemini CLI's and OpenCode's files where the person's shell puts them."""
    env = {
        "HOME": str(tmp_path),
        "CLAUDE_CONFIG_DIR": "/c/claude",
        "CODEX_HOME": "/c/codex",
        "GEMINI_CLI_HOME": "/c/gemini",
        "XDG_DATA_HOME": "/c/data",
        "XDG_CONFIG_HOME": "/c/config",
        "OPENCODE_DB": "/c/oc.db",
        "EDITOR": "vi",
    }
    assert svc.carried(env) == {k: v for k, v in env.items() if k not in ("HOME", "EDITOR")}
    data = plistlib.loads(svc.launchd_plist(env, tmp_path / "log", python="/py"))
    assert data["EnvironmentVariables"]["GEMINI_CLI_HOME"] == "/c/gemini"
    assert "Environment=OPENCODE_DB=/c/oc.db\n" in svc.systemd_unit(env, python="/py")


def test_the_launchd_agent(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "CODEX_HOME": "/c"}
    data = plistlib.loads(svc.launchd_plist(env, tmp_path / "log", python="/py"))
    assert data["Label"] == svc.LAUNCHD_LABEL
    assert data["ProgramArguments"] == ["/py", "-m", "lunavect", "daemon", "--quiet"]
    assert data["RunAtLoad"] is True and data["KeepAlive"] == {"SuccessfulExit": False}
    assert data["EnvironmentVariables"] == {"CODEX_HOME": "/c"}
    assert svc.unit_path(env, "darwin") == tmp_path / "Library/LaunchAgents/dev.lunavect.collector.plist"


def _lunavect(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "lunavect", *args], env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.process
def test_without_a_systemd_user_manager_each_command_says_so(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "LUNAVECT_HOME": str(tmp_path / "lv"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_RUNTIME_DIR": str(tmp_path / "no-runtime"),  # no user manager's bus here, whatever the machine has
        "DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/no-bus",
    }
    status = _lunavect(env, "service", "status")
    assert status.returncode == 1 and "not installed" in status.stdout
    done = _lunavect(env, "service", "install")
    unit = tmp_path / "config/systemd/user/lunavect.service"
    assert done.returncode == 1 and "no systemd user manager" in done.stdout and str(unit) in done.stdout
    assert "lunavect daemon --quiet" in unit.read_text()
    status = _lunavect(env, "service", "status")
    assert status.returncode == 1 and "the service does not run" in status.stdout
    assert "Traceback" not in done.stderr + status.stderr
    gone = _lunavect(env, "service", "uninstall")
    assert gone.returncode == 0 and not unit.exists()


# -- what the unit carries is the person's environment, written into a file systemd reads (issue 42, item 7) ----


def verify(unit: str, folder: Path) -> subprocess.CompletedProcess:
    """systemd's own reading of a unit: `systemd-analyze verify` (no manager needed)."""
    path = folder / "lunavect.service"
    path.write_text(unit)
    return subprocess.run(["systemd-analyze", "verify", str(path)], capture_output=True, text=True, timeout=60)


def test_a_line_break_in_a_carried_folder_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    injected = f"{tmp_path}/data\nExecStartPre=/bin/touch {tmp_path}/owned"
    env = {"HOME": str(tmp_path), "LUNAVECT_HOME": injected, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    answer = svc.install(env, "linux")
    assert not answer.ok and "control character" in answer.message and "$LUNAVECT_HOME" in answer.message
    assert "\n" not in answer.message
    assert not svc.unit_path(env, "linux").exists()
    with pytest.raises(svc.ServiceError):
        svc.launchd_plist(env, tmp_path / "log")
    with pytest.raises(svc.ServiceError):
        svc.systemd_unit({"HOME": str(tmp_path)}, python="/opt/py\x1b]0;x\x07/python3")


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_a_percent_and_a_dollar_reach_the_service_as_they_are(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "LUNAVECT_HOME": f"{tmp_path}/a%hb%z$HOME"}
    unit = svc.systemd_unit(env, python=sys.executable)
    assert f'Environment="LUNAVECT_HOME={tmp_path}/a%%hb%%z$HOME"\n' in unit
    checked = verify(unit, tmp_path)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr  # no specifier left to resolve
    odd = tmp_path / "py%h$x"
    odd.symlink_to(sys.executable)
    unit = svc.systemd_unit({"HOME": str(tmp_path)}, python=str(odd))
    assert f'ExecStart="{tmp_path}/py%%h$x" -m lunavect' in unit
    checked = verify(unit, tmp_path)
    assert checked.returncode == 0 and checked.stderr == "", checked.stderr


def test_tmux_s_folder_and_path_are_carried(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": "/opt/bin:/usr/bin", "TMUX_TMPDIR": "/run/tmux here"}
    assert svc.carried(env) == {"PATH": "/opt/bin:/usr/bin", "TMUX_TMPDIR": "/run/tmux here"}
    unit = svc.systemd_unit(env, python="/py")
    assert "Environment=PATH=/opt/bin:/usr/bin\n" in unit and 'Environment="TMUX_TMPDIR=/run/tmux here"\n' in unit
    data = plistlib.loads(svc.launchd_plist(env, tmp_path / "log", python="/py"))
    assert data["EnvironmentVariables"] == {"PATH": "/opt/bin:/usr/bin", "TMUX_TMPDIR": "/run/tmux here"}
