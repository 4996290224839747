"""The channel from lunavect's side: registrations read with every value checked where it enters (hostile
files skipped and counted), and one request to a real unix socket, with the distinct ways it can fail."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from lunavect.navigation.editors import ask as asking
from lunavect.navigation.editors import windows

NOW = 1_800_000_000.0


def registration(ident: str = "0123456789ab", **extra: object) -> dict:
    data = {
        "protocol": 1,
        "id": ident,
        "socket": f"{ident}.sock",
        "host_pid": 4321,
        "editor_pid": 4000,
        "started": NOW * 1000,
        "app": "code-server",
        "ui": "web",
        "companion": "0.1.0",
        "terminals": [{"pid": 5000, "name": "bash"}, {"pid": 5001, "name": "claude"}],
        "active": {"pid": 5001, "name": "claude"},
        "panels": {"claude": True, "codex": False},
    }
    data.update(extra)
    return data


def write(folder: Path, name: str, data: object) -> Path:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    path.chmod(0o600)
    return path


def test_a_registration_is_read_whole_and_checked(tmp_path: Path) -> None:
    write(tmp_path, "0123456789ab.json", registration())
    found = windows.read(tmp_path, NOW)
    assert found.skipped == 0 and found.closed == []
    (w,) = found.windows
    assert (w.id, w.socket, w.host_pid, w.editor_pid, w.editor) == (
        "0123456789ab",
        tmp_path / "0123456789ab.sock",
        4321,
        4000,
        "code-server",
    )
    assert [t.pid for t in w.terminals] == [5000, 5001] and w.active == 5001 and w.panels == {"claude"}


def test_hostile_registrations_are_skipped_and_counted(tmp_path: Path) -> None:
    hostile = {
        "aaaaaaaaaaa1.json": registration("aaaaaaaaaaa1", socket="../../tmp/x.sock"),
        "aaaaaaaaaaa2.json": registration("aaaaaaaaaaa2", host_pid="4321"),
        "aaaaaaaaaaa3.json": registration("aaaaaaaaaaa3", protocol=2),
        "aaaaaaaaaaa4.json": registration("NOT-AN-ID"),
        "aaaaaaaaaaa5.json": "{not json",
        "aaaaaaaaaaa6.json": [1, 2],
        "aaaaaaaaaaa7.json": registration("aaaaaaaaaaa8"),  # a file claiming another window's id
        "aaaaaaaaaaa9.json": registration("aaaaaaaaaaa9", started=(NOW + 10 * 86400) * 1000),
    }
    for name, data in hostile.items():
        write(tmp_path, name, data)
    big = tmp_path / "bbbbbbbbbbbb.json"
    big.write_text(json.dumps(registration("bbbbbbbbbbbb", pad="x" * (windows.MAX_FILE_BYTES + 1))))
    target = write(tmp_path, "target.txt", registration("cccccccccccc"))
    (tmp_path / "cccccccccccc.json").symlink_to(target)
    found = windows.read(tmp_path, NOW)
    assert found.windows == [] and found.skipped == len(hostile) + 2


def test_terminal_entries_are_bounded_and_names_cleaned(tmp_path: Path) -> None:
    terminals = [{"pid": 5000, "name": "bash\x1b]0;pwned\x07" + "n" * 500}, {"pid": -1}, {"pid": True}, "x"]
    terminals += [{"pid": 10 + i} for i in range(windows.MAX_TERMINALS + 50)]
    write(tmp_path, "0123456789ab.json", registration(terminals=terminals, active="5000"))
    (w,) = windows.read(tmp_path, NOW).windows
    assert w.terminals[0].pid == 5000 and len(w.terminals[0].name) == windows.MAX_NAME
    assert all(c.isprintable() for c in w.terminals[0].name)
    assert len(w.terminals) <= windows.MAX_TERMINALS and w.active is None


def test_closed_windows_are_read_and_old_ones_left_out(tmp_path: Path) -> None:
    closed = {"id": "0123456789ab", "app": "code-server", "closed": NOW * 1000, "terminals": [{"pid": 5000}]}
    write(tmp_path, "0123456789ab.closed", closed)
    old = dict(closed, id="ba9876543210", closed=(NOW - windows.CLOSED_KEPT_S - 10) * 1000)
    write(tmp_path, "ba9876543210.closed", old)
    found = windows.read(tmp_path, NOW)
    assert [(c.id, [t.pid for t in c.terminals]) for c in found.closed] == [("0123456789ab", [5000])]


def test_no_folder_is_no_window(tmp_path: Path) -> None:
    assert windows.read(tmp_path / "missing", NOW).windows == []


# -- asking ----------------------------------------------------------------------------------------------


def serve(path: Path, reply: Callable[[bytes], bytes | None]) -> threading.Thread:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen(1)

    def run() -> None:
        conn, _ = server.accept()
        with conn:
            request = conn.recv(4096)
            answer = reply(request)
            if answer is not None:
                conn.sendall(answer)
            else:
                time.sleep(1.5)
        server.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def a_window(folder: Path) -> windows.Window:
    write(folder, "0123456789ab.json", registration())
    return windows.read(folder, NOW).windows[0]


@pytest.fixture
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # A short path: a unix socket's must fit in 104 bytes.
    import tempfile

    return Path(tempfile.mkdtemp(prefix="lve-", dir="/tmp"))


def test_the_answer_comes_back_checked(folder: Path) -> None:
    w = a_window(folder)
    seen: list[bytes] = []

    def reply(request: bytes) -> bytes:
        seen.append(request)
        return b'{"ok":false,"error":"terminal-gone","message":"no terminal\\u001b[2J runs it"}\n'

    thread = serve(w.socket, reply)
    answer = asking.ask(w, {"op": "show", "pid": 5000})
    thread.join(5)
    assert seen == [b'{"op": "show", "pid": 5000}\n']
    assert isinstance(answer, asking.Answer) and not answer.ok and answer.error == "terminal-gone"
    assert "\x1b" not in answer.message


def test_a_missing_or_dead_socket_is_a_closed_window(folder: Path) -> None:
    w = a_window(folder)
    missing = asking.ask(w, {"op": "ping"})
    assert isinstance(missing, asking.NoAnswer) and missing.why == asking.CLOSED
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(w.socket))
    dead.close()  # the file stays, nothing listens: a companion that ended without cleaning up
    refused = asking.ask(w, {"op": "ping"})
    assert isinstance(refused, asking.NoAnswer) and refused.why == asking.CLOSED


def test_silence_is_a_timeout_and_nonsense_is_broken(folder: Path) -> None:
    w = a_window(folder)
    thread = serve(w.socket, lambda _request: None)
    silent = asking.ask(w, {"op": "ping"}, timeout=0.5)
    thread.join(5)
    assert isinstance(silent, asking.NoAnswer) and silent.why == asking.TIMEOUT
    os.unlink(w.socket)
    thread = serve(w.socket, lambda _request: b"[1,2,3]\n")
    broken = asking.ask(w, {"op": "ping"})
    thread.join(5)
    assert isinstance(broken, asking.NoAnswer) and broken.why == asking.BROKEN


def test_a_socket_that_is_not_a_socket_is_never_connected(folder: Path) -> None:
    w = a_window(folder)
    w.socket.write_text("not a socket")
    answer = asking.ask(w, {"op": "ping"})
    assert isinstance(answer, asking.NoAnswer) and answer.why == asking.CLOSED
