"""Qwen Code's hook records (as the shim spooled them) to evidence in the shared vocabulary of the rules.

Its hooks are named as Claude Code's, and mostly mean the same. Observed with Qwen Code 0.24.4
(tests/clients/NOTES.md), where it differs:
- `UserPromptSubmit` fires at each prompt and again, with an empty prompt, each time the turn goes on after a
  batch of tools: that one is no new prompt (the shim marks it a continuation);
- `PermissionRequest` comes before its dialog (before `PreToolUse`, which fires only once the tool may run), for
  its question tool (`ask_user_question`) too: a question to the person, not a leave to ask;
- `Notification` `permission_prompt` follows every such request (the question's too): it says nothing more;
  `idle_prompt` comes right after a turn ends, within a second, and is the only word of an approval dismissed
  with Esc (neither `PermissionDenied` nor `Stop` fires): its input box takes a prompt again;
- `StopFailure` (no `Stop`) ends a turn the API failed, with its `error` name.
"""

from __future__ import annotations

import msgspec

from lunavect.core.clients import QWEN
from lunavect.core.model import Evidence
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence

PROVIDER = QWEN.id
# Its tool that asks the person a question, in a dialog of its approval's shape.
QUESTION_TOOL = "ask_user_question"


def kind_of(record: SpoolRecord) -> str:
    """What the rules call the event; an event of its own the rules have no meaning for keeps its name, marked
    as Qwen Code's (it still says the session lives)."""
    event = record.event or ""
    if event == "UserPromptSubmit" and record.continuation:
        return "QwenContinuation"
    if event == "PermissionRequest" and record.tool == QUESTION_TOOL:
        return "Elicitation"
    if event == "Notification":
        if record.ntype == "idle_prompt":
            return "Interrupt"  # its input box is back: a turn still open was dismissed (a turn that ended stays)
        if record.ntype == "permission_prompt":
            return "QwenNotification"  # its PermissionRequest said it first, and said which
    if event in ("PostToolBatch", "MessageDisplay", "InstructionsLoaded", "PermissionDenied"):
        return f"Qwen{event}"
    return event


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one Qwen Code spool record, or None when it names no session."""
    evidence = shared_evidence(record)
    if evidence is None:
        return None
    return msgspec.structs.replace(evidence, provider=PROVIDER, kind=kind_of(record))
