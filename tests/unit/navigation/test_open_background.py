"""Returning to a session Claude Code runs in the background (`claude --bg`), end to end: the real shim and
collector, a live catalog entry of a real running process, the real CLI. Its way back is `claude attach <job
id>`, printed or run as `--resume-in` says, never the terminal its process holds; a reply is refused with
that command; once stopped, the same command resumes it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_server import tmux_server
from unit_support import sleeping_process, wait_until

from lunavect import paths
from lunavect.host.processes import start_ticks

SESSION = "de400c41-c7a1-42d3-ab40-68cc255080de"
JOB = "de400c41"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "work"
    path.mkdir()
    return path


@pytest.fixture
def claude_record(tmp_path: Path, iso_env) -> Path:
    """A `claude` on PATH that writes the folder it runs in and its arguments, each ended by a NUL."""
    record = Path(f"/tmp/lv-bg-record-{os.getpid()}-{tmp_path.name}")
    iso_env.recording_program("claude", record)
    yield record
    record.unlink(missing_ok=True)


@pytest.fixture
def service_process() -> Iterator[subprocess.Popen]:
    """A running process standing for the background session's (its start time is what the catalog records)."""
    with sleeping_process() as proc:
        yield proc


def worked(iso_env, cwd: Path) -> None:
    """The session's hooks: it worked and its reply is ready (a background session's hooks fire as usual)."""
    for name in ("SessionStart", "UserPromptSubmit", "Stop"):
        payload = {"session_id": SESSION, "hook_event_name": name, "cwd": str(cwd), "prompt": "write the marker"}
        assert iso_env.hook(payload).returncode == 0


def catalog(pid: int, proc_start: str | None, cwd: Path, **fields: object) -> None:
    entry = {
        "pid": pid,
        "sessionId": SESSION,
        "cwd": str(cwd),
        "procStart": proc_start,
        "version": "2.1.328",
        "kind": "bg",
        "entrypoint": "cli",
        "name": "nightly report",
        "nameSource": "peer",
        "jobId": JOB,
        "status": "idle",
        "statusUpdatedAt": 1796144563557,
        **fields,
    }
    folder = paths.claude_config_dir() / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{pid}.json").write_text(json.dumps(entry))


def job_state() -> None:
    folder = paths.claude_config_dir() / "jobs" / JOB
    folder.mkdir(parents=True, exist_ok=True)
    state = {"state": "stopped", "intent": "write the marker", "sessionId": SESSION, "name": "nightly report"}
    (folder / "state.json").write_text(json.dumps(state))


def running(iso_env, project: Path, service: subprocess.Popen) -> None:
    worked(iso_env, project)
    catalog(service.pid, start_ticks(service.pid), project)


@pytest.mark.process
def test_a_running_background_session_prints_its_attach_command(iso_env, project, claude_record, service_process):
    running(iso_env, project, service_process)
    proc = iso_env.cli("open", SESSION)
    assert proc.returncode == 0, proc.stderr
    assert f"attach to it with: claude attach {JOB}" in proc.stdout and '"nightly report"' in proc.stdout
    as_json = json.loads(iso_env.cli("open", SESSION, "--json").stdout)
    assert (as_json["outcome"], as_json["command"]) == ("resume", f"claude attach {JOB}")
    assert "cannot script" not in proc.stdout and "--resume" not in proc.stdout


@pytest.mark.process
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: tmux)")
def test_resume_in_tmux_runs_claude_attach_in_a_new_window(iso_env, project, claude_record, service_process):
    running(iso_env, project, service_process)
    with tmux_server(iso_env.env) as server:
        iso_env.env["TMUX"] = server.tmux_variable
        proc = iso_env.cli("open", SESSION, "--resume-in", "tmux")
        assert proc.returncode == 0 and "attached in tmux window main:1" in proc.stdout, proc.stdout + proc.stderr
        wait_until(lambda: claude_record.exists() and claude_record.stat().st_size, "claude attach never ran")
        assert claude_record.read_bytes().decode().split("\0") == [str(project), "attach", JOB, ""]


@pytest.mark.process
def test_a_reply_to_it_is_refused_with_the_attach_command(iso_env, project, claude_record, service_process):
    running(iso_env, project, service_process)
    proc = iso_env.cli("reply", SESSION, "never typed")
    assert proc.returncode == 1 and "nothing was typed" in proc.stderr
    assert "in the background" in proc.stderr and f"claude attach {JOB}" in proc.stderr
    assert not claude_record.exists()


@pytest.mark.process
def test_a_stopped_background_session_resumes_through_attach(iso_env, project, claude_record):
    worked(iso_env, project)
    job_state()
    proc = iso_env.cli("open", SESSION)
    assert proc.returncode == 0, proc.stderr
    assert "finished" in proc.stdout and f"resume it with: claude attach {JOB}" in proc.stdout


@pytest.mark.process
def test_a_stale_entry_of_a_pid_reused_since_is_no_running_session(iso_env, project, claude_record, service_process):
    worked(iso_env, project)
    catalog(service_process.pid, "1", project)  # recorded for a process that started long before this one
    proc = iso_env.cli("open", SESSION)
    assert "claude attach" not in proc.stdout and "--resume" in proc.stdout, proc.stdout + proc.stderr


