"""A realistic Claude Code session's hook payloads, every private field holding a secret of its own: what the
privacy tests run through the real shim and collector and then look for in every byte lunavect wrote."""

from __future__ import annotations

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
