"""The one seam that keeps this machine out of every test.

Each test runs with HOME, LUNAVECT_HOME and the clients' homes in its own tmp folder, and with every variable a
client's descriptor names (`Client.install.environment`: GEMINI_CLI_HOME, OPENCODE_DB, XDG_CONFIG_HOME, ...)
cleared, so that what it does not set defaults under that HOME: a developer whose shell points a client elsewhere
never has a test write into their real settings, and a new client's variables are cleared by its descriptor
alone. The developer's tmux server (TMUX) is forgotten too: a test that wants one starts its own. Any collector a
test started, directly or through `lunavect list`, is stopped in teardown.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from markers_support import PROCESS_FOLDERS
from unit_support import Iso, stop_collector

from lunavect.core import clients

# Not a client's, but the developer's: the tmux server their shell runs in.
OUTSIDE = ("TMUX", "TMUX_PANE")
TESTS = Path(__file__).parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The folders whose every test starts processes are marked `process` whole (markers_support.py)."""
    for item in items:
        if item.path.is_relative_to(TESTS) and item.path.relative_to(TESTS).parts[0] in PROCESS_FOLDERS:
            item.add_marker(pytest.mark.process)


@pytest.fixture(autouse=True)
def iso_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Iso]:
    """Point every folder lunavect and the clients use into tmp_path; stop any collector started, in teardown.

    Claude Code's and Codex's homes are named explicitly, at names of their own (`.claude-test`): code that
    ignored the variable and wrote to `~/.claude` would be caught."""
    for name in {name for client in clients.every() for name in client.install.environment} | set(OUTSIDE):
        monkeypatch.delenv(name, raising=False)
    root = tmp_path / "iso"
    home = root / "home"
    home.mkdir(parents=True)
    claude = home / ".claude-test"
    codex = home / ".codex-test"
    data = root / "lunavect-home"  # not created: lunavect must create it itself
    values = {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(claude), "CODEX_HOME": str(codex), "LUNAVECT_HOME": str(data)}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    iso = Iso(root=root, home=home, claude=claude, codex=codex, data=data, env=dict(os.environ))
    yield iso
    iso.close()
    stop_collector(data)
