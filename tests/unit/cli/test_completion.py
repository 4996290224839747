"""Shell completion comes from click: `_LUNAVECT_COMPLETE=<shell>_source lunavect` prints the script the README
tells people to load, and the completion it drives names lunavect's commands."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

# What each shell's script must contain to hook into that shell's completion.
MARKERS = {
    "bash": "complete -o nosort -F _lunavect_completion lunavect",
    "zsh": "compdef _lunavect_completion lunavect",
    "fish": "complete --no-files --command lunavect",
}


def _lunavect(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    code = "from lunavect.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env={**os.environ, **env}
    )


@pytest.mark.process
@pytest.mark.parametrize("shell", sorted(MARKERS))
def test_the_completion_script_is_produced(shell: str) -> None:
    done = _lunavect({"_LUNAVECT_COMPLETE": f"{shell}_source"})
    assert done.returncode == 0, done.stderr
    assert MARKERS[shell] in done.stdout, done.stdout
    assert "_LUNAVECT_COMPLETE" in done.stdout


@pytest.mark.process
def test_completion_names_the_commands_and_their_words() -> None:
    commands = _lunavect({"_LUNAVECT_COMPLETE": "bash_complete", "COMP_WORDS": "lunavect ho", "COMP_CWORD": "1"})
    assert set(commands.stdout.split()) == {"plain,hook", "plain,hooks"}, commands.stdout
    actions = _lunavect({"_LUNAVECT_COMPLETE": "bash_complete", "COMP_WORDS": "lunavect hooks ", "COMP_CWORD": "2"})
    assert {"plain,install", "plain,uninstall", "plain,status"} <= set(actions.stdout.split()), actions.stdout
