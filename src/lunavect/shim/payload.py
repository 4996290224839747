"""What lunavect keeps of one hook event: the payload filter.

It keeps only what lunavect needs to decide a state: the event's name, ids, times, tool names, kinds and
counts, and two verdicts computed here from private text (is the closing reply a question; is a background
command a long-lived service). Prompts, replies, commands, tool inputs and outputs never leave this process.

Names are checked with string methods, and the classifiers and the notification parser are imported only
by the events that need them: each import is paid for on the agent's hot path.
"""

from __future__ import annotations

from lunavect.core.ids import is_session_id

MAX_ID_CHARS = 200
MAX_PATH_CHARS = 4096

BACKGROUND_KINDS = {
    "shell": "shell",
    "local_bash": "shell",
    "bash": "shell",
    "subagent": "agent",
    "agent": "agent",
    "local_agent": "agent",
    "remote_agent": "agent",
    "teammate": "agent",
    "monitor": "monitor",
    "workflow": "workflow",
}
NOTIFICATION_OPEN = "<task-notification>"


def is_long_lived_service(command: str) -> bool:
    from lunavect.core.services import is_long_lived_service as classify

    return classify(command)


def is_closing_question(text: object) -> bool:
    if not isinstance(text, str):
        return False
    tail = text[-2400:]
    if "?" not in tail and ":\n" not in tail:
        return False  # no question and no lead-in to options near the end: no need to load the classifier
    from lunavect.core.closing_question import is_closing_question as classify

    return classify(text)


def _short(value: object, limit: int = MAX_ID_CHARS) -> str | None:
    if isinstance(value, str) and value and len(value) <= limit:
        return value
    return None


def _name(value: object) -> str | None:
    """An event, tool or kind name: ASCII letters, digits and underscores, starting with a letter."""
    if (
        isinstance(value, str)
        and 0 < len(value) <= 64
        and value.isascii()
        and value[0].isalpha()
        and value.replace("_", "a").isalnum()
    ):
        return value
    return None


def ended_background(prompt: str) -> tuple[list[dict], bool]:
    """The background tasks a `<task-notification>` prompt reports ended, and whether it is nothing else.

    Each notification names its task ids (and tool-use id) and status: ids and kinds only, never the
    summary or result text.
    """
    from lunavect.shim.notifications import only_notifications
    from lunavect.shim.notifications import task_notifications as parse

    ended: list[dict] = []
    for note in parse(prompt):
        status = _name(note.status)
        for task_id in note.task_ids or (None,):
            entry: dict = {}
            if task_id:
                entry["id"] = task_id
            if note.tool_use_id:
                entry["tool_use_id"] = note.tool_use_id
            if status:
                entry["status"] = status
            if entry:
                ended.append(entry)
    return ended, bool(ended) and only_notifications(prompt)


def background_kind(task_type: object) -> str:
    if isinstance(task_type, str):
        return BACKGROUND_KINDS.get(task_type.lower(), "other")
    return "other"


def _background_tasks(tasks: object) -> list[dict]:
    kept: list[dict] = []
    if not isinstance(tasks, list):
        return kept
    for task in tasks[:500]:
        if not isinstance(task, dict):
            continue
        entry: dict = {"kind": background_kind(task.get("type"))}
        task_id = _short(task.get("id"))
        if task_id:
            entry["id"] = task_id
        status = _name(task.get("status"))
        if status:
            entry["status"] = status
        command = task.get("command")
        if isinstance(command, str) and is_long_lived_service(command):
            entry["service"] = True
        kept.append(entry)
    return kept


def _started_background(payload: dict) -> dict | None:
    """The background work a PostToolUse reports it started: its kind and id, never its command."""
    response = payload.get("tool_response")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    tool = payload.get("tool_name")
    if isinstance(response, dict):
        task_id = _short(response.get("backgroundTaskId"))
        if task_id:
            started: dict = {"kind": "shell", "id": task_id}
            command = tool_input.get("command")
            if isinstance(command, str) and is_long_lived_service(command):
                started["service"] = True
            return started
        if response.get("isAsync") is True or response.get("status") == "async_launched":
            agent_id = _short(response.get("agentId"))
            started = {"kind": "agent"}
            if agent_id:
                started["id"] = agent_id
            return started
        monitor_id = _short(response.get("monitorId") or response.get("taskId"))
        if tool == "Monitor" and monitor_id:
            return {"kind": "monitor", "id": monitor_id}
    if tool == "Monitor":
        return {"kind": "monitor"}
    return None


