"""Claude Code's live catalog (`sessions/<pid>.json`), guarded against reused pids, and the process
ancestry that tells a tool-launched Claude runtime from a person's own session. Real processes where the
machine allows (named copies of /bin/sh and /bin/sleep stand in for the runtimes)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
from unit_support import sleeping_process

from lunavect.clients.claude.catalog import is_live, parse_entry, read_catalog, started_as_recorded
from lunavect.host.ancestry import Origin, launched_by_agent
from lunavect.host.processes import (
    MAX_ANCESTRY,
    START_TOLERANCE_S,
    Proc,
    parse_proc_start,
    process,
    process_table,
    start_ticks,
)

LINUX = sys.platform.startswith("linux")

ENTRY = {
    "pid": 4242,
    "sessionId": "c3e72541-de57-4938-add1-5d228a618613",
    "cwd": "/srv/p",
    "startedAt": 1795963209969,
    "procStart": "84426",
    "version": "2.1.328",
    "kind": "interactive",
    "entrypoint": "cli",
    "tmux": "s0:@0.%0",
    "name": "work-fe",
    "nameSource": "derived",
    "status": "waiting",
    "waitingFor": "permission prompt",
    "updatedAt": 1795963210484,
    "statusUpdatedAt": 1795963210484,
}


def test_entry_as_the_client_writes_it():
    entry = parse_entry(4242, json.dumps(ENTRY).encode())
    assert (entry.session_id, entry.status, entry.waiting_for) == (ENTRY["sessionId"], "waiting", "permission prompt")
    assert entry.at == pytest.approx(1795963210.484)
    assert (entry.tmux, entry.proc_start, entry.entrypoint, entry.kind) == ("s0:@0.%0", "84426", "cli", "interactive")
    assert entry.name is None  # a name derived from the folder is no title
    assert parse_entry(4242, json.dumps(ENTRY | {"nameSource": "user", "name": "Release"}).encode()).name == "Release"
    assert not entry.declared_background
    assert parse_entry(4242, json.dumps(ENTRY | {"kind": "bg"}).encode()).declared_background


@pytest.mark.parametrize(
    "raw",
    [b"", b"{", b"[]", json.dumps(ENTRY | {"pid": 1}).encode(), json.dumps({"pid": 4242}).encode(), b"\xff\xfe"],
)
def test_unusable_entries(raw):
    assert parse_entry(4242, raw) is None


def test_unknown_status_is_no_status():
    entry = parse_entry(4242, json.dumps(ENTRY | {"status": "sleeping"}).encode())
    assert entry.status is None and entry.waiting_for is None


def test_read_catalog_skips_what_is_not_an_entry(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "4242.json").write_text(json.dumps(ENTRY))
    (folder / "77.json").write_text("{broken")
    (folder / "notes.txt").write_text("x")
    (folder / "abc.json").write_text(json.dumps(ENTRY))
    entries, unusable = read_catalog(tmp_path)
    assert [e.pid for e in entries] == [4242] and unusable == 1
    assert read_catalog(tmp_path / "missing") == ([], 0)


@pytest.fixture
def sleeper():
    with sleeping_process() as proc:
        yield proc


@pytest.mark.process
@pytest.mark.skipif(not LINUX, reason="procStart is clock ticks on Linux")
def test_proc_start_guards_against_a_reused_pid(sleeper):
    live = process(sleeper.pid)
    ticks = start_ticks(sleeper.pid)
    assert ticks is not None and ticks.isdigit()
    entry = parse_entry(sleeper.pid, json.dumps(ENTRY | {"pid": sleeper.pid, "procStart": ticks}).encode())
    assert started_as_recorded(entry, live) is True and is_live(entry, live)
    reused = parse_entry(
        sleeper.pid, json.dumps(ENTRY | {"pid": sleeper.pid, "procStart": str(int(ticks) - 1)}).encode()
    )
    assert started_as_recorded(reused, live) is False and not is_live(reused, live)
    sleeper.kill()
    sleeper.wait()
    assert process(sleeper.pid) is None
    assert not is_live(entry, process(sleeper.pid))


@pytest.mark.process
def test_macos_lstart_form(sleeper):
    live = process(sleeper.pid)
    lstart = time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(live.started))
    entry = parse_entry(sleeper.pid, json.dumps(ENTRY | {"pid": sleeper.pid, "procStart": lstart}).encode())
    assert started_as_recorded(entry, live) is True
    earlier = time.strftime("%a %b %e %H:%M:%S %Y", time.localtime(live.started - 30))
    entry = parse_entry(sleeper.pid, json.dumps(ENTRY | {"pid": sleeper.pid, "procStart": earlier}).encode())
    assert started_as_recorded(entry, live) is False


@pytest.mark.process
def test_unverifiable_start_needs_a_claude_runtime(sleeper):
    live = process(sleeper.pid)
    entry = parse_entry(sleeper.pid, json.dumps(ENTRY | {"pid": sleeper.pid, "procStart": None}).encode())
    assert started_as_recorded(entry, live) is None
    assert not is_live(entry, live)  # "sleep" is not Claude: a pid alone is no identity


# -- ancestry, on invented tables ---------------------------------------------------------------------------


def table(*procs: tuple[int, int, str]) -> dict[int, Proc]:
    return {pid: Proc(pid=pid, ppid=ppid, name=name) for pid, ppid, name in procs}


def test_claude_started_by_another_claudes_command():
    procs = table((10, 1, "tmux: server"), (20, 10, "claude"), (30, 20, "bash"), (40, 30, "claude"))
    assert launched_by_agent(procs, 40) == Origin("claude", 20)
    assert launched_by_agent(procs, 20) is None  # the person's own session, under tmux


def test_claude_started_by_a_codex_command_through_several_shells():
    procs = table((20, 1, "codex"), (30, 20, "bash"), (31, 30, "sh"), (32, 31, "make"), (40, 32, "claude"))
    assert launched_by_agent(procs, 40) == Origin("codex", 20)


def test_runtime_directly_under_a_runtime_is_not_a_tool_call():
    procs = table((20, 1, "claude"), (40, 20, "claude"))  # a launcher and its background session
    assert launched_by_agent(procs, 40) is None


def test_truncated_or_unbounded_ancestry_invents_no_origin():
    procs = table((30, 20, "bash"), (40, 30, "claude"))  # pid 20 cannot be seen
    assert launched_by_agent(procs, 40) is None
    deep = [(1000, 1, "claude")] + [(1001 + i, 1000 + i, "sh") for i in range(MAX_ANCESTRY + 2)]
    deep.append((5000, 1001 + MAX_ANCESTRY + 1, "claude"))
    assert launched_by_agent(table(*deep), 5000) is None
    looping = table((30, 31, "sh"), (31, 30, "sh"), (40, 30, "claude"))
    assert launched_by_agent(looping, 40) is None


def test_only_a_claude_runtime_is_asked_about():
    procs = table((20, 1, "claude"), (30, 20, "bash"), (40, 30, "python"))
    assert launched_by_agent(procs, 40) is None
    assert launched_by_agent(procs, 99) is None


def test_runtime_is_known_by_its_executable_too():
    procs = {20: Proc(20, 1, "MainThread", exe_name="codex"), 30: Proc(30, 20, "sh"), 40: Proc(40, 30, "claude")}
    assert launched_by_agent(procs, 40) == Origin("codex", 20)


# -- ancestry, on real processes ----------------------------------------------------------------------------


@pytest.mark.process
@pytest.mark.skipif(not LINUX or shutil.which("sh") is None, reason="needs /proc and sh")
def test_real_process_tree(tmp_path):
    outer_dir, inner_dir = tmp_path / "outer", tmp_path / "inner"
    outer_dir.mkdir()
    inner_dir.mkdir()
    outer, inner = outer_dir / "claude", inner_dir / "claude"
    shutil.copy(os.path.realpath(shutil.which("sh")), outer)
    shutil.copy(os.path.realpath(shutil.which("sleep")), inner)
    script = f'sh -c "{inner} 60; true"; true'
    runtime = subprocess.Popen([str(outer), "-c", script], stdin=subprocess.DEVNULL)
    made = [runtime.pid]
    try:
        deadline = time.monotonic() + 10
        child = None
        while child is None and time.monotonic() < deadline:
            procs = process_table()
            shell = next((p for p in procs.values() if p.ppid == runtime.pid), None)
            child = next((p for p in procs.values() if shell is not None and p.ppid == shell.pid), None)
            time.sleep(0.02)
        assert child is not None
        made += [shell.pid, child.pid]
        assert (procs[runtime.pid].runtime, shell.runtime, child.runtime) == ("claude", None, "claude")
        assert launched_by_agent(procs, child.pid) == Origin("claude", runtime.pid)
        assert child.started is not None and abs(child.started - time.time()) < 30
    finally:
        for pid in reversed(made):
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        runtime.wait()


def test_one_entry_serves_the_source_and_returning_to_a_task():
    """The catalog's one entry type carries the start as the client wrote it (compared exactly in ticks) and
    read as a time (compared within host/processes' tolerance), and the tmux pane id."""
    raw = ENTRY | {"pid": 4242, "procStart": "Sun Nov 29 14:26:34 2026", "tmux": "work:@3.%17"}
    entry = parse_entry(4242, json.dumps(raw).encode())
    assert entry.started == parse_proc_start("Sun Nov 29 14:26:34 2026") and entry.tmux_pane == "%17"
    live = Proc(4242, 1, "claude", started=entry.started + START_TOLERANCE_S / 2)
    assert started_as_recorded(entry, live) is True
    assert started_as_recorded(entry, Proc(4242, 1, "claude", started=entry.started + 2 * START_TOLERANCE_S)) is False
