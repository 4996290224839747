"""Private text never reaches lunavect's data folder.

A realistic session's payloads, each private field holding a distinctive secret, go through the real shim
(subprocess) and the collector; then the raw bytes of every file under LUNAVECT_HOME are searched for the
secrets, in every encoding they could have been written in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from unit_support import pending_spool_bytes

from lunavect import paths
from lunavect.collector.tick import Collector

SID = "9f1c2d3e-4b5a-4c6d-8e7f-0a1b2c3d4e5f"

SECRETS = {
    "prompt": "SECRET-PROMPT-7f3a91",
    "prompt_ru": "СЕКРЕТНЫЙ-ЗАПРОС-пароль",
    "reply": "SECRET-REPLY-c0ffee",
    "command": "SECRET-COMMAND-b4d5e6",
    "tool_input_path": "SECRET-FILEPATH-a1b2c3",
    "tool_response": "SECRET-TOOLOUTPUT-99aa77",
    "bg_command": "SECRET-BGCOMMAND-e7e7e7",
    "bg_description": "SECRET-BGDESC-4242",
    "cron_prompt": "SECRET-CRONPROMPT-1357",
    "notification": "SECRET-NOTIFICATION-2468",
    "subagent_reply": "SECRET-SUBAGENT-REPLY-8642",
    "failure_message": "SECRET-FAILURE-MESSAGE-1111",
    "tool_error": "SECRET-TOOL-ERROR-2222",
    "task_summary": "SECRET-TASK-SUMMARY-3333",
    "permission": "SECRET-PERMISSION-SUGGESTION-4444",
    "elicitation": "SECRET-ELICITATION-5555",
    "compact": "SECRET-COMPACT-INSTRUCTIONS-6666",
}
S = SECRETS


def base(name: str, **fields) -> dict:
    return {
        "session_id": SID,
        "transcript_path": f"/home/u/.claude/projects/-home-u-proj/{SID}.jsonl",
        "cwd": "/home/u/proj",
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }


def realistic_session() -> list[dict]:
    notification = (
        f"<task-notification>\n<task-id>b0be39e</task-id>\n<tool-use-id>toolu_bg</tool-use-id>\n"
        f"<output-file>/tmp/claude-0/tasks/b0be39e.output</output-file>\n<status>completed</status>\n"
        f'<summary>Background command "{S["task_summary"]}" completed</summary>\n</task-notification>\n'
        f"Read the output file to retrieve the result: /tmp/claude-0/tasks/b0be39e.output"
    )
    return [
        base("SessionStart", source="startup", model="claude-opus"),
        base("UserPromptSubmit", prompt=f"{S['prompt']} and {S['prompt_ru']}", prompt_id="p1"),
        base(
            "PreToolUse",
            tool_name="Read",
            tool_use_id="toolu_r",
            tool_input={"file_path": f"/x/{S['tool_input_path']}"},
        ),
        base(
            "PostToolUse",
            tool_name="Read",
            tool_use_id="toolu_r",
            tool_input={"file_path": f"/x/{S['tool_input_path']}"},
            tool_response={"type": "text", "file": {"content": S["tool_response"]}},
            duration_ms=3,
        ),
        base(
            "PermissionRequest",
            tool_name="Bash",
            tool_input={"command": S["command"]},
            permission_suggestions=[
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": S["permission"]}]}
            ],
        ),
        base(
            "Notification",
            notification_type="permission_prompt",
            message=f"Claude needs your permission {S['notification']}",
        ),
        base(
            "PreToolUse",
            tool_name="Bash",
            tool_use_id="toolu_b",
            tool_input={"command": S["command"], "description": S["command"]},
        ),
        base(
            "PostToolUseFailure",
            tool_name="Bash",
            tool_use_id="toolu_b",
            tool_input={"command": S["command"]},
            error=f"Exit code 1\n{S['tool_error']}",
            is_interrupt=False,
        ),
        base(
            "PreToolUse",
            tool_name="Bash",
            tool_use_id="toolu_bg",
            tool_input={"command": f"npm run dev -- {S['bg_command']}", "run_in_background": True},
        ),
        base(
            "PostToolUse",
            tool_name="Bash",
            tool_use_id="toolu_bg",
            tool_input={"command": f"npm run dev -- {S['bg_command']}", "run_in_background": True},
            tool_response={"stdout": S["tool_response"], "stderr": "", "backgroundTaskId": "b0be39e"},
        ),
        base(
            "PostToolUse",
            tool_name="Agent",
            tool_use_id="toolu_ag",
            tool_input={"prompt": S["prompt"]},
            tool_response={
                "isAsync": True,
                "status": "async_launched",
                "agentId": "a881341",
                "prompt": S["prompt"],
                "description": S["bg_description"],
            },
        ),
        base("SubagentStart", agent_id="a881341", agent_type="Explore"),
        base(
            "SubagentStop",
            agent_id="a881341",
            agent_type="Explore",
            last_assistant_message=S["subagent_reply"],
            agent_transcript_path=f"/home/u/.claude/projects/-home-u-proj/{SID}/subagents/agent-a881341.jsonl",
        ),
        base(
            "Stop",
            stop_hook_active=False,
            last_assistant_message=f"{S['reply']}\n\nShall I apply these changes?",
            background_tasks=[
                {
                    "id": "b0be39e",
                    "type": "shell",
                    "status": "running",
                    "description": S["bg_description"],
                    "command": f"npm run dev -- {S['bg_command']}",
                },
                {
                    "id": "a881341",
                    "type": "subagent",
                    "status": "running",
                    "description": S["bg_description"],
                    "agent_type": "Explore",
                },
            ],
            session_crons=[{"id": "c1", "schedule": "*/5 * * * *", "recurring": True, "prompt": S["cron_prompt"]}],
        ),
        base("UserPromptSubmit", prompt=notification),
        base("Elicitation", message=S["elicitation"], mcp_server_name="srv"),
        base("PreCompact", trigger="manual", custom_instructions=S["compact"]),
        base(
            "StopFailure",
            error="server_error",
            last_assistant_message=f"API Error (ECONNREFUSED) {S['failure_message']}",
        ),
        base("SessionEnd", reason="prompt_input_exit"),
    ]


def encodings(secret: str) -> list[bytes]:
    forms = {
        secret.encode("utf-8"),
        json.dumps(secret).encode("ascii")[1:-1],  # \uXXXX escapes, as the shim writes non-ASCII
        secret.encode("utf-16-le"),
    }
    # A distinctive fragment, in case a value was cut.
    forms.add(secret[-8:].encode("utf-8"))
    return sorted(forms)


def every_file(root: Path) -> list[Path]:
    """Every regular file (the change feed's socket holds nothing to read: it only ever carries one byte)."""
    return [Path(d) / f for d, _, files in os.walk(root) for f in files if (Path(d) / f).is_file()]


def assert_no_secret(root: Path) -> None:
    files = every_file(root)
    assert files
    for path in files:
        data = path.read_bytes()
        for name, secret in SECRETS.items():
            for form in encodings(secret):
                assert form not in data, f"{name} found in {path}"


def test_no_private_text_under_lunavect_home(iso_env):
    for payload in realistic_session():
        proc = iso_env.hook(payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    # The cli form too, for one event with everything private in it.
    proc = iso_env.hook(realistic_session()[13], via="cli")
    assert proc.returncode == 0
    # And Codex's events, which carry the same private fields.
    codex = [
        dict(p, session_id="019c8a4c-ed82-79a1-aa28-7738fc5ab61a", turn_id="t1", model="gpt")
        for p in realistic_session()
        if p["hook_event_name"] in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    ]
    for payload in codex:
        proc = iso_env.hook(payload, client="codex")
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")

    records = iso_env.spool_records()
    assert len(records) == len(realistic_session()) + 1 + len(codex)
    assert {r["client"] for r in records} == {"claude", "codex"}
    assert all("rejected" not in r for r in records)
    # What was kept is what lunavect needs: the verdicts, kinds and ids.
    stop = records[13]
    assert stop["question"] is True and stop["crons"] == 1
    assert stop["bg"] == [
        {"kind": "shell", "id": "b0be39e", "status": "running", "service": True},
        {"kind": "agent", "id": "a881341", "status": "running"},
    ]
    assert records[9]["bg_start"] == {"kind": "shell", "id": "b0be39e", "service": True}
    assert records[14]["bg_end"] == [{"id": "b0be39e", "tool_use_id": "toolu_bg", "status": "completed"}]
    assert records[17]["error_detail"] == "ECONNREFUSED"

    conn = iso_env.connect()
    Collector(conn).tick()
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == len(records)
    assert pending_spool_bytes(conn, paths.spool_dir()) == 0
    wal = paths.store_path().with_name(paths.STORE_FILE_NAME + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # the WAL is searched while it still holds the writes
    assert_no_secret(iso_env.data)

    # And through the whole CLI path (a collector process, the log, the snapshot), then after a checkpoint.
    proc = iso_env.cli("list", "--json", "--all")
    assert proc.returncode == 0
    for secret in SECRETS.values():
        assert secret not in proc.stdout
    assert_no_secret(iso_env.data)
    iso_env.close()
    assert_no_secret(iso_env.data)


def test_rejected_payloads_keep_nothing_either(iso_env):
    for raw in (
        json.dumps({"prompt": S["prompt"], "session_id": SID}).encode(),  # no event name
        f"not json {S['reply']}".encode(),
        json.dumps([S["command"]]).encode(),
        b'{"hook_event_name": "Stop", "last_assistant_message": "' + S["reply"].encode() + b'"',  # truncated
    ):
        assert iso_env.hook(raw).returncode == 0
    Collector(iso_env.connect()).tick()
    assert_no_secret(iso_env.data)


def test_only_its_owner_can_read_the_data_folder(iso_env):
    """Session ids, paths and times are private too: every folder 0700, every file 0600, under a usual umask."""
    previous = os.umask(0o022)
    try:
        # The shim comes first (it creates the data folder), then a front end starts the collector.
        assert iso_env.hook(base("UserPromptSubmit", prompt="x")).returncode == 0
        proc = iso_env.cli("list", "--json")
        assert proc.returncode == 0, proc.stderr
    finally:
        os.umask(previous)
    assert json.loads(proc.stdout)[0]["session_id"] == SID
    names = set()
    for folder, _dirs, files in os.walk(iso_env.data):
        assert Path(folder).stat().st_mode & 0o777 == 0o700, folder
        for name in files:
            path = Path(folder) / name
            names.add(name)
            assert path.stat().st_mode & 0o077 == 0, f"{path} is readable by others"
    assert {"events.jsonl", "lunavect.sqlite3", "collector.lock", "collector.log"} <= names
