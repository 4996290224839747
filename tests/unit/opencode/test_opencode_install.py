"""lunavect's OpenCode plugin file: written into OpenCode's plugin folder by `hooks install`, reported by
`hooks status`, removed by `hooks uninstall`; a file of its name that is not lunavect's is left as it is."""

from __future__ import annotations

import json

import pytest

from lunavect.clients.opencode import install, places
from lunavect.core.clients import ids as client_ids


@pytest.mark.process
def test_install_status_and_uninstall(iso_env) -> None:
    path = places.plugin_path()
    assert path == iso_env.home / ".config" / "opencode" / "plugin" / "lunavect.js"
    neighbour = path.parent / "mine.js"
    path.parent.mkdir(parents=True)
    neighbour.write_text("export const Mine = async () => ({})\n")
    assert "opencode: installed in" in iso_env.cli("hooks", "install", *client_ids()).stdout
    assert path.read_text() == install.plugin_text() and install.MARK in path.read_text()
    assert str(iso_env.data) in path.read_text()  # this installation's spool
    assert sorted(p.name for p in path.parent.iterdir()) == ["lunavect.js", "mine.js"]
    report = json.loads(iso_env.cli("hooks", "status", "--json").stdout)["opencode"]
    assert report["state"] == "installed" and report["plugin"] == str(path)
    assert "opencode: already installed" in iso_env.cli("hooks", "install", *client_ids()).stdout
    assert "opencode: removed in" in iso_env.cli("hooks", "uninstall").stdout
    assert not path.exists() and neighbour.read_text().startswith("export const Mine")
    assert "opencode: nothing to remove" in iso_env.cli("hooks", "uninstall").stdout


def test_a_stale_plugin_is_brought_up_to_date(iso_env) -> None:
    path = places.plugin_path()
    path.parent.mkdir(parents=True)
    path.write_text(install.MARK + ": an older one\n")
    assert install.status().state == "stale"
    assert install.install() and install.status().state == "installed"


def test_a_plugin_of_its_name_that_is_not_lunavects_is_left_alone(iso_env) -> None:
    path = places.plugin_path()
    path.parent.mkdir(parents=True)
    path.write_text("// someone else's\n")
    done = iso_env.cli("hooks", "install", *client_ids())
    assert "not lunavect's" in done.stdout + done.stderr
    assert path.read_text() == "// someone else's\n"
    done = iso_env.cli("hooks", "uninstall")
    assert path.read_text() == "// someone else's\n"
