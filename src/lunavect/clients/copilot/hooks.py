"""GitHub Copilot CLI's hook records (as the shim spooled them) to evidence in the shared vocabulary of the rules.

Observed with Copilot CLI 1.0.102 (tests/clients/NOTES.md). Its hooks files name each event beside its command
(`userPromptSubmitted`), and its payloads (camelCase: `sessionId`, `toolName`) never name it, so lunavect's
entries pass the event's name to the shim (`lunavect hook copilot <event>`). `sessionStart` fires at a session's
first prompt (`source`: new, resume), `userPromptSubmitted` at each prompt, `preToolUse` before a tool (before
any dialog), `postToolUse` / `postToolUseFailure` when it ended, `notification` when a dialog shows
(`permission_prompt`; `elicitation_dialog` for the `ask_user` form), `agentStop` at the turn's end,
`subagentStart` / `subagentStop` around a sub-agent (whose own events the shim files under its session),
`preCompact` before a compaction (`trigger`), `sessionEnd` at the exit. Nothing fires when a dialog is answered,
when Esc ends a turn or when a turn fails (the events file says each: events_read.py). `permissionRequest` fires
before the client's own policy decides, for tools it then allows without asking too: it is no wait, and
lunavect installs none. `errorOccurred` fires at every failed model request, the ones it then retries with
success too, without the status: the events file's `session.error` is the turn's failure.
"""

from __future__ import annotations

import msgspec

from lunavect.core.model import Evidence
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence

PROVIDER = "copilot"
# Copilot CLI's events, as the rules name what each means; the order is the hooks file's.
KINDS = {
    "sessionStart": "SessionStart",
    "userPromptSubmitted": "UserPromptSubmit",
    "preToolUse": "PreToolUse",
    "postToolUse": "PostToolUse",
    "postToolUseFailure": "PostToolUseFailure",
    "notification": "Notification",
    "agentStop": "Stop",
    "subagentStart": "SubagentStart",
    "subagentStop": "SubagentStop",
    "preCompact": "PreCompact",
    "sessionEnd": "SessionEnd",
}
EVENTS = tuple(KINDS)


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one Copilot CLI spool record, or None when it names no session. An event the rules have
    no meaning for keeps its own name (it still says the session lives)."""
    evidence = shared_evidence(record)
    if evidence is None:
        return None
    event = record.event or ""
    return msgspec.structs.replace(evidence, provider=PROVIDER, kind=KINDS.get(event, f"Copilot{event}"))
