"""The shell sink: the resume command (`cd <folder> && claude --resume <id>`), which a terminal runs with
`sh -c` and a person pastes, is made by one owner (`lunavect.core.resume_command`) and runs exactly its words,
whatever the folder's name and the id hold. Checked with the real `sh`."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unit_support import a_session, seed_snapshot

from lunavect.core.resume_command import display_command, in_folder, shell_words
from lunavect.core.terminal_text import clean
from lunavect.navigation import resume

ID = "aaaaaaaa-1111-4111-8111-111111111111"


def hostile_names(folder: Path) -> list[str]:
    """Folder names that act when a shell reads them as more than a word; X and Y must never appear."""
    x, y = folder / "X", folder / "Y"
    return [
        f"$(touch {x})",
        f"`touch {x}`",
        f"a; touch {y}",
        f"a && touch {y} #",
        f"a\ntouch {y}",
        "'",
        '"',
        "\\",
        "'\\''",
        "#(touch X)",
        " leading space",
        "*",
        "$HOME",
        "!!",
        "~",
        "-",
        "-P",
        "-L",
        "\x1b]0;t\x07",
    ]


@pytest.fixture
def recording(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    """A `claude` (and `codex`) that write the folder they run in and their arguments, each ended by a NUL."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    record = tmp_path / "record"
    for name in ("claude", "codex"):
        exe = bin_folder / name
        exe.write_text(f'#!/bin/sh\nprintf \'%s\\0\' "$(pwd -P)" "$@" > {record}\n')
        exe.chmod(0o755)
    env = {"PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}", "HOME": str(tmp_path), "SHELL": "true"}
    return bin_folder, record, env


def run_sh(line: str, cwd: Path, env: dict[str, str], shell: str = "sh") -> subprocess.CompletedProcess:
    return subprocess.run([shell, "-c", line], cwd=cwd, env=env, capture_output=True, timeout=10)


@pytest.mark.process
def test_the_resume_command_runs_in_any_folder_and_runs_nothing_else(tmp_path, recording):
    bin_folder, record, env = recording
    base = tmp_path / "projects"
    base.mkdir()
    for name in hostile_names(tmp_path):
        folder = base / name  # a `/` in a name makes nested folders: the path holds every character
        folder.mkdir(parents=True, exist_ok=True)
        for provider, args in (("claude", ["--resume", ID]), ("codex", ["resume", ID])):
            # What a person pastes into their shell (the snapshot's `resume` field, printed through the terminal
            # filter: a folder holding a control character is written `$'...'`, which bash reads) and what a
            # terminal window runs with `sh -c`.
            plan = resume.plan(provider, ID, str(folder), which=lambda n: str(bin_folder / n))
            assert isinstance(plan, resume.ResumePlan)
            argv = resume.command_terminal_argv(plan.shell_command, {"DISPLAY": ":0"}, which=lambda n: f"/t/{n}")
            assert argv is not None and argv[-3:-1] == ["sh", "-c"]
            display = display_command(provider, ID, str(folder))
            assert display is not None and clean(display) == display  # printed, it reads as it runs
            for line, shell in ((display, "bash"), (argv[-1], "sh")):
                record.unlink(missing_ok=True)
                proc = run_sh(line, base, env, shell)
                assert proc.returncode == 0, (name, line, proc.stderr)
                assert record.read_bytes().decode().split("\0") == [str(folder), *args, ""], (name, line)
    assert not (tmp_path / "X").exists() and not (tmp_path / "Y").exists()


@pytest.mark.process
@pytest.mark.parametrize("name", ["-", "-P", "-L", "~", "folder"])
def test_a_folder_that_is_not_absolute_is_the_folder_of_that_name(tmp_path, recording, name):
    """`cd -` goes back to `$OLDPWD` and `cd -P` is an option; a bare name is looked up in `$CDPATH`."""
    _, record, env = recording
    (tmp_path / name).mkdir()
    elsewhere = tmp_path / "elsewhere" / name
    elsewhere.mkdir(parents=True)
    line = display_command("claude", ID, name)
    assert line is not None
    proc = run_sh(line, tmp_path, {**env, "OLDPWD": str(elsewhere), "CDPATH": str(elsewhere.parent)})
    assert proc.returncode == 0, proc.stderr
    assert record.read_bytes().decode().split("\0")[0] == str(tmp_path / name)


# Any text a source or another machine can carry; a NUL cannot be an argument of any program.
TEXTS = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=200)


@given(words=st.lists(TEXTS, min_size=1, max_size=4))
def test_shell_words_never_raise_and_parse_back(words):
    assert shlex.split(shell_words(words)) == words


@pytest.mark.process
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(folder=TEXTS, session_id=TEXTS)
def test_any_folder_and_id_reach_the_shell_as_themselves(tmp_path, folder, session_id):
    """The real `sh` reads the line back into exactly the words it was made of, and nothing in them runs (`cd`
    is a function here that prints its words, so any folder name can be tried without being made)."""
    where = tmp_path / "sh"
    where.mkdir(exist_ok=True)
    line = in_folder(shell_words(["printf", "%s\\0", session_id]), folder)
    shown = 'cd() { printf "cd:%s\\0" "$@"; }; '
    printed = subprocess.run(["sh", "-c", shown + line], capture_output=True, timeout=10, cwd=where)
    words = printed.stdout.decode("utf-8", "surrogateescape").split("\0")
    cd = [f"cd:{folder if folder.startswith('/') else './' + folder}"] if folder else []
    assert words == [*cd, session_id, ""]
    assert os.listdir(where) == []


def test_a_folder_holding_a_control_character_is_printed_as_it_runs(tmp_path, recording, iso_env):
    """issue 42, item 11: printed through the terminal filter, `cd '/p/a<LF>b'` showed `\\x0a` inside single
    quotes, which pasted names another folder; `$'...'` holds that very escape and enters the folder."""
    _, record, env = recording
    folder = tmp_path / "a\nb\x85c\u202ed'e"
    folder.mkdir()
    line = display_command("claude", ID, str(folder))
    assert line == f"cd $'{tmp_path}/a\\x0ab\\xc2\\x85c\\xe2\\x80\\xaed\\'e' && claude --resume {ID}"
    assert clean(line) == line
    proc = run_sh(line, tmp_path, env, "bash")
    assert proc.returncode == 0, proc.stderr
    assert record.read_bytes().decode().split("\0") == [str(folder), "--resume", ID, ""]
    # What holds no such character is written as before.
    assert display_command("claude", ID, "/plain folder") == f"cd '/plain folder' && claude --resume {ID}"
    # `lunavect resume ID --print` prints it so (what the terminal filter shows is the line itself).
    seed_snapshot(iso_env.connect(), a_session(ID, cwd=str(folder), resume=line))
    printed = iso_env.cli("resume", ID, "--print")
    assert printed.returncode == 0 and printed.stdout == line + "\n", printed.stderr
