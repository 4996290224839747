"""Return to a task: Enter (or a click on the focused row) opens the session through the same function as
`lunavect open`, and the panel shows its outcome at the top."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import tui_seed as seed
from tui_support import pilot_test, wait_for

from lunavect.frontends.tui.resume_screen import ResumeScreen
from lunavect.frontends.tui.session_list import SessionList
from lunavect.navigation.navigate import open_session

SIZE = (120, 30)


def finished(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    s = seed.session("f1", "ready", title="Finished task", updated=50)
    s.cwd = str(project)
    s.project = "proj"
    s.resume = f"cd {project} && claude --resume f1"
    return s


def outcome_text(session) -> str:
    result = open_session(session, resume_in=None, others=[])
    return result.message[1:]


@pilot_test
async def test_enter_opens_the_focused_session(conn, make_app, tmp_path):
    session = finished(tmp_path)
    seed.write(conn, [session])
    expected = outcome_text(session)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await wait_for(
            pilot, lambda: expected in app.panel.message, timeout=15, what=f"{expected!r} in {app.panel.message!r}"
        )


@pilot_test
async def test_a_click_focuses_a_row_and_a_click_on_the_focused_row_opens_it(conn, make_app, tmp_path):
    session = finished(tmp_path)
    seed.write(conn, [session, seed.session("other", "idle", title="Another", updated=500)])
    expected = outcome_text(session)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#sessions", offset=(10, 0))
        assert app.query_one("#sessions", SessionList).current.id == "claude:f1"
        assert app.panel.message == ""  # a first click only focuses
        await pilot.pause(0.6)  # not a double click
        await pilot.click("#sessions", offset=(10, 0))
        await wait_for(
            pilot, lambda: expected in app.panel.message, timeout=15, what=f"{expected!r} in {app.panel.message!r}"
        )


@pytest.mark.parametrize("inside_tmux", [False, True], ids=["outside-tmux", "inside-tmux"])
@pilot_test
async def test_enter_on_a_finished_row_asks_first_and_shows_the_command(
    conn, make_app, tmp_path, monkeypatch, inside_tmux
):
    """Enter on an ended row inside tmux silently started `claude --resume` in a new window (it can spend money,
    without the session's flags or environment), where outside tmux it only printed (issue 48, item 10). Both
    now ask, the command on screen: `c` copies it, Esc closes, and nothing runs; `r` resumes only inside tmux."""
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    ran = tmp_path / "ran"
    (bin_folder / "claude").write_text(f"#!/bin/sh\ntouch {ran}\n")
    (bin_folder / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")
    if inside_tmux:
        monkeypatch.setenv("TMUX", "/nonexistent/lv-socket,1,0")  # never reached: nothing may run
    session = finished(tmp_path)
    seed.write(conn, [session])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen), timeout=15, what="the resume question")
        shown = app.screen
        assert isinstance(shown, ResumeScreen) and shown.command == session.resume
        said = "\n".join(str(w.render()) for w in shown.query("Static"))
        assert session.resume in said and "c  copy the command" in said
        assert ("r  resume it in a new tmux window" in said) is inside_tmux
        if not inside_tmux:
            await pilot.press("r")  # outside tmux there is nothing to run it in: the key does nothing
            assert isinstance(app.screen, ResumeScreen)
        await pilot.press("c")
        await wait_for(pilot, lambda: not isinstance(app.screen, ResumeScreen))
        assert app.clipboard == session.resume and app.panel.message == f"Copied: {session.resume}"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen), timeout=15)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ResumeScreen))
        await pilot.pause(0.5)
    assert not ran.exists()


@pytest.fixture
def tmux_socket(monkeypatch) -> Iterator[tuple[Path, Path]]:
    """A real tmux server of the test's own, and `$TMUX` naming it as a pane of its session would."""
    folder = Path(tempfile.mkdtemp(prefix="lv-tmux-", dir="/tmp"))  # short: a socket path has a limit
    socket = folder / "s"
    tmux = ["tmux", "-S", str(socket)]
    subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-s", "main"], cwd=folder, check=True, timeout=10)
    pid = subprocess.run(
        [*tmux, "display-message", "-p", "-t", "main", "#{pid},#{session_id}"], capture_output=True, text=True
    ).stdout.strip()
    monkeypatch.setenv("TMUX", f"{socket},{pid.replace('$', '')}")
    yield folder, socket
    subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.process
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: tmux)")
@pilot_test
async def test_enter_inside_tmux_resumes_in_a_hostile_folder_and_runs_nothing(
    conn, make_app, tmp_path, monkeypatch, tmux_socket
):
    """Inside tmux, Enter on a finished row asks first and runs nothing; `r` then opens `new-window -c FOLDER`:
    a folder `proj#(touch X)` ran it."""
    server_folder, _ = tmux_socket
    x, y = server_folder / "X", server_folder / "Y"
    project = tmp_path / f"proj#(touch {x}) #{{pane_id}} $(touch {y}) `touch {y}` a;b"  # `/` nests folders
    project.mkdir(parents=True)
    record = server_folder / "record"
    bin_folder = tmp_path / "bin"
    bin_folder.mkdir()
    claude = bin_folder / "claude"
    claude.write_text(f'#!/bin/sh\nprintf \'%s\\0\' "$PWD" "$@" > {record}\n')
    claude.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")
    session = finished(tmp_path)
    session.cwd = str(project)
    seed.write(conn, [session])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen), timeout=15, what="the resume question")
        await pilot.pause(1.0)
        assert not record.exists()  # Enter alone never starts the client
        await pilot.press("r")
        await wait_for(pilot, lambda: "resumed in tmux window" in app.panel.message, timeout=15, what=app.panel.message)
        await wait_for(pilot, lambda: record.exists() and record.stat().st_size > 0, timeout=15, what="claude ran")
    assert not x.exists() and not y.exists(), "a command in the folder name ran"
    assert record.read_bytes().decode().split("\0") == [str(project), "--resume", "f1", ""]


@pilot_test
async def test_n_opens_the_session_that_needs_its_person_most_as_enter_would(conn, make_app, tmp_path):
    """`n` opens what `lunavect next` opens (a permission prompt before a ready reply, whatever the list's order
    or the focused row), through the same way back as Enter, and says when nothing waits."""
    waiting = finished(tmp_path)
    waiting.session_id, waiting.id, waiting.state, waiting.waiting_for = "p1", "claude:p1", "permission", "Bash"
    seed.write(conn, [waiting, seed.session("r1", "ready", title="A reply", updated=5)])
    expected = outcome_text(waiting)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one("#sessions", SessionList)
        await wait_for(pilot, lambda: len(widget.sessions) == 2)
        assert widget.sessions[0].id == "claude:r1"  # the list's own order puts the reply first
        await pilot.press("n")
        await wait_for(
            pilot, lambda: expected in app.panel.message, timeout=15, what=f"{expected!r} in {app.panel.message!r}"
        )
        assert widget.current is not None and widget.current.id == "claude:p1"
    seed.write(conn, [seed.session("p1", "idle", title="Answered"), seed.session("r1", "idle", title="Read")])
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: app.panel.message.startswith("Nothing needs you: "))
