"""Codex rollout lines as bytes, for the tests of the lifecycle cursor (what it reads of a turn's start and end,
its tools and its context) and of compressed rollouts."""

from __future__ import annotations

import datetime as dt
import json


def stamp(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def rec(kind: str, payload: dict, t: float) -> bytes:
    return json.dumps({"timestamp": stamp(t), "type": kind, "payload": payload}, separators=(",", ":")).encode() + b"\n"


def started(turn: str, t: float) -> bytes:
    return rec(
        "event_msg",
        {
            "type": "task_started",
            "turn_id": turn,
            "started_at": int(t),
            "turn_attribution": {"turn_id": turn, "turn_trigger": "user"},
        },
        t,
    )


def complete(turn: str, t: float) -> bytes:
    return rec("event_msg", {"type": "task_complete", "turn_id": turn, "last_agent_message": "done"}, t)


def aborted(turn: str, t: float) -> bytes:
    return rec("event_msg", {"type": "turn_aborted", "turn_id": turn, "reason": "interrupted"}, t)


def call(name: str, call_id: str, t: float) -> bytes:
    return rec("response_item", {"type": "function_call", "name": name, "arguments": "{}", "call_id": call_id}, t)


def output(call_id: str, t: float) -> bytes:
    return rec("response_item", {"type": "function_call_output", "call_id": call_id, "output": "ok"}, t)


def context(turn: str, t: float, pad: int = 0) -> bytes:
    return rec("turn_context", {"turn_id": turn, "cwd": "/w", "pad": "x" * pad}, t)
