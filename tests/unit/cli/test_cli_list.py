"""`lunavect list [--json] [--all]` and `lunavect counts`, end to end: real shim, real collector, real CLI."""

from __future__ import annotations

import datetime as dt
import json
import socket

import pytest

CONTRACT = {
    "id": str,
    "provider": str,
    "session_id": str,
    "title": (str, type(None)),
    "project": (str, type(None)),
    "cwd": (str, type(None)),
    "host": str,
    "state": str,
    "activity": (str, type(None)),
    "since": (str, type(None)),
    "background": dict,
    "error": (str, type(None)),
    "pinned": bool,
    "hidden": bool,
    "resume": (str, type(None)),
    "basis": list,
    "open": bool,
    "last_active": (str, type(None)),
}
STATES = {"working", "background", "compacting", "permission", "input", "ready", "idle", "error", "offline", "unknown"}
ERRORS = {"limit", "unreachable", "service", "auth", "account", "other"}

WORKING = "11111111-1111-4111-8111-111111111111"
READY = "22222222-2222-4222-8222-222222222222"
FAILED = "33333333-3333-4333-8333-333333333333"
LAUNCH_ONLY = "44444444-4444-4444-8444-444444444444"
HIDDEN = "55555555-5555-4555-8555-555555555555"


def send(iso_env, session: str, name: str, **fields) -> dict:
    payload = {
        "session_id": session,
        "hook_event_name": name,
        "cwd": f"/home/u/proj-{session[:4]}",
        "transcript_path": f"/home/u/.claude/projects/x/{session}.jsonl",
        "permission_mode": "default",
        **fields,
    }
    proc = iso_env.hook(payload)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    return iso_env.spool_records()[-1]


def list_json(iso_env, *extra: str) -> list[dict]:
    proc = iso_env.cli("list", "--json", *extra)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return json.loads(proc.stdout)


