"""Another local user's tmux (issue 42, item 1): lunavect talks only to tmux servers of its own user.

Another user can make `tmux-<uid>` in a shared folder (/tmp, or `$TMUX_TMPDIR`) before this user does and run a
server there that lets this user in; tmux 3.2 and later does a command client's file reads and writes in the
client's process, so that server's hooks would write this user's files through lunavect's own tmux commands.
The tests run as root: the other user is `nobody` (uid 65534), running a real tmux server of theirs, and a
`tmux` first on PATH records every call lunavect makes before it runs the real one.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lunavect.files import ownership
from lunavect.host.processes import Proc
from lunavect.navigation.terminals import tmux

pytestmark = [
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: tmux)"),
    pytest.mark.skipif(os.getuid() != 0, reason="making files of another user needs root"),
]

OTHER = 65534  # nobody
REAL_TMUX = shutil.which("tmux") or "tmux"


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder every user may write, as /tmp is (sticky), short enough for a socket path."""
    folder = Path(tempfile.mkdtemp(prefix="lv-xu-", dir="/tmp"))
    folder.chmod(0o1777)
    servers: list[tuple[str, int]] = []
    yield folder
    for path in folder.rglob("*"):
        if path.is_socket():
            servers.append((str(path), path.lstat().st_uid))
    for path, uid in servers:
        subprocess.run([REAL_TMUX, "-S", path, "kill-server"], capture_output=True, timeout=10, user=uid)
    shutil.rmtree(folder, ignore_errors=True)


def their_server(folder: Path, victim_file: Path) -> Path:
    """The other user's folder named for this user, and a tmux server of theirs in it whose hooks append a
    line to `victim_file` from whichever client runs list-sessions or list-panes on it."""
    theirs = folder / f"tmux-{os.getuid()}"
    theirs.mkdir(mode=0o700)
    os.chown(theirs, OTHER, OTHER)
    path = theirs / "default"
    env = {"PATH": os.environ["PATH"], "HOME": str(folder), "SHELL": "/bin/sh", "TMUX_TMPDIR": str(folder)}
    hook = f"set-buffer 'echo owned' ; save-buffer -a {victim_file}"
    subprocess.run(
        [REAL_TMUX, "-S", str(path), "-f", "/dev/null", "new-session", "-d", "sleep 600", ";",
         "set-hook", "-g", "after-list-sessions", hook, ";", "set-hook", "-g", "after-list-panes", hook],
        env=env, cwd=folder, check=True, capture_output=True, timeout=10, user=OTHER, group=OTHER,
    )  # fmt: skip
    assert path.lstat().st_uid == OTHER
    return path


def recorded(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def recording_tmux(iso_env, shared) -> Path:
    """`tmux` on PATH writes each call's arguments to a log, then runs the real tmux."""
    log = iso_env.root / "tmux-calls"
    iso_env.program_on_path("tmux", f'printf "%s\\n" "$*" >> {log}; exec {REAL_TMUX} "$@"')
    iso_env.env["TMUX_TMPDIR"] = str(shared)
    iso_env.env.pop("TMUX", None)
    return log


def test_a_folder_and_server_another_user_made_for_this_user_are_never_talked_to(
    iso_env, shared, recording_tmux, monkeypatch
):
    victim = iso_env.home / ".bashrc"
    socket_path = their_server(shared, victim)
    monkeypatch.setenv("TMUX_TMPDIR", str(shared))
    monkeypatch.delenv("TMUX", raising=False)
    out = iso_env.cli("tmux", "install")
    assert out.returncode == 0, out.stderr
    assert iso_env.cli("tmux", "publish").returncode == 0
    assert not victim.exists()  # their hooks never ran in lunavect's tmux client
    calls = recorded(recording_tmux)
    assert not [c for c in calls if str(socket_path) in c], calls
    assert "0 running tmux server(s)" in out.stdout, out.stdout
    assert tmux.default_sockets() == []


@pytest.mark.process
def test_a_socket_of_another_user_in_this_users_folder_is_never_talked_to(iso_env, shared, recording_tmux, monkeypatch):
    mine = shared / f"tmux-{os.getuid()}"
    mine.mkdir(mode=0o700)
    path = mine / "default"
    subprocess.run(
        [REAL_TMUX, "-S", str(path), "-f", "/dev/null", "new-session", "-d", "sleep 600"],
        check=True, capture_output=True, timeout=10, env={**os.environ, "TMUX_TMPDIR": str(shared)},
    )  # fmt: skip
    os.chown(path, OTHER, OTHER)  # as if the other user had bound it
    monkeypatch.setenv("TMUX_TMPDIR", str(shared))
    monkeypatch.delenv("TMUX", raising=False)
    assert tmux.default_sockets() == []
    assert iso_env.cli("tmux", "install").returncode == 0
    assert iso_env.cli("tmux", "publish").returncode == 0
    assert not [c for c in recorded(recording_tmux) if str(path) in c]
    os.chown(path, os.getuid(), os.getgid())
    assert tmux.default_sockets() == [str(path)]  # the same socket, this user's again: found


@pytest.mark.process
def test_this_users_own_server_is_found_and_published_to(iso_env, shared, recording_tmux, monkeypatch):
    env = {**iso_env.env, "TMUX_TMPDIR": str(shared)}
    subprocess.run(
        [REAL_TMUX, "-L", "mine", "-f", "/dev/null", "new-session", "-d", "sleep 600"],
        env=env, check=True, capture_output=True, timeout=10,
    )  # fmt: skip
    path = shared / f"tmux-{os.getuid()}" / "mine"
    monkeypatch.setenv("TMUX_TMPDIR", str(shared))
    monkeypatch.delenv("TMUX", raising=False)
    assert tmux.default_sockets() == [str(path)]
    out = iso_env.cli("tmux", "install")
    assert "1 running tmux server" in out.stdout, out.stdout
    assert any(f"-S {path} source-file" in c for c in recorded(recording_tmux))
    # The block it sourced runs `lunavect tmux publish` in the background, which starts a collector (and starts it
    # again if it stops while it waits): both waited for here, so that the teardown's stop is the last word (a
    # collector started after it outlived the test).
    deadline = time.monotonic() + 30
    while not _collector_runs(iso_env.data) or _publishing(iso_env.data):
        assert time.monotonic() < deadline, "the sourced block's publish did not end"
        time.sleep(0.05)


def _collector_runs(data: Path) -> bool:
    try:
        pid = int((data / "collector.lock").read_text().strip() or 0)
    except (OSError, ValueError):
        return False
    return pid > 0 and Path(f"/proc/{pid}").exists()


def _publishing(data: Path) -> bool:
    """Whether a `lunavect tmux publish` of this home still runs."""
    import psutil

    for proc in psutil.process_iter(["cmdline"]):
        try:
            if proc.info["cmdline"][-2:] == ["tmux", "publish"] and proc.environ().get("LUNAVECT_HOME") == str(data):
                return True
        except (psutil.Error, TypeError):
            continue
    return False


def test_a_folder_others_may_write_and_a_link_are_refused(tmp_path, monkeypatch) -> None:
    folder = tmp_path / f"tmux-{os.getuid()}"
    folder.mkdir(mode=0o700)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(folder / "default"))
    try:
        assert tmux.default_sockets(environ={"TMUX_TMPDIR": str(tmp_path)}) == [str(folder / "default")]
        folder.chmod(0o770)  # tmux itself refuses a folder others may write
        assert tmux.default_sockets(environ={"TMUX_TMPDIR": str(tmp_path)}) == []
        folder.chmod(0o700)
        (folder / "link").symlink_to(folder / "default")  # stat would follow it to a socket
        assert tmux.default_sockets(environ={"TMUX_TMPDIR": str(tmp_path)}) == [str(folder / "default")]
    finally:
        server.close()


