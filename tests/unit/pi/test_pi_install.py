"""lunavect's extension for Pi: a file of its own (`$PI_CODING_AGENT_DIR/extensions/lunavect.ts`) written by
`hooks install` (the package's extension.ts with this installation's spool path), reported by `hooks status`,
removed by `hooks uninstall`; the person's other extensions and settings are never touched, byte for byte, and a
file of lunavect's name that is not lunavect's is left as it is."""

from __future__ import annotations

import json

from lunavect import paths
from lunavect.clients.pi import install, places
from lunavect.core.clients import ids as client_ids


def test_install_status_and_uninstall_touch_nothing_else(iso_env, monkeypatch) -> None:
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/pi-agent")
    assert places.extension_path() == iso_env.home / "pi-agent" / "extensions" / "lunavect.ts"
    folder = places.extension_path().parent
    folder.mkdir(parents=True)
    mine = folder / "mine.ts"
    mine.write_bytes(b'export default function (pi) { pi.on("agent_end", () => {}) }\n')
    settings = places.agent_dir() / "settings.json"
    settings.write_bytes(b'{"defaultProvider": "mine"}\n')
    before = {p: p.read_bytes() for p in (mine, settings)}

    done = iso_env.cli("hooks", "install", *client_ids()).stdout
    assert f"pi: installed in {places.extension_path()}" in done and "loaded when Pi starts" in done
    written = places.extension_path().read_text()
    assert written.startswith(install.MARK) and json.dumps(str(paths.spool_dir() / "events.jsonl")) in written
    assert "__LUNAVECT_SPOOL__" not in written
    report = json.loads(iso_env.cli("hooks", "status", "--json").stdout)["pi"]
    assert (report["state"], report["extension"]) == ("installed", str(places.extension_path()))
    assert "pi: already installed" in iso_env.cli("hooks", "install", *client_ids()).stdout

    assert "pi: removed in" in iso_env.cli("hooks", "uninstall").stdout
    assert not places.extension_path().exists()
    assert {p: p.read_bytes() for p in (mine, settings)} == before
    assert sorted(p.name for p in folder.iterdir()) == ["mine.ts"]
    assert "pi: nothing to remove" in iso_env.cli("hooks", "uninstall").stdout


def test_another_installations_file_is_stale_and_brought_up_to_date(iso_env) -> None:
    path = places.extension_path()
    path.parent.mkdir(parents=True)
    path.write_text(install.MARK + ' from an older lunavect\nconst SPOOL = "/old/spool/events.jsonl"\n')
    status = install.status()
    assert status.state == "stale" and "stale: reinstall" in install.describe_status(status)
    assert install.install() and install.status().state == "installed"
    assert path.read_text() == install.extension_text()


def test_a_file_of_its_name_that_is_not_lunavects_is_left_alone(iso_env) -> None:
    path = places.extension_path()
    path.parent.mkdir(parents=True)
    theirs = 'export default function (pi) { pi.on("agent_end", () => {}) }\n'
    path.write_text(theirs)
    assert install.status().state == "unreadable"
    done = iso_env.cli("hooks", "install", *client_ids())
    assert "not lunavect's" in done.stdout + done.stderr
    done = iso_env.cli("hooks", "uninstall")
    assert "not lunavect's" in done.stdout + done.stderr
    assert path.read_text() == theirs


def test_its_sessions_folder_follows_its_variables(iso_env, monkeypatch) -> None:
    assert places.sessions_dir() == iso_env.home / ".pi" / "agent" / "sessions"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "/p/agent")
    assert places.sessions_dir() == places.agent_dir() / "sessions" and str(places.agent_dir()) == "/p/agent"
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", "/p/sessions")
    assert str(places.sessions_dir()) == "/p/sessions"
    monkeypatch.setenv("PI_CODING_AGENT_SESSION_DIR", "relative/sessions")  # Pi's own would be relative to its cwd
    assert places.sessions_dir() == places.agent_dir() / "sessions"


def test_a_service_sees_pis_folders_as_the_installing_shell_did(tmp_path) -> None:
    from lunavect.install import service

    env = {"HOME": str(tmp_path), "PI_CODING_AGENT_DIR": "/p/agent", "PI_CODING_AGENT_SESSION_DIR": "/p/s", "X": "1"}
    assert service.carried(env) == {"PI_CODING_AGENT_DIR": "/p/agent", "PI_CODING_AGENT_SESSION_DIR": "/p/s"}
    unit = service.systemd_unit(env, python="/py")
    assert (
        "Environment=PI_CODING_AGENT_DIR=/p/agent\n" in unit
        and "Environment=PI_CODING_AGENT_SESSION_DIR=/p/s\n" in unit
    )
