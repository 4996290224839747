"""The status-line wrapper: the person's own status line prints byte for byte what it prints without
lunavect (stdout, stderr, exit code, with the very same stdin), the rate-limit windows of the input are kept
(numbers only), and installing is reversible, leaving every other setting as it was."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from lunavect import store
from lunavect.install import statusline
from lunavect.install.hooks_file import HooksFileError
from lunavect.usage import limits

# The wrapper stamps what it keeps with the real clock: the windows are read a moment later.
NOW = float(int(time.time()))
PAYLOAD = {
    "session_id": "0b5e3a52-1111-4222-8333-944445555666",
    "model": {"id": "claude-opus-4-6", "display_name": "Opus"},
    "workspace": {"current_dir": "/p"},
    "transcript_path": "/p/t.jsonl",
    "rate_limits": {
        "five_hour": {"used_percentage": 42.5, "resets_at": NOW + 3600},
        "seven_day": {"used_percentage": 8, "resets_at": NOW + 5 * 86400},
    },
}
# The person's status line: reads stdin, prints colours, a non-UTF-8 byte and no final newline, writes to
# stderr and exits 3.
PERSON = r"""python3 -c 'import sys,hashlib; d=sys.stdin.buffer.read(); sys.stdout.buffer.write(b"\x1b[1;32m" + hashlib.sha256(d).hexdigest().encode() + b"\xff \xe2\x9c\x93"); sys.stderr.write("note"); sys.exit(3)'"""


def run(command: str, data: bytes, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["/bin/sh", "-c", command], input=data, capture_output=True, env=env, check=False)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(tmp_path), "LUNAVECT_HOME": str(tmp_path / "lv")}


@pytest.mark.process
def test_the_person_s_status_line_prints_the_same_bytes_and_the_limits_are_kept(tmp_path: Path, env) -> None:
    settings = tmp_path / "settings.json"
    original_line = {"type": "command", "command": PERSON, "padding": 2}
    settings.write_text(json.dumps({"model": "opus", "statusLine": original_line, "hooks": {}}))
    data = json.dumps(PAYLOAD).encode()

    without = run(PERSON, data, env)
    assert statusline.install(settings)
    assert not statusline.install(settings)  # already there
    wrapped = json.loads(settings.read_text())["statusLine"]
    assert wrapped["padding"] == 2 and statusline.is_ours(wrapped["command"])
    with_lunavect = run(wrapped["command"], data, env)

    assert (with_lunavect.stdout, with_lunavect.stderr, with_lunavect.returncode) == (
        without.stdout,
        without.stderr,
        without.returncode,
    )
    assert without.returncode == 3 and b"\xff" in without.stdout

    conn = store.connect(tmp_path / "s.sqlite3")
    [claude] = limits.read(conn, now=NOW, folder=tmp_path / "lv" / "limits")
    conn.close()
    assert claude.client == "claude"
    assert [(w.name, w.used_percent, w.window_minutes, w.resets_at, w.stale) for w in claude.windows] == [
        ("five_hour", 42.5, 300, NOW + 3600, False),
        ("seven_day", 8.0, 10080, NOW + 5 * 86400, False),
    ]
    kept = (tmp_path / "lv" / "limits" / "claude.json").read_text()
    assert "claude-opus" not in kept and "/p" not in kept  # numbers only

    assert statusline.uninstall(settings)
    assert json.loads(settings.read_text()) == {"model": "opus", "statusLine": original_line, "hooks": {}}
    assert not statusline.uninstall(settings)


@pytest.mark.process
def test_without_a_status_line_of_its_own_the_wrapper_prints_nothing_and_uninstall_removes_it(
    tmp_path: Path, env
) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps({"theme": "dark"}))
    assert statusline.install(settings)
    command = json.loads(settings.read_text())["statusLine"]["command"]
    result = run(command, b"not json at all", env)
    assert (result.stdout, result.returncode) == (b"", 0)
    assert not (tmp_path / "lv" / "limits" / "claude.json").exists()
    assert statusline.uninstall(settings)
    assert json.loads(settings.read_text()) == {"theme": "dark"}


def test_a_malformed_settings_file_is_refused_untouched(tmp_path: Path) -> None:
    settings = tmp_path / "settings.json"
    settings.write_text('{"statusLine": "echo hi"}')
    with pytest.raises(HooksFileError):
        statusline.install(settings)
    assert settings.read_text() == '{"statusLine": "echo hi"}'


@pytest.mark.parametrize("status_line_first", [True, False])
def test_the_person_s_bytes_come_back_whichever_was_installed_first(tmp_path: Path, status_line_first: bool) -> None:
    """`hooks install --statusline` wraps the status line, then adds the hooks; a person may also add the
    wrapper later. Either way the backup is their own version, and uninstalling both gives their bytes back;
    taking only the wrapper out gives the bytes the hooks alone would have left."""
    from lunavect.clients.claude import install as claude_install

    settings = tmp_path / "settings.json"
    original = b'{\n    "statusLine": {"padding": 1, "type": "command", "command": "my-line"},\n    "hooks": {}\n}\n'
    settings.write_bytes(original)
    claude_install.install(settings)
    hooks_only = settings.read_bytes()
    settings.write_bytes(original)
    steps = [lambda: statusline.install(settings), lambda: claude_install.install(settings)]
    for step in steps if status_line_first else reversed(steps):
        assert step()
    assert statusline.uninstall(settings)
    assert settings.read_bytes() == hooks_only
    assert claude_install.uninstall(settings)
    assert settings.read_bytes() == original


@pytest.mark.process
def test_a_large_input_and_a_command_that_stops_reading_are_passed_as_without_lunavect(tmp_path: Path, env) -> None:
    """An input larger than a pipe holds is fed by a writer while the person's command reads it; a command
    that reads only a little (or nothing) still ends as it would, and gets SIGPIPE at its default."""
    big = json.dumps({**PAYLOAD, "padding": "x" * 300_000}).encode()
    for person in (PERSON, "head -c 10; echo", "grep SigIgn /proc/self/status || true"):
        without = run(person, big, env)
        wrapped = run(statusline.wrapper_command(person), big, env)
        assert (wrapped.stdout, wrapped.stderr, wrapped.returncode) == (
            without.stdout,
            without.stderr,
            without.returncode,
        ), person
