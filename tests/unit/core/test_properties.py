"""Property-based tests (hypothesis): whatever a hook, a transcript, a rollout, a catalog file or the app-server
says, no exception escapes a reader, and what it keeps is within bounds (issue 12, "prove the rest").

Each reader gets any JSON type in any field it reads (and in fields it does not), huge and truncated values and
raw bytes. A reader may refuse an input (None, or its own declared `Unreadable`); it never raises anything else.
"""

from __future__ import annotations

import json

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_support import fields_of, json_values

from lunavect.clients.claude.catalog import parse_entry
from lunavect.clients.claude.records import Unreadable, read_record
from lunavect.clients.codex.catalog import thread_from
from lunavect.clients.codex.cursor import CursorState, boundary_of, fold_block, tool_of
from lunavect.clients.codex.rollout import header_from_record
from lunavect.core.ids import is_session_id
from lunavect.core.times import bounded
from lunavect.evidence.spool_record import decode, evidence
from lunavect.shim.jsoncodec import json_dumps
from lunavect.shim.payload import extract

PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

HOOK_FIELDS = [
    "hook_event_name", "session_id", "transcript_path", "cwd", "tool_name", "tool_input", "tool_use_id",
    "tool_response", "prompt", "last_assistant_message", "background_tasks", "session_title", "agent_id",
    "agent_type", "source", "reason", "notification_type", "error", "turn_id", "permission_mode", "stop_hook_active",
]  # fmt: skip


@PROPERTY
@given(client=st.sampled_from(["claude", "codex"]), payload=fields_of(HOOK_FIELDS))
def test_a_hook_payload_of_any_shape_is_kept_within_bounds_or_dropped(client, payload):
    record = extract(client, payload)
    if record is None:
        return
    line = json_dumps({"v": 1, "id": "r1", "client": client, "t": 1_795_000_000.0, **record}).encode()
    try:
        kept = decode(line)
    except msgspec.DecodeError:
        return  # counted as malformed by the collector
    found = evidence(kept)
    if found is not None:
        assert is_session_id(found.session_id)
        assert bounded(found.at) == found.at


TRANSCRIPT_FIELDS = [
    "type", "uuid", "timestamp", "sessionId", "isSidechain", "cwd", "gitBranch", "version", "entrypoint",
    "message", "origin", "toolUseResult", "attachment", "subtype", "error", "isApiErrorMessage", "content",
    "customTitle", "aiTitle", "compactMetadata", "apiErrorStatus", "operation",
]  # fmt: skip
RECORD_TYPES = st.sampled_from(["user", "assistant", "system", "attachment", "queue-operation", "custom-title"])


@PROPERTY
@given(record=fields_of(TRANSCRIPT_FIELDS), kind=RECORD_TYPES)
def test_a_transcript_line_of_any_shape_is_read_or_refused(record, kind):
    line = json.dumps({**record, "type": kind}).encode()
    for candidate in (line, line[: len(line) // 2], line.replace(b"a", b"\xe9")):
        try:
            read_record(candidate)
        except Unreadable:
            pass


@PROPERTY
@given(data=st.binary(max_size=300))
def test_raw_bytes_in_a_transcript_are_read_or_refused(data):
    try:
        read_record(b'{"type":"assistant",' + data)
    except Unreadable:
        pass


ROLLOUT_PAYLOAD = [
    "type",
    "turn_id",
    "started_at",
    "turn_attribution",
    "error",
    "reason",
    "name",
    "call_id",
    "id",
    "cwd",
]


@PROPERTY
@given(
    kind=st.sampled_from(["event_msg", "response_item", "session_meta"]) | json_values,
    payload=fields_of(ROLLOUT_PAYLOAD) | json_values,
    stamp=json_values,
)
def test_a_rollout_record_of_any_shape_is_read_or_refused(kind, payload, stamp):
    record = {"timestamp": stamp, "type": kind, "payload": payload}
    boundary = boundary_of(record)
    if boundary is not None and boundary.started_at is not None:
        assert bounded(boundary.started_at) == boundary.started_at
    tool_of(record)
    header_from_record(record)
    state = CursorState()
    fold_block(state, json.dumps(record).encode() + b"\n" + b'["user_message"]\n')


@PROPERTY
@given(block=st.binary(max_size=600))
def test_raw_bytes_in_a_rollout_fold_without_error(block):
    fold_block(CursorState(), block)


CATALOG_FIELDS = [
    "pid", "sessionId", "cwd", "startedAt", "procStart", "version", "kind", "entrypoint", "tmux", "name",
    "nameSource", "status", "waitingFor", "updatedAt", "statusUpdatedAt",
]  # fmt: skip


@PROPERTY
@given(entry=fields_of(CATALOG_FIELDS))
def test_a_catalog_file_of_any_shape_is_an_entry_or_unusable(entry):
    raw = json.dumps(entry).encode()
    for candidate in (raw, raw[: len(raw) // 2]):
        found = parse_entry(7, candidate)
        if found is not None:
            assert is_session_id(found.session_id)
            assert found.at is None or bounded(found.at) == found.at


THREAD_FIELDS = [
    "id", "preview", "name", "path", "cwd", "originator", "source", "parentThreadId", "status", "createdAt",
    "updatedAt", "threadSource",
]  # fmt: skip


@PROPERTY
@given(thread=fields_of(THREAD_FIELDS) | json_values)
def test_an_app_server_thread_of_any_shape_is_a_thread_or_nothing(thread):
    found = thread_from(thread, None)
    if found is not None:
        assert found.updated_at is None or bounded(found.updated_at) == found.updated_at
