"""`lunavect status`: the counts and the most urgent session in each bar's format, once and with --follow
(one line per change, nothing in between), end to end with the real shim, collector and CLI; i3blocks itself
runs the documented block."""

from __future__ import annotations

import io
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from docs_support import page
from unit_support import LUNAVECT_BIN, installed_hook_command, stop_collector

from lunavect.frontends.bar import follow as follow_module
from lunavect.listing import arrangement, changes

WORKING = "aaaaaaaa-1111-4111-8111-111111111111"
WAITING = "bbbbbbbb-2222-4222-8222-222222222222"
FAILED = "cccccccc-3333-4333-8333-333333333333"
LATER = "dddddddd-4444-4444-8444-444444444444"
# waybar-custom(5), return-type json: the only fields the module reads.
WAYBAR_FIELDS = {"text", "alt", "tooltip", "class", "percentage"}


def send(iso_env, session: str, name: str, **fields) -> None:
    payload = {"session_id": session, "hook_event_name": name, "cwd": f"/home/u/proj-{session[:4]}", **fields}
    proc = iso_env.hook(payload)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@contextmanager
def running_client(iso_env, session: str, *events: tuple[str, dict]) -> Iterator[None]:
    """A stand-in client that sends `events` through the real hook and keeps running, so its session's row says
    open (a process named "claude" is what the shim records as the agent); it ends with the block."""
    fake = iso_env.root / "bin" / "claude"
    fake.parent.mkdir(exist_ok=True)
    if not fake.exists():
        fake.symlink_to(sys.executable)  # the kernel names the process after the path it ran: "claude"
    payloads = [
        json.dumps({"session_id": session, "hook_event_name": name, "cwd": f"/home/u/proj-{session[:4]}", **fields})
        for name, fields in events
    ]
    script = textwrap.dedent(
        f"""
        import shlex, subprocess, sys, time
        cmd = " ".join(shlex.quote(w) for w in {installed_hook_command()!r})
        for payload in {payloads!r}:
            subprocess.run(["/bin/sh", "-c", cmd], input=payload.encode(), check=True)
        print("sent", flush=True)
        time.sleep(120)
        """
    )
    proc = subprocess.Popen([str(fake), "-I", "-S", "-c", script], env=iso_env.env, stdout=subprocess.PIPE)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"sent\n"
        yield
    finally:
        proc.kill()
        proc.wait()


def wait_permission(iso_env, session: str) -> None:
    send(iso_env, session, "UserPromptSubmit", prompt="please")
    send(iso_env, session, "PermissionRequest", tool_name="Bash", tool_input={"command": "make"})


def status(iso_env, fmt: str = "json") -> str:
    proc = iso_env.cli("status", "--format", fmt)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.endswith("\n") and proc.stdout.count("\n") == 1, proc.stdout
    return proc.stdout.rstrip("\n")


@pytest.mark.process
def test_zeros_without_a_store_in_every_format(iso_env):
    assert not iso_env.data.exists()
    assert json.loads(status(iso_env)) == {
        "working": 0,
        "awaiting_input": 0,
        "errors": 0,
        "working_elsewhere": 0,
        "awaiting_elsewhere": 0,
        "urgent": None,
        "attention": [],
        "notes": [],
    }
    assert status(iso_env, "plain") == "⚙ 0 working · ◆ 0 awaiting input"
    assert "⚙ 0" in status(iso_env, "tmux") and "◆ 0" in status(iso_env, "polybar")
    assert json.loads(status(iso_env, "waybar"))["class"] == "idle"


@pytest.mark.process
def test_counts_errors_and_the_longest_wait_hidden_included(iso_env):
    send(iso_env, WORKING, "UserPromptSubmit", prompt="go")
    wait_permission(iso_env, WAITING)
    time.sleep(0.01)  # distinct start times for the two waits (ordering, not timing, is asserted)
    wait_permission(iso_env, LATER)
    # A turn that failed while its client still runs needs its person (README, "What needs you").
    with running_client(
        iso_env, FAILED, ("UserPromptSubmit", {"prompt": "hi"}), ("StopFailure", {"error": "rate_limit"})
    ):
        counts_errors_and_the_longest_wait(iso_env)
    # Its client ended: the failed turn waits for nobody, and the bars stop counting it.
    result = json.loads(status(iso_env))
    assert result["errors"] == 0 and [a["id"] for a in result["attention"]] == [f"claude:{s}" for s in (WAITING, LATER)]


def counts_errors_and_the_longest_wait(iso_env) -> None:
    result = json.loads(status(iso_env))
    assert (result["working"], result["awaiting_input"], result["errors"]) == (1, 2, 1)
    assert result["urgent"]["id"] == f"claude:{WAITING}"
    assert [a["id"] for a in result["attention"]] == [f"claude:{s}" for s in (WAITING, LATER, FAILED)]
    # The same counters as `lunavect counts` (one function).
    counts = json.loads(iso_env.cli("counts", "--json").stdout)
    assert (counts["working"], counts["awaiting_input"]) == (1, 2)

    # Hiding never cancels work: a hidden waiting session still counts and is still the most urgent.
    arrangement.hide(iso_env.connect(), f"claude:{WAITING}")
    result = json.loads(status(iso_env))
    assert result["awaiting_input"] == 2 and result["urgent"]["id"] == f"claude:{WAITING}"
    assert result["urgent"]["hidden"] is True

    plain = status(iso_env, "plain")
    assert plain.startswith("⚙ 1 working · ◆ 2 awaiting input · ✗ 1 error · Permission needed: Bash · ")

    bar = json.loads(status(iso_env, "waybar"))
    assert set(bar) <= WAYBAR_FIELDS and isinstance(bar["class"], str)
    assert bar["class"] == "awaiting" and "\n" not in bar["text"]
    assert bar["tooltip"].count("\n") == 2 and "proj-bbbb" in bar["tooltip"].splitlines()[0]
    assert status(iso_env, "tmux").startswith("#[fg=")
    assert status(iso_env, "i3blocks").startswith("<span color='")
    assert status(iso_env, "polybar").startswith("%{F#")


def _readline(proc: subprocess.Popen, timeout: float) -> str | None:
    """The next line the process prints within `timeout` seconds, or None if it printed nothing. The pipe is
    unbuffered (bufsize=0), so a line read leaves the next one in the pipe, where select sees it."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    if not ready:
        return None
    return proc.stdout.readline().decode()


@pytest.mark.process
def test_follow_prints_one_line_per_change_and_nothing_in_between(iso_env):
    send(iso_env, WORKING, "UserPromptSubmit", prompt="go")
    iso_env.cli("list")  # a collector runs and has caught up
    proc = subprocess.Popen(
        [LUNAVECT_BIN, "status", "--follow", "--format", "json"], env=iso_env.env, stdout=subprocess.PIPE, bufsize=0
    )
    try:
        first = _readline(proc, 30)
        assert first is not None and json.loads(first)["working"] == 1
        # The store held still (the collector ticks on, committing its bookkeeping): not one line.
        assert _readline(proc, 3) is None

        wait_permission(iso_env, WAITING)
        line = _readline(proc, 60)
        assert line is not None
        while json.loads(line)["awaiting_input"] != 1:  # the prompt and the request may land in two commits
            line = _readline(proc, 60)
            assert line is not None
        assert json.loads(line)["urgent"]["id"] == f"claude:{WAITING}"
        assert _readline(proc, 3) is None

        # A commit that changes nothing a bar shows (a pin) prints nothing either.
        arrangement.pin(iso_env.connect(), f"claude:{WORKING}")
        assert _readline(proc, 2) is None

        # The collector goes away: the bar's script starts another and goes on with the next change.
        stop_collector(iso_env.data)
        send(iso_env, WORKING, "Stop")
        line = _readline(proc, 60)
        while line is not None and json.loads(line)["working"] != 0:
            line = _readline(proc, 60)
        assert line is not None and json.loads(line)["awaiting_input"] == 1
    finally:
        proc.terminate()
        proc.wait(10)


def test_follow_with_no_collector_keeps_looking_for_one(iso_env, monkeypatch):
    # The feed lost a collector that was still going away, so starting another found it running: with no
    # collector and nothing committed, the follower must look again rather than wait for ever.
    monkeypatch.setattr(follow_module, "COLLECTOR_LOOK_S", 0.05)
    stop = threading.Event()
    looks: list[float] = []

    def ensure_collector() -> None:
        looks.append(time.monotonic())
        if len(looks) >= 3:
            stop.set()

    def run() -> None:
        conn = iso_env.connect()  # in the follower's thread, as the command opens it
        feed = changes.Feed(version=lambda: int(conn.execute("PRAGMA data_version").fetchone()[0]), stop=stop)
        follow_module.follow(
            conn, lambda summary: "line", out=io.StringIO(), feed=feed, ensure_collector=ensure_collector
        )

    following = threading.Thread(target=run, daemon=True)
    following.start()
    following.join(timeout=30)
    stop.set()
    assert len(looks) >= 3, "the follower stopped looking for a collector"


I3BLOCKS_BLOCK = """\
[lunavect]
command=lunavect status --follow --format i3blocks
interval=persist
markup=pango
"""


@pytest.mark.process
@pytest.mark.skipif(shutil.which("i3blocks") is None, reason="i3blocks is not installed (Debian: i3blocks)")
def test_i3blocks_runs_the_documented_block(iso_env, tmp_path):
    assert I3BLOCKS_BLOCK in page("bars.md")  # the block the docs tell people to paste, exactly
    config = tmp_path / "i3blocks.conf"
    config.write_text(I3BLOCKS_BLOCK)
    env = {**iso_env.env, "PATH": f"{os.path.dirname(LUNAVECT_BIN)}:{os.environ['PATH']}"}
    proc = subprocess.Popen(
        ["i3blocks", "-c", str(config)], env=env, stdout=subprocess.PIPE, start_new_session=True, bufsize=0
    )

    def next_full_text() -> str:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = _readline(proc, 30)
            assert line, "i3blocks printed nothing"
            line = line.strip().lstrip(",")
            blocks = [b for b in json.loads(line) if b.get("name") == "lunavect"] if line.startswith("[{") else []
            if blocks:
                return blocks[0]["full_text"]
        raise AssertionError("i3blocks never printed a status line")

    try:
        text = next_full_text()
        while "◆ 0" not in text:
            text = next_full_text()
        wait_permission(iso_env, WAITING)
        while "◆ 1" not in text:
            text = next_full_text()
        assert text.startswith("<span color='#e5a50a'>")
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # i3blocks waits for its blocks on SIGTERM: end it and them
        proc.wait(10)


def test_every_format_is_offered_and_documented():
    from lunavect.cli.status import FORMATS as OFFERED
    from lunavect.frontends.bar.formats import FORMATS

    assert OFFERED == FORMATS
    bars = page("bars.md")
    for fmt in ("waybar", "i3blocks", "polybar"):
        assert f"lunavect status --follow --format {fmt}" in bars
