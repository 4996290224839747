"""lunavect's hooks in Gemini CLI's settings.json (`$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`): installed with
the person's settings and hooks kept, removed giving back their bytes, timeouts in milliseconds, a file with
comments refused and left as it is, and `hooks status` and `doctor` telling each state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect.clients.gemini import install
from lunavect.core.clients import ids as client_ids
from lunavect.install import hooks_file
from lunavect.install.command import hook_command

# The person's own: four-space indentation, \u escapes, a number written 1e2, a hook and an empty list of theirs.
ORIGINAL = (
    b'{\n    "ui": {"theme": "caf\\u00e9"},\n    "general": {"maxAttempts": 1e2},\n    "hooks": {\n'
    b'        "AfterAgent": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done"}]}],\n'
    b'        "BeforeTool": []\n    }\n}\n'
)


@pytest.fixture
def gemini_home(iso_env, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = iso_env.root / "gemini-cli-home"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    iso_env.env["GEMINI_CLI_HOME"] = str(home)
    return home / ".gemini"


def settings(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "settings.json"


def test_gemini_cli_home_takes_the_place_of_home(iso_env, gemini_home: Path) -> None:
    assert install.settings_path() == gemini_home / "settings.json"


def test_home_is_used_without_gemini_cli_home(iso_env) -> None:
    assert install.settings_path() == iso_env.home / ".gemini" / "settings.json"


def test_a_fresh_install_writes_every_event_with_millisecond_timeouts(iso_env, gemini_home: Path) -> None:
    out = iso_env.cli("hooks", "install", *client_ids()).stdout
    path = gemini_home / "settings.json"
    assert f"gemini: installed in {path}" in out
    hooks = json.loads(path.read_text())["hooks"]
    assert list(hooks) == list(install.EVENTS)
    for groups in hooks.values():
        (group,) = groups
        (handler,) = group["hooks"]
        assert handler == {"type": "command", "command": hook_command("gemini"), "timeout": 10_000}
    assert "gemini: already installed" in iso_env.cli("hooks", "install", *client_ids()).stdout


def test_install_then_uninstall_gives_the_persons_bytes_back(iso_env, gemini_home: Path) -> None:
    path = settings(gemini_home)
    path.write_bytes(ORIGINAL)
    assert iso_env.cli("hooks", "install", *client_ids()).returncode == 0
    data = json.loads(path.read_text())
    assert data["hooks"]["AfterAgent"][0]["hooks"][0]["command"] == "notify-send done"  # theirs kept, first
    assert data["ui"] == {"theme": "café"} and "1e2" in path.read_text()
    assert iso_env.cli("hooks", "install", *client_ids()).returncode == 0
    out = iso_env.cli("hooks", "uninstall").stdout
    assert f"gemini: removed in {path}" in out
    assert path.read_bytes() == ORIGINAL
    assert path.with_name(path.name + hooks_file.BACKUP_SUFFIX).read_bytes() == ORIGINAL


@pytest.mark.process
def test_a_file_with_comments_is_refused_and_left_as_it_is(iso_env, gemini_home: Path) -> None:
    path = settings(gemini_home)
    text = '{\n  // the person\'s note\n  "ui": {"theme": "dark"}\n}\n'
    path.write_text(text)
    result = iso_env.cli("hooks", "install", *client_ids())
    assert result.returncode != 0
    assert "holds comments" in (result.stderr + result.stdout)
    assert path.read_text() == text
    status = json.loads(iso_env.cli("hooks", "status", "--json").stdout)["gemini"]
    assert status["state"] == "unreadable" and "holds comments" in status["detail"]


@pytest.mark.process
def test_status_tells_missing_partial_stale_and_installed(iso_env, gemini_home: Path) -> None:
    def state() -> str:
        return json.loads(iso_env.cli("hooks", "status", "--json").stdout)["gemini"]["state"]

    assert state() == "missing"
    iso_env.cli("hooks", "install", *client_ids())
    assert state() == "installed"
    path = gemini_home / "settings.json"
    data = json.loads(path.read_text())
    del data["hooks"]["AfterAgent"]
    path.write_text(json.dumps(data))
    assert state() == "partial"
    data["hooks"]["BeforeAgent"][0]["hooks"][0]["command"] = "/gone/python -I -S -c x /gone gemini lunavect.shim.entry"
    path.write_text(json.dumps(data))
    assert state() == "stale"
    assert "gemini: stale: reinstall" in iso_env.cli("hooks", "status").stdout


def test_doctor_names_missing_hooks(iso_env, gemini_home: Path) -> None:
    from lunavect.collector.doctor import examine

    report = examine()
    assert report.clients["gemini"]["hooks"] == "missing"
    assert any(p.what == "gemini: hooks missing" for p in report.problems)
    iso_env.cli("hooks", "install", *client_ids())
    assert examine().clients["gemini"]["hooks"] == "installed"


@pytest.mark.process
def test_the_installed_hook_command_spools_an_event_and_prints_nothing(iso_env, gemini_home: Path) -> None:
    iso_env.cli("hooks", "install", *client_ids())
    handler = json.loads((gemini_home / "settings.json").read_text())["hooks"]["BeforeAgent"][0]["hooks"][0]
    payload = {"session_id": "s-1", "cwd": "/w", "hook_event_name": "BeforeAgent", "prompt": "private words"}
    import subprocess

    proc = subprocess.run(
        ["bash", "-c", handler["command"]], input=json.dumps(payload).encode(), env=iso_env.env, capture_output=True
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    (record,) = iso_env.spool_records()
    assert (record["client"], record["event"], record["session"]) == ("gemini", "BeforeAgent", "s-1")
    assert "private words" not in json.dumps(record)
