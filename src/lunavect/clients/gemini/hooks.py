"""Gemini CLI's hook records (as the shim spooled them) to evidence in the shared vocabulary of the rules.

Observed with Gemini CLI 0.61.0 (tests/clients/NOTES.md): `SessionStart` (`source`: startup, resume, clear),
`BeforeAgent` once per prompt, `BeforeTool` (`tool_name`) before a tool's confirmation, `Notification` with
`notification_type: "ToolPermission"` when a confirmation is shown (`details.type`: `exec`, `edit`, `mcp`, `info`,
`ask_user` for a question to the person, `exit_plan_mode`), `AfterTool` when a tool ends (cancelled too),
`AfterAgent` when the turn ends (after an API error and after Esc too: only the chat file tells those apart),
`PreCompress` (`trigger: "auto"` before every model call, whether it compresses or not; `"manual"` for
`/compress`), `SessionEnd` (`reason`; several times at one exit). No hook fires when a confirmation is answered,
denied or cancelled.
"""

from __future__ import annotations

import msgspec

from lunavect.core.model import Evidence
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence

PROVIDER = "gemini"
# Gemini CLI's events, as the rules name what each means.
KINDS = {
    "SessionStart": "SessionStart",
    "BeforeAgent": "UserPromptSubmit",
    "BeforeTool": "PreToolUse",
    "AfterTool": "PostToolUse",
    "AfterAgent": "Stop",
    "SessionEnd": "SessionEnd",
}
PERMISSION_NOTICE = "ToolPermission"
# Confirmations that ask the person something rather than for leave to run a tool.
INPUT_REQUESTS = frozenset({"ask_user"})


def kind_of(record: SpoolRecord) -> str | None:
    """What the rules call the event, or None for one that says nothing to them."""
    event = record.event or ""
    if event == "Notification":
        if record.ntype != PERMISSION_NOTICE:
            return None
        return "Elicitation" if record.detail in INPUT_REQUESTS else "PermissionRequest"
    if event == "PreCompress":
        # "auto" fires before every model call, compressing or not: only `/compress` is known to compact.
        return "PreCompact" if record.trigger == "manual" else None
    return KINDS.get(event)


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one Gemini CLI spool record, or None when it names no session. An event the rules have
    no meaning for keeps its own name (it still says the session lives)."""
    evidence = shared_evidence(record)
    if evidence is None:
        return None
    kind = kind_of(record) or f"Gemini{record.event}"
    return msgspec.structs.replace(evidence, provider=PROVIDER, kind=kind)
