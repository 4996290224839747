"""The seam that keeps this machine out of the tests (tests/conftest.py): every test sees its own homes, and none
of the variables that point a client at this machine's folders, whatever the developer's shell sets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from lunavect.core import clients

NAMED = sorted({name for client in clients.every() for name in client.install.environment})


def test_every_client_s_variables_are_cleared_and_the_homes_are_the_test_s(tmp_path: Path) -> None:
    assert NAMED  # the descriptors name their variables (GEMINI_CLI_HOME, OPENCODE_DB, ...)
    for name in [*NAMED, "HOME", "LUNAVECT_HOME"]:
        value = os.environ.get(name)
        assert value is None or Path(value).is_relative_to(tmp_path), (name, value)
    assert "TMUX" not in os.environ


@pytest.mark.process
def test_a_shell_that_points_every_client_elsewhere_is_kept_out(tmp_path: Path) -> None:
    """The check above, run by a pytest whose environment sets each variable to a folder of the developer's."""
    real = tmp_path / "developer"
    env = dict(os.environ, **{name: str(real / name) for name in NAMED}, TMUX="/tmp/tmux-0/default,1,0")
    here = Path(__file__)
    test = "test_every_client_s_variables_are_cleared_and_the_homes_are_the_test_s"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", f"{here.name}::{test}"],
        cwd=here.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout
