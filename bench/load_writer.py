"""One writer process of bench/load.py: hook events into the spool through the shim's own code, on a schedule.

Two cores cannot start 200 hook processes a second next to a collector, so bench/load.py can drive the spool
from a few of these instead: each sends its share of one schedule (event n is due at `start + n / rate`, and
writer k sends the events n with n % writers == k), with no process started per event.

- `handle`: the whole shim after stdin, `lunavect.shim.entry.handle`: the large payload parsed, the private
  text dropped, the agent process found, one line appended (what a hook process does once it is up);
- `append`: a record extracted once beforehand, then per event a new id, time and tool_use_id and the shim's
  `append_line`: the spool's line rate alone, for the collector's ceiling.

Event numbers start at `first`, so that every phase's tool_use_ids differ.

    python bench/load_writer.py '<json config>'    # run by bench/load.py; prints one JSON line
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _benchlib import hook_payload  # noqa: E402


def event_payload(n: int, session_id: str, home: str, rng: random.Random) -> bytes:
    """Event number n: its tool_use_id `toolu_load_<n>` is what the exactly-once check counts."""
    kind = ("PreToolUse", "PostToolUse", "Stop")[n % 3]
    body = hook_payload(kind, session_id, home) | {"tool_use_id": f"toolu_load_{n}"}
    big = "x" * rng.randint(4 * 1024, 200 * 1024)
    if kind == "Stop":
        body |= {"stop_hook_active": False, "last_assistant_message": big}
    else:
        body |= {"tool_name": "Bash", "tool_input": {"command": "npm test", "description": "Run test suite"}}
        if kind == "PostToolUse":
            body["tool_response"] = {"stdout": big, "stderr": "", "interrupted": False}
    return json.dumps(body).encode()


def run(config: dict) -> dict:
    from lunavect.shim.entry import handle
    from lunavect.shim.jsoncodec import json_dumps
    from lunavect.shim.payload import extract
    from lunavect.shim.procfacts import agent_process
    from lunavect.shim.spoolfile import SPOOL_FORMAT, append_line, new_id, spool_path

    rate, writers, index = config["rate"], config["writers"], config["index"]
    sessions, home, first = config["sessions"], config["home"], config.get("first", 0)
    total = int(rate * config["seconds"])
    path = spool_path()
    templates: dict[tuple[int, str], dict] = {}
    if config["mode"] == "append":
        rng = random.Random(index)
        facts = agent_process("claude")
        for kind in range(3):
            for session_id in sessions:
                record = extract("claude", json.loads(event_payload(kind, session_id, home, rng)))
                assert record is not None
                templates[kind, session_id] = record | facts | {"v": SPOOL_FORMAT, "client": "claude"}
    sent: list[int] = []
    late: list[float] = []
    start = config["start"]
    for n in range(index, total, writers):
        due = start + n / rate
        delay = due - time.time()
        if delay > 0:
            time.sleep(delay)
        else:
            late.append(-delay)
        session_id = sessions[n % len(sessions)]
        if templates:
            record = templates[n % 3, session_id] | {"tool_use_id": f"toolu_load_{first + n}"}
            record |= {"id": new_id(), "t": round(time.time(), 6)}
            append_line(path, json_dumps(record))
        else:
            handle("claude", event_payload(first + n, session_id, home, random.Random(n)), None)
        sent.append(first + n)
    late.sort()
    return {"sent": sent, "ended": time.time(), "late_p95": late[int(0.95 * len(late))] if late else 0.0}


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))))
