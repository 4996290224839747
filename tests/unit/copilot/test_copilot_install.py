"""lunavect's hooks for GitHub Copilot CLI: a hooks file of its own (`$COPILOT_HOME/hooks/lunavect.json`)
written by `hooks install` (each event's command naming its event after the client), reported by `hooks
status`, removed by `hooks uninstall`; the person's other hook files and settings are never touched, byte for
byte, and a file of lunavect's name that is not lunavect's is left as it is."""

from __future__ import annotations

import json
import shlex

from lunavect.clients.copilot import hooks, install, layout
from lunavect.core.clients import ids as client_ids
from lunavect.install.command import hook_command


def test_install_status_and_uninstall_touch_nothing_else(iso_env, monkeypatch) -> None:
    monkeypatch.setenv("COPILOT_HOME", str(iso_env.home / "copilot-home"))
    folder = layout.hooks_dir()
    folder.mkdir(parents=True)
    mine = folder / "mine.json"
    mine.write_bytes(b'{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "say done"}]}}')
    settings = layout.home() / "config.json"
    settings.write_bytes(b'// written by me\n{"trustedFolders": ["/w"]}\n')
    before = {p: p.read_bytes() for p in (mine, settings)}

    assert f"copilot: installed in {install.hooks_path()}" in iso_env.cli("hooks", "install", *client_ids()).stdout
    written = json.loads(install.hooks_path().read_text())
    assert written["version"] == 1 and list(written["hooks"]) == list(hooks.EVENTS)
    (entry,) = written["hooks"]["agentStop"]
    assert entry == {"type": "command", "bash": hook_command("copilot", "agentStop"), "timeoutSec": 10}
    assert shlex.split(entry["bash"])[-2:] == ["copilot", "agentStop"]
    assert "permissionRequest" not in written["hooks"]  # no wait: the client's policy decides after it
    report = json.loads(iso_env.cli("hooks", "status", "--json").stdout)["copilot"]
    assert (report["state"], report["hooks"]) == ("installed", str(install.hooks_path()))
    assert "copilot: already installed" in iso_env.cli("hooks", "install", *client_ids()).stdout

    assert "copilot: removed in" in iso_env.cli("hooks", "uninstall").stdout
    assert not install.hooks_path().exists()
    assert {p: p.read_bytes() for p in (mine, settings)} == before
    assert sorted(p.name for p in folder.iterdir()) == ["mine.json"]
    assert "copilot: nothing to remove" in iso_env.cli("hooks", "uninstall").stdout


def test_another_installations_file_is_stale_and_brought_up_to_date(iso_env) -> None:
    path = install.hooks_path()
    path.parent.mkdir(parents=True)
    other = {"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "/old/python -m lunavect.shim.entry"}]}}
    path.write_text(json.dumps(other))
    status = install.status()
    assert status.state == "stale" and status.stale_commands == ["/old/python -m lunavect.shim.entry"]
    assert "stale: reinstall" in install.describe_status(status)
    assert install.install() and install.status().state == "installed"
    one = json.loads(path.read_text())
    del one["hooks"]["preCompact"]
    path.write_text(json.dumps(one))
    assert (install.status().state, install.status().missing) == ("partial", ["preCompact"])


def test_a_file_of_its_name_that_is_not_lunavects_is_left_alone(iso_env) -> None:
    path = install.hooks_path()
    path.parent.mkdir(parents=True)
    theirs = '{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "say done"}]}}\n'
    for text in (theirs, "not json"):
        path.write_text(text)
        assert install.status().state == "unreadable"
        done = iso_env.cli("hooks", "install", *client_ids())
        assert "not lunavect's" in done.stdout + done.stderr
        done = iso_env.cli("hooks", "uninstall")
        assert "not lunavect's" in done.stdout + done.stderr
        assert path.read_text() == text


def test_a_service_sees_copilot_clis_home_as_the_installing_shell_did(tmp_path) -> None:
    from lunavect.install import service

    env = {"HOME": str(tmp_path), "COPILOT_HOME": "/c/copilot", "EDITOR": "vi"}
    assert service.carried(env) == {"COPILOT_HOME": "/c/copilot"}
    assert "Environment=COPILOT_HOME=/c/copilot\n" in service.systemd_unit(env, python="/py")