def iso_ms(ts: float) -> str:
    return dt.datetime.fromtimestamp(ts, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.fixture
def sessions(iso_env):
    """Five sessions in the shapes the first rules know, sent through the real shim."""
    times = {}
    for name in ("SessionStart", "UserPromptSubmit"):
        record = send(iso_env, WORKING, name, source="startup", prompt="please fix it")
    times["working_prompt"] = record["t"]
    send(iso_env, WORKING, "PreToolUse", tool_name="Bash", tool_use_id="toolu_1", tool_input={"command": "make"})

    send(iso_env, READY, "UserPromptSubmit", prompt="hi")
    send(iso_env, READY, "Stop", last_assistant_message="Done. All tests pass.", background_tasks=[])

    send(iso_env, FAILED, "UserPromptSubmit", prompt="hi")
    send(iso_env, FAILED, "StopFailure", error="rate_limit", last_assistant_message="API Error: Rate limit reached")

    send(iso_env, LAUNCH_ONLY, "SessionStart", source="startup")

    send(iso_env, HIDDEN, "UserPromptSubmit", prompt="hi")
    send(iso_env, HIDDEN, "Stop", last_assistant_message="Done.")
    return times


def by_id(items: list[dict]) -> dict[str, dict]:
    return {item["session_id"]: item for item in items}


@pytest.mark.process
def test_empty_list(iso_env):
    assert list_json(iso_env) == []
    proc = iso_env.cli("list")
    assert proc.returncode == 0
    assert "No sessions yet." in proc.stdout and "lunavect hooks install" in proc.stdout


@pytest.mark.process
def test_json_contract(iso_env, sessions):
    items = list_json(iso_env)
    assert isinstance(items, list)
    for item in items:
        for key, kind in CONTRACT.items():
            assert key in item, key
            assert isinstance(item[key], kind), (key, item[key])
        assert item["id"] == f"claude:{item['session_id']}"
        assert item["provider"] == "claude"
        assert item["state"] in STATES
        assert item["error"] is None or item["error"] in ERRORS
        assert all(isinstance(b, str) for b in item["basis"])
        assert all(isinstance(k, str) and isinstance(v, int) for k, v in item["background"].items())
        assert item["host"] == socket.gethostname()
        assert item["pinned"] is False
        if item["since"] is not None:
            dt.datetime.fromisoformat(item["since"].replace("Z", "+00:00"))

    found = by_id(items)
    assert LAUNCH_ONLY not in found  # a lifecycle-only launch is not a session to show
    working = found[WORKING]
    assert working["state"] == "working" and working["activity"] == "Bash"
    assert working["since"] == iso_ms(sessions["working_prompt"])
    assert working["cwd"] == f"/home/u/proj-{WORKING[:4]}" and working["project"] == f"proj-{WORKING[:4]}"
    assert working["resume"] == f"cd /home/u/proj-{WORKING[:4]} && claude --resume {WORKING}"
    assert working["basis"] == ["hook"]
    assert working["error"] is None and working["background"] == {}

    # No agent process sent these events: the working one is open by its fresh evidence alone, the ready one is
    # not (nothing says its client still runs); each last did something at its newest event.
    assert working["open"] is True and working["last_active"] == working["updated"]
    ready = found[READY]
    assert ready["open"] is False and ready["last_active"] == ready["updated"]
    assert (ready["state"], ready["activity"], ready["since"], ready["error"]) == ("ready", None, None, None)
    failed = found[FAILED]
    assert (failed["state"], failed["error"], failed["activity"]) == ("error", "limit", None)


@pytest.mark.process
def test_hidden_only_with_all(iso_env, sessions):
    assert HIDDEN in by_id(list_json(iso_env))
    conn = iso_env.connect()
    conn.execute("INSERT INTO arrangement (id, hidden, hidden_at) VALUES (?, 1, 0)", (f"claude:{HIDDEN}",))
    visible = by_id(list_json(iso_env))
    assert HIDDEN not in visible and {WORKING, READY, FAILED} <= set(visible)
    everything = by_id(list_json(iso_env, "--all"))
    assert everything[HIDDEN]["hidden"] is True and everything[HIDDEN]["state"] == "ready"
    assert all(not item["hidden"] for sid, item in everything.items() if sid != HIDDEN)
    assert LAUNCH_ONLY not in everything
    proc = iso_env.cli("list", "--all")
    assert "(hidden)" in proc.stdout


@pytest.mark.process
def test_pinned_first(iso_env, sessions):
    conn = iso_env.connect()
    conn.execute("INSERT INTO arrangement (id, pinned, position) VALUES (?, 1, 1.0)", (f"claude:{FAILED}",))
    items = list_json(iso_env)
    assert items[0]["session_id"] == FAILED and items[0]["pinned"] is True
    assert all(item["pinned"] is False for item in items[1:])
    # Unpinned: the most recently active first.
    assert [i["session_id"] for i in items[1:]] == [HIDDEN, READY, WORKING]


@pytest.mark.process
def test_human_table(iso_env, sessions):
    proc = iso_env.cli("list")
    assert proc.returncode == 0 and proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].split()[:3] == ["STATE", "TIMER", "LAST"]
    rows = {line.split()[-1]: line for line in lines[1:]}
    assert "● now" in rows[WORKING[:8]] and "○ now" in rows[READY[:8]]  # open or ended, and since when
    # The panel's words, not the raw states (`list --json` keeps those).
    assert rows[WORKING[:8]].startswith("Working: Bash")
    assert rows[READY[:8]].startswith("Response ready")
    assert rows[FAILED[:8]].startswith("Limit reached")
    assert LAUNCH_ONLY[:8] not in proc.stdout


@pytest.mark.process
def test_list_shows_the_newest_event_at_once(iso_env, sessions):
    assert by_id(list_json(iso_env))[READY]["state"] == "ready"
    send(iso_env, READY, "UserPromptSubmit", prompt="again")
    assert by_id(list_json(iso_env))[READY]["state"] == "working"
    send(iso_env, READY, "PreToolUse", tool_name="Grep", tool_use_id="toolu_9")
    assert by_id(list_json(iso_env))[READY]["activity"] == "Grep"
    send(iso_env, LAUNCH_ONLY, "UserPromptSubmit", prompt="now a task")
    assert by_id(list_json(iso_env))[LAUNCH_ONLY]["state"] == "working"


@pytest.mark.process
def test_counts(iso_env, sessions):
    proc = iso_env.cli("counts", "--json")
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout) == {"working": 1, "awaiting_input": 0}
    # Hiding never cancels work: a hidden working session still counts.
    conn = iso_env.connect()
    conn.execute("INSERT INTO arrangement (id, hidden) VALUES (?, 1)", (f"claude:{WORKING}",))
    assert json.loads(iso_env.cli("counts", "--json").stdout) == {"working": 1, "awaiting_input": 0}
    text = iso_env.cli("counts").stdout
    assert "working: 1" in text and "awaiting input: 0" in text
