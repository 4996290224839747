"""The GitHub Copilot CLI source in a collector, on events files the real 1.0.102 wrote, laid out as it lays them
out in an isolated `~/.copilot`: every session listed without hooks, with its title, folder, state, resume command
and usage; a sub-agent kept out of the rows; its live registry's process and turn end; files read on from their
cursors and forgotten once gone; `lunavect show` reading the conversation."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from unit_support import wait_until

from lunavect.clients.copilot import layout
from lunavect.clients.copilot.source import CopilotSource
from lunavect.collector.tick import Collector
from lunavect.evidence import file_cursors
from lunavect.listing.sessions import read_sessions

SAMPLES = Path(__file__).resolve().parent / "samples"
NOW = 2_000_000_000.0


def lay_out(sample: str, name: str | None = None) -> Path:
    first = json.loads((SAMPLES / f"{sample}.jsonl").read_text().splitlines()[0])
    folder = layout.sessions_dir() / first["data"]["sessionId"]
    folder.mkdir(parents=True)
    shutil.copy(SAMPLES / f"{sample}.jsonl", folder / "events.jsonl")
    if name:
        shutil.copy(SAMPLES / name, folder / "workspace.yaml")
    return folder / "events.jsonl"


def rows(conn):
    return {row.id: row for row in read_sessions(conn)}


def test_sessions_appear_from_their_files_with_title_folder_state_resume_and_usage(iso_env) -> None:
    many = lay_out("many-turns", "workspace.yaml")
    failed = lay_out("unreachable")
    conn = iso_env.connect()
    collector = Collector(conn, sources=[CopilotSource()])
    collector.tick(now=NOW)
    found = rows(conn)
    sid = many.parent.name
    row = found[f"copilot:{sid}"]
    assert (row.title, row.cwd, row.state, row.basis) == (
        "say hello please",
        "/tmp/copilot-tmp/e1/work",
        "ready",  # its last reply's: a compaction's end alone moves nothing without hooks
        ["transcript"],
    )
    assert row.resume == f"cd /tmp/copilot-tmp/e1/work && copilot --resume {sid}"
    assert row.usage is not None and row.usage.model == "gpt-4.1" and row.usage.context_window == 64000
    assert row.usage.subagents.output == 5  # its explore agent's request
    assert "copilot:93b01a49-7ded-4c47-a15b-c8640f7a4dd8" in collector.internal
    other = found[f"copilot:{failed.parent.name}"]
    assert (other.state, other.error, other.title) == ("error", "unreachable", "hello there")


def test_appended_records_are_read_on_and_a_file_gone_is_forgotten(iso_env) -> None:
    path = lay_out("tool-failure", "workspace-quoted.yaml")
    lines = path.read_text().splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if '"type":"tool.execution_start"' in line)
    path.write_text("".join(lines[:end]))
    conn = iso_env.connect()
    source = CopilotSource()
    collector = Collector(conn, sources=[source])
    collector.tick(now=NOW)
    (row,) = rows(conn).values()
    assert row.title == 'fix: the "parser" isn\'t right #1'
    stored = file_cursors.load(conn, "copilot")[str(path)]
    path.write_text("".join(lines))

    def read_on() -> bool:  # the source reads what the operating system told it, a moment after the write
        collector.tick(now=NOW + 1)
        return file_cursors.load(conn, "copilot")[str(path)].cursor != stored.cursor

    wait_until(read_on, "the appended records read", timeout=10)
    (row,) = rows(conn).values()
    assert row.state == "ready"
    path.unlink()
    source._swept_at = None  # the next poll is a sweep
    collector.tick(now=NOW + 2)
    assert str(path) not in file_cursors.load(conn, "copilot")
    assert conn.execute("SELECT COUNT(*) FROM usage_ledger WHERE path = ?", (str(path),)).fetchone()[0] == 0


@pytest.fixture
def copilot_process(iso_env):
    """A process whose executable is named `copilot` (the kernel names it after the path it ran), as long as
    the test runs."""
    binary = iso_env.root / "bin" / "copilot"
    binary.parent.mkdir()
    binary.symlink_to(sys.executable)
    proc = subprocess.Popen([str(binary), "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def test_the_live_registry_gives_its_process_and_ends_a_turn(iso_env, copilot_process) -> None:
    path = lay_out("every-hook")
    sid = path.parent.name
    lines = path.read_text().splitlines(keepends=True)
    prompt = next(i for i, line in enumerate(lines) if '"type":"user.message"' in line)
    path.write_text("".join(lines[: prompt + 1]))  # a turn that runs
    (path.parent / f"inuse.{copilot_process.pid}.lock").write_text(str(copilot_process.pid))
    (path.parent / "inuse.1.lock").write_text("1")  # a pid that is no Copilot CLI
    registry = layout.home() / "open-sessions-state.json"

    def register(working: bool, at: str) -> None:
        entry = {"schemaVersion": 1, "openedAt": "2026-12-03T18:48:20.000Z", "refreshedAt": at, "working": working}
        registry.write_text(json.dumps({sid: entry}, indent=2))

    register(True, "2026-12-03T18:48:37.700Z")
    conn = iso_env.connect()
    collector = Collector(conn, sources=[CopilotSource()])
    collector.tick(now=1796323720.0)
    (row,) = rows(conn).values()
    assert (row.state, row.pid) == ("working", copilot_process.pid)
    register(False, "2026-12-03T18:49:00.000Z")  # no hook or record says how it ended: a double Esc
    collector.tick(now=1796323741.0)
    (row,) = rows(conn).values()
    assert (row.state, row.basis) == ("ready", ["catalog"])  # without hooks, the catalog's end is a reply's
    copilot_process.kill()
    copilot_process.wait()
    os.utime(registry)  # read again: its process is gone, the entry stays frozen
    collector.tick(now=1796323742.0)
    assert rows(conn)[f"copilot:{sid}"].state == "ready"


def test_lunavect_show_reads_the_conversation_from_the_events_file(iso_env) -> None:
    path = lay_out("every-hook")
    conn = iso_env.connect()
    Collector(conn, sources=[CopilotSource()]).tick(now=NOW)
    out = iso_env.cli("show", f"copilot:{path.parent.name}").stdout
    assert "do everything" in out and "touch /tmp/copilot-tmp/e6/work/marker" in out and "All done." in out
    assert "task  Look around" in out and "Say done" not in out  # the sub-agent's own prompt is its own
