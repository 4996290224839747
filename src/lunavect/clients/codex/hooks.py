"""Codex hook records (as the shim spooled them) to evidence.

Codex 0.169.0 sends the same event names and fields as Claude Code for the events both have, so lunavect's
own spool record reader (`lunavect.evidence.spool_record`) does most of the work; this adds what is Codex's own: its `request_user_input` tool asks the person a
question (input needed until it is answered), its sub-agents report with their parent's session id and their
own `agent_id` (and the sub-agent's own rollout as `transcript_path`, which must not become the parent's), and
its namespaced tools arrive with the namespace glued to the name.
"""

from __future__ import annotations

import re

import msgspec

from lunavect.core.model import Evidence
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence

# `multi_agent_v1wait_agent` is the `wait_agent` tool of the `multi_agent_v1` namespace.
_NAMESPACE_RE = re.compile(r"^multi_agent_v\d+(?=[a-z])")
INPUT_TOOLS = frozenset({"request_user_input"})


def tool_name(name: str | None) -> str | None:
    """A tool's name as a person knows it."""
    if name is None:
        return None
    return _NAMESPACE_RE.sub("", name) or name


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one Codex spool record, or None when it names no session."""
    evidence = shared_evidence(record)
    if evidence is None:
        return None
    tool = tool_name(evidence.tool)
    kind = evidence.kind
    if kind == "PreToolUse" and tool in INPUT_TOOLS and evidence.agent_id is None:
        kind = "Elicitation"  # the client waits for the person's answer
    transcript = evidence.transcript if evidence.agent_id is None else None
    if (tool, kind, transcript) != (evidence.tool, evidence.kind, evidence.transcript) or evidence.provider != "codex":
        evidence = msgspec.structs.replace(evidence, tool=tool, kind=kind, provider="codex", transcript=transcript)
    return evidence
