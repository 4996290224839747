"""`lunavect open` end to end for sessions whose process is gone: real shim, real collector, real CLI.
Every failure is one line the person can act on, and a finished session offers its resume command only
while the CLI and the project folder exist."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tmux_server import tmux_server
from unit_support import wait_until

FIRST = "aaaaaaaa-1111-4111-8111-111111111111"
SECOND = "aaaaaaaa-2222-4222-8222-222222222222"


def finish(iso_env, session: str, cwd: Path) -> None:
    """A session that held one turn and ended (the shim sees no agent process, so none is recorded)."""
    for name in ("SessionStart", "UserPromptSubmit", "Stop", "SessionEnd"):
        payload = {
            "session_id": session,
            "hook_event_name": name,
            "cwd": str(cwd),
            "transcript_path": str(cwd / f"{session}.jsonl"),
        }
        assert iso_env.hook(payload).returncode == 0


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "my project"
    path.mkdir()
    return path


@pytest.fixture
def claude_bin(iso_env) -> Path:
    """A `claude` on PATH, so that resuming is possible."""
    return iso_env.program_on_path("claude", "exit 0")


@pytest.mark.process
def test_finished_session_prints_its_resume_command(iso_env, project: Path, claude_bin: Path) -> None:
    finish(iso_env, FIRST, project)
    proc = iso_env.cli_process("open", f"claude:{FIRST}")  # the real console script, end to end
    assert proc.returncode == 0, proc.stderr
    assert f"claude --resume {FIRST}" in proc.stdout and "finished" in proc.stdout
    as_json = json.loads(iso_env.cli("open", FIRST, "--json").stdout)
    assert as_json["outcome"] == "resume"
    assert as_json["command"] == f"cd '{project}' && claude --resume {FIRST}"


@pytest.mark.process
def test_unknown_and_ambiguous_ids_are_one_line_errors(iso_env, project: Path, claude_bin: Path) -> None:
    finish(iso_env, FIRST, project)
    finish(iso_env, SECOND, project)
    missing = iso_env.cli("open", "nope")
    assert missing.returncode == 1 and missing.stdout == ""
    assert missing.stderr.startswith("lunavect: no session 'nope'") and len(missing.stderr.splitlines()) == 1
    prefix = iso_env.cli("open", "aaaaaaaa")
    assert prefix.returncode == 1 and "matches 2 sessions" in prefix.stderr and len(prefix.stderr.splitlines()) == 1
    unique = iso_env.cli("open", "aaaaaaaa-2222")  # a unique prefix names one session
    assert unique.returncode == 0 and f"--resume {SECOND}" in unique.stdout, unique.stderr


@pytest.mark.process
def test_resume_needs_the_cli(iso_env, project: Path) -> None:
    finish(iso_env, FIRST, project)
    iso_env.env["PATH"] = "/nonexistent"
    proc = iso_env.cli("open", FIRST, "--resume-in", "tmux")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("lunavect: unavailable: ") and "`claude` command is not on PATH" in proc.stderr


@pytest.mark.process
def test_resume_needs_the_project_folder(iso_env, project: Path, claude_bin: Path) -> None:
    finish(iso_env, FIRST, project)
    project.rmdir()
    proc = iso_env.cli("open", FIRST, "--resume-in", "clipboard")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1
    assert "no longer exists" in proc.stderr and str(project) in proc.stderr


@pytest.mark.process
def test_clipboard_without_any_clipboard_says_so(iso_env, project: Path, claude_bin: Path) -> None:
    finish(iso_env, FIRST, project)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "TMUX"):
        iso_env.env.pop(name, None)
    proc = iso_env.cli("open", FIRST, "--resume-in", "clipboard")
    assert proc.returncode == 1 and "no clipboard tool found" in proc.stderr


HOSTILE_FOLDERS = [
    "proj#(touch {x})",
    "proj#(touch {x}) #{{pane_id}} ##[fg=red] #[bold] $(touch {y}) `touch {y}` 'q\" a;b\nline; ends;",
]


@pytest.mark.process
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: tmux)")
@pytest.mark.parametrize("name", HOSTILE_FOLDERS)
def test_resume_in_tmux_runs_nothing_that_the_folder_name_holds(iso_env, tmp_path: Path, name: str) -> None:
    """tmux expands `new-window -c` as a format: a folder named `proj#(touch X)` once ran `touch X`."""
    with tmux_server(iso_env.env) as server:
        x, y = server.folder / "X", server.folder / "Y"
        # A `/` in the name makes nested folders: the folder's path holds every character.
        folder = tmp_path / name.format(x=x, y=y)
        folder.mkdir(parents=True)
        record = server.folder / "record"
        iso_env.recording_program("claude", record)
        finish(iso_env, FIRST, folder)
        iso_env.env["TMUX"] = server.tmux_variable
        proc = iso_env.cli("open", FIRST, "--resume-in", "tmux")
        assert proc.returncode == 0 and "resumed in tmux window main:" in proc.stdout, proc.stdout + proc.stderr
        wait_until(lambda: record.exists() and record.stat().st_size, "the resumed claude never ran")
        assert not x.exists() and not y.exists(), "a command in the folder name ran"
        assert record.read_bytes().decode().split("\0") == [str(folder), "--resume", FIRST, ""]
