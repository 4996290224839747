"""The shim writes the spool lines and `lunavect.evidence.spool_record` reads them: the two sides agree on one format.

The shim is standard-library only and cannot import the declared record, so this runs the real shim on a
realistic session and decodes every line it wrote: each field is either declared (and so read, typed, by
the collector) or one the rules deliberately do not read. A field the shim adds or renames fails here.
"""

from __future__ import annotations

import json

import msgspec
import pytest
from privacy_support import SID, realistic_session

from lunavect.evidence import spool_record
from lunavect.evidence.spool_record import SpoolRecord

# Written by the shim, read by no rule: the format version, and facts kept only for people reading the spool.
NOT_READ = {"v", "stop_hook_active", "prompt_id", "crons", "mode", "bg_end"}


def shim_lines(iso_env, client: str) -> list[bytes]:
    for payload in realistic_session():
        iso_env.hook(payload, client=client)
    return iso_env.spool.read_bytes().splitlines()


@pytest.mark.process
@pytest.mark.parametrize("client", ["claude", "codex"])
def test_every_field_the_shim_writes_is_declared_or_deliberately_unread(iso_env, client):
    declared = set(SpoolRecord.__struct_fields__)
    lines = shim_lines(iso_env, client)
    assert len(lines) == len(realistic_session())
    for line in lines:
        raw = json.loads(line)
        assert set(raw) <= declared | NOT_READ, set(raw) - declared - NOT_READ
        record = spool_record.decode(line)
        assert (record.id, record.client, record.event) == (raw["id"], client, raw["event"])
        evidence = spool_record.evidence(record)
        assert evidence is not None
        assert (evidence.session_id, evidence.kind, evidence.provider) == (SID, raw["event"], client)


@pytest.mark.process
def test_the_typed_fields_arrive_typed(iso_env):
    records = [spool_record.decode(line) for line in shim_lines(iso_env, "claude")]
    by_event = {}
    for record in records:
        by_event.setdefault(record.event, []).append(record)
    stop = spool_record.evidence(by_event["Stop"][0])
    assert stop is not None and stop.question is True
    assert stop.background is not None and [t.kind for t in stop.background] == ["shell", "agent"]
    assert stop.background[0].service is True  # `npm run dev` keeps running on purpose
    started = [spool_record.evidence(r) for r in by_event["PostToolUse"]]
    assert [e.background_started.kind for e in started if e and e.background_started] == ["shell", "agent"]


def test_a_line_of_another_shape_is_refused_whole():
    with pytest.raises(msgspec.DecodeError):
        spool_record.decode(b'{"event": "Stop", "session": 5, "id": "x", "t": 1.0}')
    with pytest.raises(msgspec.DecodeError):
        spool_record.decode(b"[1, 2]")
    record = spool_record.decode(b'{"v": 1, "id": "x", "t": 1, "event": "Stop", "session": "s", "future": [1]}')
    assert spool_record.evidence(record) is not None  # a field the shim adds later is skipped, not refused
