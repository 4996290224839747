"""The panel's settings show "Sessions in editors": each editor's companion, installed or not, and the
command that installs it (the guide's Settings → Connections → Sessions in editors)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from tui_support import pilot_test, wait_for

from lunavect.frontends.tui.screens import SettingsScreen
from lunavect.navigation.editors import companion

SIZE = (120, 70)


@pilot_test
async def test_the_settings_show_each_editors_companion(conn, make_app):
    folder = Path(os.environ["HOME"]) / ".vscode" / "extensions"
    version = companion.manifest().version
    (folder / f"{companion.EXTENSION_ID}-{version}").mkdir(parents=True)
    entry = {
        "identifier": {"id": companion.EXTENSION_ID},
        "version": version,
        "relativeLocation": f"{companion.EXTENSION_ID}-{version}",
    }
    (folder / "extensions.json").write_text(json.dumps([entry]))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        assert isinstance(app.screen, SettingsScreen)
        status = app.screen.query_one("#editor-status")
        await wait_for(pilot, lambda: "looking" not in str(status.render()), what="the companions' status")
        shown = str(status.render())
        assert f"vscode: companion {version} installed" in shown and "no window open" in shown
        assert "code-server: companion not installed (lunavect editors install code-server)" in shown


CODE_SERVER = Path.home() / ".cache" / "lunavect-test-clients" / "code-server-4.100.0" / "app" / "node_modules" / ".bin"


@pilot_test
async def test_the_settings_install_the_code_server_companion_through_code_server_itself(conn, make_app, monkeypatch):
    """The real code-server (scripts/test installs it) on PATH; its extensions folder in the test's HOME."""
    clients = os.environ.get("LUNAVECT_CLIENTS_DIR")
    folder = (Path(clients) / "code-server-4.100.0/app/node_modules/.bin") if clients else CODE_SERVER
    if not (folder / "code-server").exists():
        pytest.skip("code-server is not installed (scripts/test installs it)")
    home = Path(os.environ["HOME"])
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("s")
        status = app.screen.query_one("#editor-status")
        await wait_for(pilot, lambda: "looking" not in str(status.render()), what="the companions' status")
        await pilot.click("#editor-install-code-server")
        await wait_for(pilot, lambda: "installed in code-server" in str(status.render()), timeout=60, what="install")
        await wait_for(pilot, lambda: "code-server: companion" in str(status.render()), what="the new status")
        shown = str(status.render())
        assert f"code-server: companion {companion.manifest().version} installed" in shown, shown
    extensions = home / ".local" / "share" / "code-server" / "extensions"
    assert (extensions / f"{companion.EXTENSION_ID}-{companion.manifest().version}" / "package.json").exists()
