"""The panel's settings show "Sessions in editors": each editor's companion, installed or not, and the
command that installs it (the guide's Settings → Connections → Sessions in editors)."""

from __future__ import annotations

import json
import os
from pathlib import Path

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
