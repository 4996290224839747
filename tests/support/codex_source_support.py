"""A Codex home for the source's tests: rollouts written as Codex writes them (one JSON line a record, the text
of a file), read by a collector whose clock the test passes."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from lunavect import store
from lunavect.clients.codex.source import CodexSource
from lunavect.collector.tick import Collector

A = "01a227be-4cf8-7c51-8158-933e9468ff3b"
B = "01a227be-5555-7c51-8158-933e9468ff3b"
T = 1_795_963_000.0


def stamp(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def rec(kind: str, payload: dict, t: float) -> str:
    return json.dumps({"timestamp": stamp(t), "type": kind, "payload": payload}, separators=(",", ":")) + "\n"


def meta(thread: str, t: float, cwd: str = "/w", **extra) -> str:
    return rec("session_meta", {"id": thread, "cwd": cwd, "originator": "codex_exec", "source": "exec", **extra}, t)


def prompt(text: str, t: float) -> str:
    return rec("event_msg", {"type": "user_message", "message": text}, t)


def started(turn: str, t: float) -> str:
    return rec("event_msg", {"type": "task_started", "turn_id": turn}, t)


def complete(turn: str, t: float) -> str:
    return rec("event_msg", {"type": "task_complete", "turn_id": turn}, t)


def call(name: str, call_id: str, t: float) -> str:
    return rec("response_item", {"type": "function_call", "name": name, "arguments": "{}", "call_id": call_id}, t)


class Home:
    """An isolated CODEX_HOME with a collector (its clock passed by the test) reading it."""

    def __init__(self, root: Path) -> None:
        self.codex = root / "codex-home"
        self.day = self.codex / "sessions" / "2026" / "11" / "29"
        self.day.mkdir(parents=True)
        self.db = root / "lv.sqlite3"
        self.spool = root / "spool"
        self.env = {"LUNAVECT_CODEX": str(root / "no-codex"), "PATH": "/nonexistent", "HOME": str(root)}
        self.conn = store.connect(self.db)
        self.source = CodexSource(codex_home=self.codex, env=self.env)
        self.collector = Collector(self.conn, spool_dir=self.spool, sources=[self.source])

    def rollout(self, thread: str, text: str, segment: str | None = None, stamp_: str = "14-38-32") -> Path:
        name = f"rollout-2026-11-29T{stamp_}-{thread}" + (f"_{segment}" if segment else "") + ".jsonl"
        path = self.day / name
        with open(path, "a") as f:
            f.write(text)
        return path

    def tick(self, now: float) -> dict[str, dict]:
        self.collector.ingest(now)
        self.collector.poll_sources(now)
        self.collector.snapshot(now)
        return {row[0]: json.loads(row[1]) for row in self.conn.execute("SELECT id, data FROM snapshot")}

    def restart(self) -> None:
        self.source.close()
        self.conn.close()
        self.conn = store.connect(self.db)
        self.source = CodexSource(codex_home=self.codex, env=self.env)
        self.collector = Collector(self.conn, spool_dir=self.spool, sources=[self.source])

    def events(self) -> list[tuple[str, str]]:
        return self.conn.execute("SELECT event_id, kind FROM events ORDER BY seq").fetchall()

    def close(self) -> None:
        self.source.close()
        self.conn.close()
