"""lunavect's hooks in Codex's hooks.json: installed safely, removed cleanly, and their trust reported.

Here no Codex executable is findable, so trust cannot be granted through Codex's app-server (the real client
tests prove that path); what is left is the file handling and the trust read from config.toml.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect.clients.codex import install
from lunavect.core.clients import ids as client_ids


@pytest.fixture(autouse=True)
def no_codex(iso_env, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LUNAVECT_CODEX", str(iso_env.root / "no-such-codex"))
    iso_env.env["LUNAVECT_CODEX"] = str(iso_env.root / "no-such-codex")


MINE = {"matcher": "", "hooks": [{"type": "command", "command": "echo mine"}]}  # a hook group of the person's


def persons_hooks_file(content: dict) -> Path:
    """Codex's hooks.json as the person left it, before lunavect touches it."""
    path = install.hooks_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(content))
    return path


def hooks_of(path: Path) -> dict:
    return json.loads(path.read_text())["hooks"]


def test_install_adds_one_entry_per_event_and_keeps_the_persons_hooks(iso_env) -> None:
    path = persons_hooks_file({"hooks": {"Stop": [MINE]}, "other": 1})
    assert path == iso_env.codex / "hooks.json"

    result = install.install()

    assert result.changed and result.trust.state == "unknown"
    data = json.loads(path.read_text())
    assert data["other"] == 1
    hooks = data["hooks"]
    assert set(hooks) == set(install.EVENTS)
    assert hooks["Stop"][0] == MINE and len(hooks["Stop"]) == 2
    for event in install.EVENTS:
        handler = hooks[event][-1]["hooks"][0]
        assert install.is_ours(handler) and handler["command"].endswith(" codex")
        assert handler["timeout"] == (3 if event in ("Interrupt", "SessionEnd") else 10)
    assert (path.parent / "hooks.json.lunavect-backup").exists()
    assert install.install().changed is False


def test_a_malformed_file_is_refused_and_left_untouched(iso_env) -> None:
    path = install.hooks_path()
    path.parent.mkdir(parents=True)
    path.write_text('{"hooks": [1, 2')
    with pytest.raises(install.SettingsError, match="not valid JSON"):
        install.install()
    assert path.read_text() == '{"hooks": [1, 2'
    assert install.status().state == "unreadable"


def test_uninstall_removes_only_ours(iso_env) -> None:
    path = persons_hooks_file({"hooks": {"Stop": [MINE]}})
    install.install()
    assert install.uninstall() is True
    assert json.loads(path.read_text()) == {"hooks": {"Stop": [MINE]}}
    assert install.uninstall() is False


def test_trust_keys_follow_codexs_own_form(iso_env) -> None:
    path = persons_hooks_file({"hooks": {"PreToolUse": [MINE]}})
    install.install()
    keys = install.our_keys(path, json.loads(path.read_text()))
    # as Codex 0.169.0's hooks/list names them: <hooks.json>:<event in snake case>:<group>:<handler>
    assert keys["PreToolUse"] == f"{path}:pre_tool_use:1:0"
    assert keys["UserPromptSubmit"] == f"{path}:user_prompt_submit:0:0"


def test_status_reads_trust_from_config_when_codex_cannot_answer(iso_env) -> None:
    assert install.status().state == "missing"
    install.install()
    untrusted = install.status()
    assert untrusted.state == "untrusted" and "not trusted by Codex" in untrusted.detail
    path = install.hooks_path()
    keys = install.our_keys(path, json.loads(path.read_text()))
    lines = [f'[hooks.state."{key}"]\ntrusted_hash = "sha256:00"\n' for key in keys.values()]
    (iso_env.codex / "config.toml").write_text('model = "x"\n' + "".join(lines))
    trusted = install.status()
    assert trusted.state == "installed" and trusted.trust.state == "unverified"
    (iso_env.codex / "config.toml").write_text("not = [toml")
    assert install.status().state in ("installed", "untrusted", "partial")  # never a traceback


@pytest.mark.process
def test_the_cli_installs_and_reports_codex(iso_env) -> None:
    proc = iso_env.cli("hooks", "install", *client_ids())
    assert proc.returncode == 0, proc.stderr
    assert "claude: installed" in proc.stdout and "codex: installed in" in proc.stdout
    status = iso_env.cli("hooks", "status", "--json")
    assert status.returncode == 0, status.stderr
    report = json.loads(status.stdout)
    assert report["codex"]["state"] == "untrusted" and report["codex"]["hooks"] == str(install.hooks_path())
    assert report["codex"]["last_event_age_s"] is None
    text = iso_env.cli("hooks", "status").stdout
    assert "codex: untrusted" in text
    removed = iso_env.cli("hooks", "uninstall")
    assert "codex: removed" in removed.stdout