def _path(value: object) -> str | None:
    return _short(value, MAX_PATH_CHARS)


# The payload's fields kept as they are once they pass their check: (lunavect's key, the payload's field, the
# same field as a client whose payloads are camelCase names it, the check). Ids and paths are cut to a length;
# names are checked to be names.
_KEPT = (
    ("session", "session_id", "sessionId", _short),
    ("prompt_id", "prompt_id", "promptId", _short),
    ("turn_id", "turn_id", "turnId", _short),
    ("agent_id", "agent_id", "agentId", _short),
    ("tool_use_id", "tool_use_id", "toolUseId", _short),
    ("cwd", "cwd", "cwd", _path),
    ("transcript", "transcript_path", "transcriptPath", _path),
    ("tool", "tool_name", "toolName", _name),
    ("agent_type", "agent_type", "agentType", _name),
    ("source", "source", "source", _name),
    ("trigger", "trigger", "trigger", _name),
    ("reason", "reason", "reason", _name),
    ("ntype", "notification_type", "notificationType", _name),
    ("mode", "permission_mode", "permissionMode", _name),
)


def _field(payload: dict, snake: str, camel: str) -> object:
    value = payload.get(snake)
    return payload.get(camel) if value is None else value


def extract(client: str, payload: dict, installed_for: str | None = None) -> dict | None:
    """The record lunavect keeps of one hook event, or None when it is not an event. `installed_for` is the
    event lunavect's hook entry was written for, for a client whose payloads do not name their event (its hooks
    file names the event beside the command, never in the payload): it names the event when given."""
    event = _name(installed_for) or _name(payload.get("hook_event_name"))
    if event is None:
        return None
    record: dict = {"event": event}
    for key, snake, camel, check in _KEPT:
        value = check(_field(payload, snake, camel))
        if value:
            record[key] = value
    parent = _short(_field(payload, "parent_agent_id", "parentAgentId"))
    if parent and record.get("agent_id") and record.get("session") == record["agent_id"]:
        # A sub-agent's own event names the sub-agent as its session: it is the work of the session that runs it.
        record["session"] = parent
    if not is_session_id(record.get("session")):
        # `../../x`, a newline or an escape sequence names no session: no path or row is ever built from it.
        record.pop("session", None)
    title = _short(payload.get("session_title"), 300)
    if title:
        record["title"] = title
    details = payload.get("details")
    if isinstance(details, dict):
        # What a notification asks of the person (Gemini CLI's confirmation type: `exec`, `edit`, `ask_user`):
        # its kind only; the command, diff or question beside it stays here.
        detail = _name(details.get("type"))
        if detail:
            record["detail"] = detail

    if event == "StopFailure":
        error = _name(payload.get("error"))
        record["error"] = error or "unknown"
        message = payload.get("last_assistant_message")
        if isinstance(message, str) and "ECONNREFUSED" in message:
            record["error_detail"] = "ECONNREFUSED"
    if event in ("Stop", "SubagentStop"):
        if "background_tasks" in payload:
            record["bg"] = _background_tasks(payload.get("background_tasks"))
        crons = payload.get("session_crons")
        if isinstance(crons, list):
            record["crons"] = len(crons)
        if event == "Stop" and is_closing_question(payload.get("last_assistant_message")):
            record["question"] = True
        if payload.get("stop_hook_active") is True:
            record["stop_hook_active"] = True
        if event == "Stop" and "context_limit" in payload:
            from lunavect.core.bounds import count  # once a turn, and only for a client that names it

            window = count(payload["context_limit"])
            if window:
                record["window"] = window  # the session's model's window (Qwen Code): a number, nothing said
    if event == "PostToolUse":
        started = _started_background(payload)
        if started:
            record["bg_start"] = started
    if event == "PostToolUseFailure" and payload.get("is_interrupt") is True:
        record["interrupt"] = True
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")
        if prompt == "":
            record["continuation"] = True  # the client goes on after its tools (Qwen Code): no one prompted
        if isinstance(prompt, str) and NOTIFICATION_OPEN in prompt:
            ended, only = ended_background(prompt)
            if ended:
                record["bg_end"] = ended
            if only:
                record["notification_only"] = True
    return record
