"""Shell completion comes from click: `_LUNAVECT_COMPLETE=<shell>_source lunavect` prints the script the README
tells people to load, and the completion it drives names lunavect's commands."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from unit_support import a_session, seed_snapshot

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


@pytest.mark.process
@pytest.mark.parametrize("shell", sorted(MARKERS))
def test_the_completion_command_prints_clicks_script(iso_env, shell: str) -> None:
    """`lunavect completion SHELL` is the script click's protocol prints, so what people install is the same."""
    printed = iso_env.cli("completion", shell)
    assert printed.returncode == 0, printed.stderr
    assert printed.stdout == _lunavect({"_LUNAVECT_COMPLETE": f"{shell}_source"}).stdout


def test_the_completion_command_refuses_another_shell(iso_env) -> None:
    refused = iso_env.cli("completion", "powershell")
    assert refused.returncode == 2
    assert "'powershell' is not one of 'bash', 'zsh', 'fish'" in refused.stderr


def _complete(iso_env, words: str) -> list[str]:
    env = {**iso_env.env, "_LUNAVECT_COMPLETE": "bash_complete", "COMP_WORDS": words}
    env["COMP_CWORD"] = str(len(words.split()) - (0 if words.endswith(" ") else 1))
    done = subprocess.run([sys.executable, "-c", "from lunavect.cli import main; main()"], env=env, **_RUN)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


_RUN: dict = {"capture_output": True, "text": True, "timeout": 60}


@pytest.mark.process
def test_session_ids_complete_from_the_store_without_a_collector(iso_env) -> None:
    """The session arguments complete to the stored sessions' ids (bare, since the shells split words at `:`;
    whole when the client's part is typed), and a Tab press starts no collector."""
    conn = iso_env.connect()
    seed_snapshot(conn, a_session("aaaa1111", title="Deploy"), a_session("aabb2222"), a_session("cccc3333"))
    assert _complete(iso_env, "lunavect open aa") == ["plain,aaaa1111", "plain,aabb2222"]
    assert _complete(iso_env, "lunavect show aaaa") == ["plain,aaaa1111"]
    assert _complete(iso_env, "lunavect hide claude:cc") == ["plain,claude:cccc3333"]
    assert _complete(iso_env, "lunavect move cccc3333 --before aab") == ["plain,aabb2222"]
    assert "plain,cccc3333" in _complete(iso_env, "lunavect pin ")
    assert not (iso_env.data / "collector.lock").exists() or not (iso_env.data / "collector.lock").read_text().strip()


@pytest.mark.process
def test_session_ids_complete_to_nothing_without_a_store(iso_env) -> None:
    assert _complete(iso_env, "lunavect open aa") == []
    assert not (iso_env.data / "lunavect.sqlite3").exists()  # a Tab press creates no store either
