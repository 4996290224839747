"""A Claude Code world for the files source's tests: an isolated config folder, store and collector, transcripts
written as 2.1.328 writes them, live-catalog entries, and fake runtimes (named copies of /bin/sh and /bin/sleep)
that the source's process table, scoped to the test's own processes, sees."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from lunavect import store
from lunavect.clients.claude.files_source import ClaudeFilesSource
from lunavect.collector.tick import Collector
from lunavect.host.processes import process_table, start_ticks
from lunavect.listing.sessions import read_sessions


def iso_stamp(t: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t * 1000) % 1000:03d}Z"


class World:
    """An isolated Claude folder, store and collector, and the fake runtimes a test starts."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.config = root / "claude"
        self.work = root / "work"
        self.work.mkdir(parents=True)
        self.project = self.config / "projects" / "-work"
        self.project.mkdir(parents=True)
        (self.config / "sessions").mkdir()
        self.conn = store.connect(root / "store.sqlite3")
        self.pids: set[int] = set()
        self.procs: list[subprocess.Popen] = []
        self.source = ClaudeFilesSource(config_dir=self.config, processes=self.table)
        self.collector = Collector(self.conn, sources=[self.source])

    def table(self):
        """The machine's process table, scoped to this test's processes."""
        return {pid: proc for pid, proc in process_table().items() if pid in self.pids}

    def tick(self, now: float | None = None) -> None:
        now = time.time() if now is None else now
        self.collector.ingest(now)
        self.collector.poll_sources(now)
        self.collector.snapshot(now)

    def sessions(self, hidden: bool = True) -> dict[str, object]:
        return {s.session_id: s for s in read_sessions(self.conn, include_hidden=hidden)}

    def transcript(self, session: str, records: list[dict], mode: str = "ab") -> Path:
        path = self.project / f"{session}.jsonl"
        with open(path, mode) as f:
            for record in records:
                f.write(json.dumps(record, separators=(",", ":")).encode() + b"\n")
        return path

    def runtime(self, cwd: Path | None = None) -> int:
        """A live process whose executable is named `claude` (a copy of sleep)."""
        binary = self.root / "bin" / "claude"
        if not binary.exists():
            binary.parent.mkdir(exist_ok=True)
            shutil.copy(os.path.realpath(shutil.which("sleep")), binary)
        proc = subprocess.Popen([str(binary), "120"], cwd=cwd or self.work, stdin=subprocess.DEVNULL)
        self.procs.append(proc)
        self.pids.add(proc.pid)
        return proc.pid

    def tool_launched_runtime(self, cwd: Path | None = None) -> tuple[int, int]:
        """A `claude` started by a command of another `claude`: runtime → shell → runtime. Returns both pids."""
        outer = self.root / "agent" / "claude"
        if not outer.exists():
            outer.parent.mkdir(exist_ok=True)
            shutil.copy(os.path.realpath(shutil.which("sh")), outer)
        inner = self.root / "bin" / "claude"
        if not inner.exists():
            inner.parent.mkdir(exist_ok=True)
            shutil.copy(os.path.realpath(shutil.which("sleep")), inner)
        script = f'cd "{cwd or self.work}" && sh -c "{inner} 120; true"; true'
        proc = subprocess.Popen([str(outer), "-c", script], stdin=subprocess.DEVNULL)
        self.procs.append(proc)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            table = process_table()
            shell = next((p for p in table.values() if p.ppid == proc.pid), None)
            child = next((p for p in table.values() if shell and p.ppid == shell.pid and p.runtime == "claude"), None)
            if child is not None:
                self.pids |= {proc.pid, shell.pid, child.pid}
                return proc.pid, child.pid
            time.sleep(0.02)
        raise AssertionError("the tool-launched runtime did not start")

    def catalog(self, pid: int, session: str, status: str, at: float, **fields) -> None:
        entry = {
            "pid": pid,
            "sessionId": session,
            "cwd": str(self.work),
            "procStart": start_ticks(pid),
            "version": "2.1.328",
            "kind": "interactive",
            "entrypoint": "cli",
            "tmux": "s0:@0.%0",
            "name": "work-ab",
            "nameSource": "derived",
            "status": status,
            "updatedAt": int(at * 1000),
            "statusUpdatedAt": int(at * 1000),
            **fields,
        }
        (self.config / "sessions" / f"{pid}.json").write_text(json.dumps(entry))

    def close(self) -> None:
        for proc in self.procs:
            proc.kill()
            proc.wait()
        for pid in self.pids:  # the grandchildren of a tool-launched runtime
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        self.conn.close()


S1 = "aaaaaaaa-1111-2222-3333-444444444444"
S2 = "bbbbbbbb-1111-2222-3333-444444444444"


def rec(kind: str, at: float, n: int, session: str = S1, cwd: str | None = None, **fields) -> dict:
    base = {
        "type": kind,
        "uuid": f"{session[:4]}-{n}",
        "timestamp": iso_stamp(at),
        "sessionId": session,
        "isSidechain": False,
        "version": "2.1.328",
        "gitBranch": "main",
        "entrypoint": "cli",
    }
    if cwd:
        base["cwd"] = cwd
    return base | fields


def prompt(at, n, text="Fix the login bug", **kw):
    return rec("user", at, n, message={"role": "user", "content": text}, origin={"kind": "human"}, **kw)


def reply(at, n, stop="end_turn", **kw):
    return rec(
        "assistant",
        at,
        n,
        message={"role": "assistant", "stop_reason": stop, "content": [{"type": "text", "text": "done"}]},
        **kw,
    )


def tool(at, n, name="Bash", call="toolu_1", **inputs):
    return rec(
        "assistant",
        at,
        n,
        message={
            "role": "assistant",
            "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": call, "name": name, "input": inputs}],
        },
    )


def tool_result(at, n, call, native):
    return rec(
        "user",
        at,
        n,
        message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": "x"}]},
        toolUseResult=native,
    )
