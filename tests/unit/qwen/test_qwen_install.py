"""lunavect's hooks in Qwen Code's settings.json (`$QWEN_HOME`, else `~/.qwen`): every event it reads installed in
Claude Code's format (timeouts in seconds) with the person's settings and hooks kept, removed giving back their
bytes, a file with comments refused and left as it is, `hooks status` and `doctor` telling each state, and the
installed command spooling an event without its prompt and printing nothing."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from lunavect.clients.qwen import install
from lunavect.core.clients import ids as client_ids
from lunavect.install import hooks_file
from lunavect.install.command import hook_command

# The person's own: four-space indentation, \u escapes, a number written 1e2, a model provider, a hook of theirs.
ORIGINAL = (
    b'{\n    "ui": {"theme": "caf\\u00e9"},\n    "model": {"maxSessionTurns": 1e2},\n'
    b'    "modelProviders": {"openai": [{"id": "m", "baseUrl": "http://127.0.0.1:1/v1"}]},\n    "hooks": {\n'
    b'        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],\n'
    b'        "PreToolUse": []\n    }\n}\n'
)


@pytest.fixture
def qwen_home(iso_env, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = iso_env.root / "qwen-home"
    monkeypatch.setenv("QWEN_HOME", str(home))
    iso_env.env["QWEN_HOME"] = str(home)
    home.mkdir(parents=True)
    return home


def state(iso_env) -> str:
    return json.loads(iso_env.cli("hooks", "status", "--json").stdout)["qwen"]["state"]


def test_qwen_home_takes_the_place_of_its_folder(iso_env, qwen_home: Path) -> None:
    assert install.settings_path() == qwen_home / "settings.json"


@pytest.mark.process
def test_a_fresh_install_writes_every_event_in_seconds_and_a_second_changes_nothing(iso_env, qwen_home) -> None:
    out = iso_env.cli("hooks", "install", *client_ids()).stdout
    path = qwen_home / "settings.json"
    assert f"qwen: installed in {path}" in out
    hooks = json.loads(path.read_text())["hooks"]
    assert list(hooks) == list(install.EVENTS)
    for groups in hooks.values():
        ((handler,),) = [group["hooks"] for group in groups]
        assert handler == {"type": "command", "command": hook_command("qwen"), "timeout": hooks_file.HOOK_TIMEOUT_S}
    before = path.read_bytes()
    assert "qwen: already installed" in iso_env.cli("hooks", "install", *client_ids()).stdout
    assert path.read_bytes() == before


@pytest.mark.process
def test_install_then_uninstall_gives_the_persons_bytes_back(iso_env, qwen_home: Path) -> None:
    path = qwen_home / "settings.json"
    path.write_bytes(ORIGINAL)
    assert iso_env.cli("hooks", "install", *client_ids()).returncode == 0
    data = json.loads(path.read_text())
    assert data["hooks"]["Stop"][0]["hooks"][0]["command"] == "notify-send done"  # theirs kept, first
    assert data["ui"] == {"theme": "café"} and "1e2" in path.read_text() and data["modelProviders"]
    assert state(iso_env) == "installed"
    out = iso_env.cli("hooks", "uninstall").stdout
    assert f"qwen: removed in {path}" in out
    assert path.read_bytes() == ORIGINAL
    assert path.with_name(path.name + hooks_file.BACKUP_SUFFIX).read_bytes() == ORIGINAL


@pytest.mark.process
def test_a_file_with_comments_is_refused_and_left_as_it_is(iso_env, qwen_home: Path) -> None:
    path = qwen_home / "settings.json"
    text = '{\n  // the person\'s note\n  "ui": {"theme": "dark"}\n}\n'
    path.write_text(text)
    result = iso_env.cli("hooks", "install", *client_ids())
    assert result.returncode != 0 and "holds comments" in (result.stderr + result.stdout)
    assert path.read_text() == text
    assert state(iso_env) == "unreadable"


@pytest.mark.process
def test_status_tells_missing_partial_stale_and_installed(iso_env, qwen_home: Path) -> None:
    assert state(iso_env) == "missing"
    iso_env.cli("hooks", "install", *client_ids())
    assert state(iso_env) == "installed"
    path = qwen_home / "settings.json"
    data = json.loads(path.read_text())
    del data["hooks"]["StopFailure"]
    path.write_text(json.dumps(data))
    assert state(iso_env) == "partial"
    data["hooks"]["Stop"][0]["hooks"][0]["command"] = "/gone/python -I -S -c x /gone qwen lunavect.shim.entry"
    path.write_text(json.dumps(data))
    assert state(iso_env) == "stale"


def test_doctor_names_missing_hooks_and_what_it_cannot_tell(iso_env, qwen_home: Path) -> None:
    from lunavect.collector.doctor import examine

    report = examine()
    assert report.clients["qwen"]["hooks"] == "missing"
    assert report.clients["qwen"]["cannot_report"] == ["background tasks"]
    assert any(p.what == "qwen: hooks missing" for p in report.problems)
    iso_env.cli("hooks", "install", *client_ids())
    assert examine().clients["qwen"]["hooks"] == "installed"


@pytest.mark.process
def test_the_installed_hook_command_spools_an_event_and_prints_nothing(iso_env, qwen_home: Path) -> None:
    iso_env.cli("hooks", "install", *client_ids())
    handler = json.loads((qwen_home / "settings.json").read_text())["hooks"]["UserPromptSubmit"][0]["hooks"][0]
    payload = {"session_id": "s-1", "cwd": "/w", "hook_event_name": "UserPromptSubmit", "prompt": "private words"}
    proc = subprocess.run(
        ["bash", "-c", handler["command"]], input=json.dumps(payload).encode(), env=iso_env.env, capture_output=True
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    (record,) = iso_env.spool_records()
    assert (record["client"], record["event"], record["session"]) == ("qwen", "UserPromptSubmit", "s-1")
    assert "private words" not in json.dumps(record)


def test_a_service_sees_its_folders_as_the_installing_shell_did(tmp_path: Path) -> None:
    from lunavect.install import service

    env = {"HOME": str(tmp_path), "QWEN_HOME": "/q/home", "QWEN_RUNTIME_DIR": "/q/run", "X": "1"}
    assert service.carried(env) == {"QWEN_HOME": "/q/home", "QWEN_RUNTIME_DIR": "/q/run"}
    unit = service.systemd_unit(env, python="/py")
    assert "Environment=QWEN_HOME=/q/home\n" in unit and "Environment=QWEN_RUNTIME_DIR=/q/run\n" in unit
