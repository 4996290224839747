"""`lunavect hooks install | uninstall | status` on Claude Code's settings.json."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from unit_support import HOOK_FILE

from lunavect.cli.root import cli
from lunavect.clients.claude import install
from lunavect.core.clients import ids as client_ids
from lunavect.install import hooks_file

SRC_DIR = str(Path(HOOK_FILE).parent.parent.parent)
EXPECTED_COMMAND = install.hook_command()

PERSONAL = {
    "model": "opus",
    "permissions": {"allow": ["Bash(npm test:*)", "Read(~/notes/**)"], "deny": ["Bash(rm -rf:*)"]},
    "env": {"FOO": "bär ✓"},
    "statusLine": {"type": "command", "command": "~/bin/status.sh"},
    "hooks": {
        "Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "notify-send done", "timeout": 5}]}],
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "/home/u/guard.sh"}]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --check"}]},
        ],
        "CustomFutureEvent": [{"hooks": [{"type": "command", "command": "x"}]}],
    },
}


def run(*args: str):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result


def settings_file(iso_env) -> Path:
    return iso_env.claude / "settings.json"


def read_settings(iso_env) -> dict:
    return json.loads(settings_file(iso_env).read_text(encoding="utf-8"))


def write_settings(iso_env, value) -> Path:
    path = settings_file(iso_env)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(value, bytes):
        path.write_bytes(value)
    elif isinstance(value, str):
        path.write_text(value, encoding="utf-8")
    else:
        path.write_text(json.dumps(value, indent=4, ensure_ascii=False), encoding="utf-8")
    return path


def our_handlers(settings: dict, event: str) -> list[dict]:
    return [h for g in settings.get("hooks", {}).get(event, []) for h in g.get("hooks", []) if install.is_ours(h)]


def assert_fully_installed(settings: dict) -> None:
    for event in install.EVENTS:
        handlers = our_handlers(settings, event)
        assert len(handlers) == 1, event
        assert handlers[0] == {"type": "command", "command": EXPECTED_COMMAND, "timeout": hooks_file.HOOK_TIMEOUT_S}


def test_the_command_is_this_installation_without_site():
    words = shlex.split(install.hook_command())
    # This venv's interpreter, isolated and without site-packages, on this installation's shim, for claude.
    assert words[:3] == [sys.executable, "-I", "-S"]
    assert words[-1] == "claude"
    assert Path(words[0]).is_absolute()
    assert any(HOOK_FILE in w or SRC_DIR in w for w in words)
    assert install.is_ours({"command": install.hook_command()})
    assert not install.is_ours({"command": "notify-send done"})


def test_fresh_install_creates_settings_with_every_event(iso_env):
    assert not iso_env.claude.exists()
    result = run("hooks", "install", *client_ids())
    assert result.exit_code == 0, result.output
    assert "installed in" in result.stdout and "already" not in result.stdout
    settings = read_settings(iso_env)
    assert set(settings) == {"hooks"}
    assert set(settings["hooks"]) == set(install.EVENTS)
    assert_fully_installed(settings)
    assert settings_file(iso_env).stat().st_mode & 0o777 == 0o600
    assert not (iso_env.claude / ("settings.json" + hooks_file.BACKUP_SUFFIX)).exists()
    assert [p.name for p in iso_env.claude.iterdir()] == ["settings.json"]  # no temp file left behind


def test_install_keeps_the_persons_settings_and_hooks(iso_env):
    path = write_settings(iso_env, PERSONAL)
    os.chmod(path, 0o640)
    old_text = path.read_text(encoding="utf-8")
    result = run("hooks", "install", *client_ids())
    assert result.exit_code == 0, result.output
    settings = read_settings(iso_env)
    for key in ("model", "permissions", "env", "statusLine"):
        assert settings[key] == PERSONAL[key]
    assert list(settings)[: len(PERSONAL)] == list(PERSONAL)  # the person's key order too
    # Their own hooks stay first, unchanged, for the same events; unknown events are kept.
    assert settings["hooks"]["Stop"][0] == PERSONAL["hooks"]["Stop"][0]
    assert settings["hooks"]["PreToolUse"][:2] == PERSONAL["hooks"]["PreToolUse"]
    assert settings["hooks"]["CustomFutureEvent"] == PERSONAL["hooks"]["CustomFutureEvent"]
    assert_fully_installed(settings)
    # Atomic write kept the mode; the backup holds the old content.
    assert path.stat().st_mode & 0o777 == 0o640
    backup = path.with_name(path.name + hooks_file.BACKUP_SUFFIX)
    assert backup.read_text(encoding="utf-8") == old_text


def test_install_is_idempotent(iso_env):
    path = write_settings(iso_env, PERSONAL)
    assert run("hooks", "install", *client_ids()).exit_code == 0
    first = path.read_bytes()
    past = time.time() - 1000
    os.utime(path, (past, past))
    result = run("hooks", "install", *client_ids())
    assert result.exit_code == 0
    assert "already installed" in result.stdout
    assert path.read_bytes() == first
    assert path.stat().st_mtime == past
    assert_fully_installed(read_settings(iso_env))


def test_install_repairs_a_stale_and_a_duplicate_entry(iso_env):
    settings = {
        "hooks": {
            "Stop": [
                {
                    "matcher": "",
                    "hooks": [
                        {"type": "command", "command": "/old/venv/bin/python -I -S /old/lunavect/hook.py claude"}
                    ],
                }
            ],
            "PreToolUse": [
                {"matcher": "", "hooks": [{"type": "command", "command": "lunavect hook claude"}]},
                {
                    "matcher": "Bash",
                    "hooks": [
                        {"type": "command", "command": "lunavect hook claude"},
                        {"type": "command", "command": "/home/u/guard.sh"},
                    ],
                },
            ],
        }
    }
    write_settings(iso_env, settings)
    assert run("hooks", "install", *client_ids()).exit_code == 0
    result = read_settings(iso_env)
    assert_fully_installed(result)
    # The person's handler that shared a group with an old lunavect entry survives.
    assert {"matcher": "Bash", "hooks": [{"type": "command", "command": "/home/u/guard.sh"}]} in result["hooks"][
        "PreToolUse"
    ]


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"model": "opus",, }', "not valid JSON"),
        ('{"hooks": []}', '"hooks" is not an object'),
        ('{"hooks": {"Stop": {"matcher": ""}}}', '"hooks.Stop" is not a list'),
        ("[1, 2]", "does not hold a JSON object"),
        (b'{"model": "caf\xe9"}', "not UTF-8"),
    ],
    ids=["malformed", "hooks-list", "event-not-list", "array", "latin-1"],
)
def test_refuses_a_file_it_cannot_read_and_changes_nothing(iso_env, content, words):
    path = write_settings(iso_env, content)
    before = path.read_bytes()
    before_mtime = path.stat().st_mtime_ns
    for command in ("install", "uninstall"):
        result = run("hooks", command)
        assert result.exit_code == 1
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("lunavect: ") and words in lines[0]
        assert "Traceback" not in result.stderr
    assert path.read_bytes() == before
    assert path.stat().st_mtime_ns == before_mtime
    assert sorted(p.name for p in iso_env.claude.iterdir()) == ["settings.json"]
    assert install.status().state == "unreadable"


def test_refusal_through_the_real_command_is_one_line(iso_env):
    path = write_settings(iso_env, '{"hooks": {"Stop": [}')
    before = path.read_bytes()
    proc = iso_env.cli("hooks", "install", *client_ids())
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("lunavect: ")
    assert str(path) in proc.stderr and "line 1" in proc.stderr
    assert path.read_bytes() == before


def test_unreadable_path_is_refused(iso_env):
    path = settings_file(iso_env)
    path.mkdir(parents=True)  # a folder where the file should be: reading fails even for root
    result = run("hooks", "install", *client_ids())
    assert result.exit_code == 1
    assert result.stderr.startswith("lunavect: cannot read") and result.stderr.count("\n") == 1
    assert path.is_dir()


def test_empty_file_is_a_fresh_install(iso_env):
    write_settings(iso_env, "  \n")
    assert run("hooks", "install", *client_ids()).exit_code == 0
    assert_fully_installed(read_settings(iso_env))


def test_uninstall_removes_only_ours(iso_env):
    path = write_settings(iso_env, PERSONAL)
    assert run("hooks", "install", *client_ids()).exit_code == 0
    result = run("hooks", "uninstall")
    assert result.exit_code == 0 and "removed" in result.stdout
    assert read_settings(iso_env) == PERSONAL
    backup = path.with_name(path.name + hooks_file.BACKUP_SUFFIX)
    assert json.loads(backup.read_text()) == PERSONAL  # the person's own version, not the installed one
    result = run("hooks", "uninstall")
    assert result.exit_code == 0 and "nothing to remove" in result.stdout


def test_uninstall_of_a_fresh_install_leaves_no_hooks_key(iso_env):
    write_settings(iso_env, {"model": "opus"})
    run("hooks", "install", *client_ids())
    run("hooks", "uninstall")
    assert read_settings(iso_env) == {"model": "opus"}


def test_uninstall_without_a_file(iso_env):
    result = run("hooks", "uninstall")
    assert result.exit_code == 0 and "nothing to remove" in result.stdout
    assert not settings_file(iso_env).exists()


# ---------------------------------------------------------------------------------------------------------
# status


def status_json() -> dict:
    result = run("hooks", "status", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.process
def test_status_missing(iso_env):
    report = status_json()
    assert report["claude"]["state"] == "missing"
    assert report["claude"]["settings"] == str(settings_file(iso_env))
    assert report["claude"]["last_event_age_s"] is None
    assert isinstance(report["codex"]["state"], str)  # Codex has its own tests
    write_settings(iso_env, PERSONAL)
    assert status_json()["claude"]["state"] == "missing"
    text = run("hooks", "status").stdout
    assert "claude: missing" in text and "none received yet" in text


@pytest.mark.process
def test_status_installed(iso_env):
    run("hooks", "install", *client_ids())
    report = status_json()["claude"]
    assert report["state"] == "installed" and report["missing_events"] == [] and report["stale_commands"] == []
    assert "claude: installed" in run("hooks", "status").stdout


@pytest.mark.process
def test_status_stale_path(iso_env):
    run("hooks", "install", *client_ids())
    settings = read_settings(iso_env)
    gone = "/nonexistent/venv/bin/python"
    stale = EXPECTED_COMMAND.replace(shlex.quote(sys.executable), gone, 1)
    assert stale != EXPECTED_COMMAND
    for event in install.EVENTS:
        settings["hooks"][event][-1]["hooks"][0]["command"] = stale
    write_settings(iso_env, settings)
    report = status_json()["claude"]
    assert report["state"] == "stale"
    assert report["stale_commands"] == [stale]
    assert "no longer exists" in report["detail"]
    assert "stale" in run("hooks", "status").stdout
    # install repairs it
    run("hooks", "install", *client_ids())
    assert status_json()["claude"]["state"] == "installed"


@pytest.mark.process
def test_status_another_installation(iso_env):
    run("hooks", "install", *client_ids())
    settings = read_settings(iso_env)
    other = f"{sys.executable} -I -S {HOOK_FILE} claude --other"
    for event in install.EVENTS:
        settings["hooks"][event][-1]["hooks"][0]["command"] = other
    write_settings(iso_env, settings)
    report = status_json()["claude"]
    assert report["state"] == "stale" and "another" in report["detail"]


@pytest.mark.process
def test_status_partial(iso_env):
    run("hooks", "install", *client_ids())
    settings = read_settings(iso_env)
    del settings["hooks"]["StopFailure"]
    write_settings(iso_env, settings)
    report = status_json()["claude"]
    assert report["state"] == "partial"
    assert report["missing_events"] == ["StopFailure"]
    assert "missing events: StopFailure" in run("hooks", "status").stdout


@pytest.mark.process
def test_status_unreadable_is_reported_not_raised(iso_env):
    write_settings(iso_env, "{nope")
    result = run("hooks", "status", "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)["claude"]
    assert report["state"] == "unreadable" and "not valid JSON" in report["detail"]


@pytest.mark.process
def test_status_reports_the_last_event(iso_env):
    from lunavect.collector.tick import Collector

    run("hooks", "install", *client_ids())
    proc = iso_env.hook({"hook_event_name": "SessionStart", "session_id": "s1", "source": "startup"})
    assert proc.returncode == 0
    Collector(iso_env.connect()).tick()
    report = status_json()["claude"]
    assert report["state"] == "installed"
    assert report["last_event_age_s"] is not None and 0 <= report["last_event_age_s"] < 30
    assert "last one" in run("hooks", "status").stdout


@pytest.mark.process
def test_installed_command_really_runs(iso_env):
    """The command written into settings.json, run through a shell as Claude Code does, spools the event."""
    run("hooks", "install", *client_ids())
    command = our_handlers(read_settings(iso_env), "Stop")[0]["command"]
    proc = subprocess.run(
        ["/bin/sh", "-c", command],
        input=b'{"hook_event_name":"Stop","session_id":"s2"}',
        env=iso_env.env,
        capture_output=True,
        timeout=20,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert iso_env.spool_records()[0]["session"] == "s2"