def test_sockets_among_an_agents_parents_are_this_users_only(shared) -> None:
    mine, theirs = shared / "mine.sock", shared / "theirs.sock"
    bound = []
    for path in (mine, theirs):
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(path))
        bound.append(sock)
    os.chown(theirs, OTHER, OTHER)

    class Table:
        def get(self, pid):
            return {300: Proc(300, 100, "claude"), 100: Proc(100, 1, "tmux: server", "tmux")}.get(pid)

        def unix_sockets(self, pid):
            return [str(theirs), str(mine)] if pid == 100 else []

    try:
        assert tmux.server_sockets(Table(), 300) == [str(mine)]
    finally:
        for sock in bound:
            sock.close()


def test_the_owner_says_why(tmp_path) -> None:
    path = tmp_path / "f"
    path.write_text("")
    path.chmod(0o644)
    assert ownership.why_not_mine(path, ownership.FILE) is None
    os.mkfifo(tmp_path / "fifo")
    assert ownership.why_not_mine(tmp_path / "fifo", ownership.FILE) == "a FIFO, not a regular file"
    (tmp_path / "l").symlink_to(path)
    assert ownership.why_not_mine(tmp_path / "l", ownership.FILE) == "a symbolic link"
    os.chown(path, OTHER, OTHER)
    assert ownership.why_not_mine(path, ownership.FILE) == "not yours alone (owner uid 65534, mode 644)"
    with pytest.raises(ownership.NotMine, match="not yours alone"):
        ownership.require_mine(path, ownership.FILE)
    with pytest.raises(FileNotFoundError):
        ownership.require_mine(tmp_path / "none", ownership.FILE)


@pytest.mark.process
def test_a_tmux_variable_naming_another_users_server_opens_no_window_there(
    iso_env, shared, recording_tmux, monkeypatch
):
    """Resuming, opening another machine's session and copying a command use `$TMUX`'s server only when it is
    this user's: named by `$TMUX`, another user's server gets no window and no text, and its hooks never run."""
    from lunavect.navigation import clipboard, remote_host, resume
    from lunavect.navigation.open_result import Outcome

    victim = iso_env.home / ".profile"
    socket_path = their_server(shared, victim)
    monkeypatch.setenv("PATH", iso_env.env["PATH"])  # the recording tmux first
    environ = {**iso_env.env, "TMUX": f"{socket_path},1,0"}
    plan = resume.ResumePlan("/bin/true", (), str(iso_env.home), "true")
    refused = resume.in_tmux(plan, environ)
    assert refused.outcome == Outcome.UNAVAILABLE and "not yours" in refused.message
    printed = remote_host.open_remote("alpha", "claude:abc", environ, in_tmux=True)
    assert printed.outcome == Outcome.RESUME and printed.command == "ssh -t alpha lunavect open claude:abc --attach"
    assert not [argv for argv in clipboard.copy_argvs(environ, "linux") if argv[0] == "tmux"]
    assert not [c for c in recorded(recording_tmux) if str(socket_path) in c]
    assert not victim.exists()
