"""A client whose hooks file names each event beside its command, and whose payloads are camelCase and name no
event (GitHub Copilot CLI), is heard as any other: lunavect's entry passes the event's name after the client
(`lunavect hook <client> <event>`), and the shim reads the payload's camelCase fields as their snake_case twins.
The payloads below are Copilot CLI 1.0.102's own (tests/clients/NOTES.md), their private text included."""

from __future__ import annotations

import json
import subprocess

import pytest
from unit_support import HOOK_FORMS

from lunavect.shim import payload as shim_payload

SESSION = "e1a950d6-af41-4ae6-a700-f933769720d0"
AGENT = "93b01a49-7ded-4c47-a15b-c8640f7a4dd8"
PRE_TOOL = {
    "sessionId": SESSION,
    "timestamp": 1796318694668,
    "cwd": "/tmp/w",
    "toolName": "bash",
    "toolArgs": {"command": "touch /tmp/w/SECRET-marker", "description": "Runs a command"},
}
NOTIFICATION = {
    "sessionId": SESSION,
    "timestamp": 1796318698870,
    "cwd": "/tmp/w",
    "message": "Run command: touch /tmp/w/SECRET-marker",
    "title": "Permission needed",
    "hook_event_name": "Notification",
    "notification_type": "permission_prompt",
}
# A sub-agent's own turn end: its session is the sub-agent, its parent beside it.
SUB_AGENT_STOP = {
    "sessionId": AGENT,
    "timestamp": 1796319064231,
    "cwd": "/tmp/w",
    "transcriptPath": f"/h/.copilot/session-state/{SESSION}/events.jsonl",
    "stopReason": "end_turn",
    "stop_hook_active": False,
    "agentId": AGENT,
    "agentType": "explore",
    "parentAgentId": SESSION,
}


def test_a_camel_case_payload_keeps_its_ids_and_names_only() -> None:
    record = shim_payload.extract("copilot", PRE_TOOL, "preToolUse")
    assert record == {"event": "preToolUse", "session": SESSION, "cwd": "/tmp/w", "tool": "bash"}


def test_the_event_the_entry_names_wins_over_the_payloads_own() -> None:
    record = shim_payload.extract("copilot", NOTIFICATION, "notification")
    assert (record["event"], record["ntype"], record["session"]) == ("notification", "permission_prompt", SESSION)
    assert "SECRET" not in json.dumps(record)
    # An entry naming no event, or something that is no event's name, leaves the payload's own.
    assert shim_payload.extract("copilot", NOTIFICATION)["event"] == "Notification"
    assert shim_payload.extract("copilot", NOTIFICATION, "rm -rf /")["event"] == "Notification"
    assert shim_payload.extract("copilot", PRE_TOOL) is None


def test_a_sub_agents_own_event_is_its_sessions_work() -> None:
    record = shim_payload.extract("copilot", SUB_AGENT_STOP, "agentStop")
    assert (record["session"], record["agent_id"], record["agent_type"]) == (SESSION, AGENT, "explore")
    assert record["transcript"].endswith(f"{SESSION}/events.jsonl")
    # The sub-agent's start names the session already: nothing moves.
    start = {"sessionId": SESSION, "agentId": AGENT, "agentType": "explore", "parentAgentId": SESSION}
    assert shim_payload.extract("copilot", start, "subagentStart")["session"] == SESSION


@pytest.mark.process
@pytest.mark.parametrize("via", sorted(HOOK_FORMS))
def test_the_command_passes_the_event_it_was_installed_for(iso_env, via) -> None:
    argv = [*HOOK_FORMS[via]("claude"), "preToolUse"]
    proc = subprocess.run(argv, env=iso_env.env, input=json.dumps(PRE_TOOL).encode(), capture_output=True, timeout=30)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    (record,) = iso_env.spool_records()
    assert (record["event"], record["session"], record["tool"]) == ("preToolUse", SESSION, "bash")
    assert "SECRET" not in json.dumps(record)