def asks_permission(iso_env, cwd: Path) -> None:
    """The session's hooks: it asks permission for a command (in the background, nobody sees its dialog)."""
    bash = {"tool_name": "Bash", "tool_input": {"command": "touch report.txt"}}
    for name, extra in (
        ("SessionStart", {}),
        ("UserPromptSubmit", {"prompt": "write the marker"}),
        ("PreToolUse", {"tool_use_id": "t1", **bash}),
        ("PermissionRequest", bash),
    ):
        payload = {"session_id": SESSION, "hook_event_name": name, "cwd": str(cwd), **extra}
        assert iso_env.hook(payload).returncode == 0


@pytest.mark.process
@pytest.mark.parametrize("action", [("reply", "never typed"), ("answer", "allow")])
def test_whatever_it_waits_for_a_reply_or_answer_gives_the_attach_command(
    iso_env, project, claude_record, service_process, action
):
    """A permission is no reason to suggest `claude --resume`: that would start a second copy of a session that
    still runs. Both refusals name the background job and its attach command."""
    asks_permission(iso_env, project)
    catalog(service_process.pid, start_ticks(service_process.pid), project, status="waiting")
    assert json.loads(iso_env.cli("list", "--json", "--all").stdout)[0]["state"] == "permission"
    proc = iso_env.cli(*action[:1], SESSION, *action[1:])
    assert proc.returncode == 1 and "nothing was typed" in proc.stderr, proc.stderr
    assert "in the background" in proc.stderr and f"claude attach {JOB}" in proc.stderr
    assert "--resume" not in proc.stderr and not claude_record.exists()


@pytest.mark.process
def test_attaching_needs_the_cli_but_not_the_project_folder(iso_env, project, claude_record, service_process):
    """The job is the client's service's: it needs no folder to attach (a resume does), only the command."""
    running(iso_env, project, service_process)
    project.rmdir()
    proc = iso_env.cli("open", SESSION, "--json")
    assert json.loads(proc.stdout)["command"] == f"claude attach {JOB}", proc.stdout + proc.stderr
    iso_env.env["PATH"] = "/nonexistent"
    proc = iso_env.cli("open", SESSION, "--resume-in", "clipboard")
    assert proc.returncode == 1 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert (
        "`claude` command is not on PATH, so it cannot attach" in proc.stderr and "no longer exists" not in proc.stderr
    )


@pytest.mark.process
def test_the_attach_command_to_no_clipboard_says_so(iso_env, project, claude_record, service_process):
    running(iso_env, project, service_process)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "TMUX"):
        iso_env.env.pop(name, None)
    proc = iso_env.cli("open", SESSION, "--resume-in", "clipboard")
    assert proc.returncode == 1 and "no clipboard tool found" in proc.stderr and "in the background" in proc.stderr


@pytest.mark.process
def test_lunavect_resume_attaches_to_it_running_or_stopped(iso_env, project, claude_record, service_process):
    """`lunavect resume` takes the same way back as `open`: a resume would start a second copy of it."""
    running(iso_env, project, service_process)
    printed = iso_env.cli("resume", SESSION, "--print")
    assert (printed.returncode, printed.stdout) == (0, f"claude attach {JOB}\n"), printed.stderr
    ran = iso_env.cli_process("resume", SESSION)  # it replaces its own process with the command
    assert ran.returncode == 0, ran.stderr
    assert claude_record.read_bytes().decode().split("\0") == [str(project), "attach", JOB, ""]
    service_process.kill()
    service_process.wait()
    job_state()
    printed = iso_env.cli("resume", SESSION, "--print")
    assert (printed.returncode, printed.stdout) == (0, f"claude attach {JOB}\n"), printed.stderr


@pytest.mark.process
def test_its_row_s_resume_command_is_the_attach_command_until_a_terminal_resumes_it(
    iso_env, project, claude_record, service_process
):
    """What every front end copies (`resume`) is the way back `open` takes, running or stopped; once the
    session is resumed in a terminal, its live entry is no job's and the row resumes it again."""
    running(iso_env, project, service_process)
    row = json.loads(iso_env.cli("list", "--json", "--all").stdout)[0]
    assert row["resume"] == f"claude attach {JOB}" and row["open"] is True
    service_process.kill()
    service_process.wait()
    job_state()
    row = json.loads(iso_env.cli("list", "--json", "--all").stdout)[0]
    assert row["resume"] == f"claude attach {JOB}" and row["open"] is False
    with sleeping_process() as terminal:
        (paths.claude_config_dir() / "sessions" / f"{service_process.pid}.json").unlink(missing_ok=True)
        catalog(terminal.pid, start_ticks(terminal.pid), project, kind="interactive", jobId=None, status="busy")
        row = json.loads(iso_env.cli("list", "--json", "--all").stdout)[0]
        assert "--resume" in row["resume"] and row["open"] is True, row
