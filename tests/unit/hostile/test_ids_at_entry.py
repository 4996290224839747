"""Session ids are checked where they enter every reader, and no path is built from an id unchecked (issue 12,
defect 3): the transcript and rollout file names, the headers inside them, Codex's app-server replies, and the
conversation reader that finds a session's file by its id.

`$` in a pattern also matches before a final newline: `<id>\\n` passed for an id until the patterns said `\\Z`.
"""

from __future__ import annotations

import json
import time

import pytest
from claude_files_support import S1, prompt, reply
from codex_source_support import A

from lunavect import paths
from lunavect.clients import conversation_at
from lunavect.clients.claude.records import Unreadable, read_record
from lunavect.clients.codex.catalog import thread_from
from lunavect.clients.codex.rollout import header_from_record, parse_name
from lunavect.listing.conversation import find_source

HOSTILE = ["bbbbbbbb-1111-2222-3333-444444444444\n", "../../../../x", "id\x1b]0;pwned\x07x", "*", ""]


def test_a_transcript_whose_name_is_no_id_is_not_read(world):
    t = time.time() - 30
    world.transcript(S1, [prompt(t, 1), reply(t + 1, 2)])
    newline = "bbbbbbbb-1111-2222-3333-444444444444\n"
    world.transcript(newline, [prompt(t, 1, session=newline), reply(t + 1, 2, session=newline)])
    world.tick()
    assert set(world.sessions()) == {S1}


@pytest.mark.parametrize("bad", HOSTILE)
def test_codex_ids_with_anything_around_a_uuid_are_refused(bad):
    thread = A + "\n" if bad.endswith("\n") else bad
    assert thread_from({"id": thread, "name": "t", "cwd": "/w"}, None) is None
    assert header_from_record({"type": "session_meta", "payload": {"id": thread, "cwd": "/w"}}) is None
    assert parse_name(f"rollout-2026-11-29T14-38-32-{A}.jsonl\n") is None
    assert thread_from({"id": A, "cwd": "/w"}, None) is not None  # the id itself is fine


@pytest.mark.parametrize("bad", HOSTILE)
def test_the_conversation_reader_builds_no_path_from_an_id_that_is_no_id(iso_env, bad):
    projects = paths.claude_config_dir() / "projects"
    (projects / "p").mkdir(parents=True)
    (projects / "p2").mkdir()
    (projects / "p2" / "victim.jsonl").write_text("{}\n")
    assert find_source("claude", "../p2/victim") is None
    assert find_source("claude", bad) is None and find_source("codex", bad) is None
    with pytest.raises(ValueError):
        conversation_at(projects / "p" / f"{S1}.jsonl", "claude").agent_source("../../p2/victim")


@pytest.mark.parametrize("bad", ["../../x", "s1\nrow", "caf\udce9", 7])
def test_a_claude_record_naming_no_session_is_skipped(bad) -> None:
    record = {"type": "user", "timestamp": "2026-11-30T12:00:00Z", "sessionId": bad, "cwd": "/w"}
    record["message"] = {"role": "user", "content": "hello"}
    with pytest.raises(Unreadable):
        read_record(json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape"))
    assert read_record(json.dumps(dict(record, sessionId=S1)).encode()) is not None


@pytest.mark.parametrize("bad", HOSTILE + ["z" * 131072, 7], ids=lambda value: repr(value)[:24])
def test_a_codex_parent_thread_id_that_is_no_id_is_no_parent(bad):
    """A parent id only marks a thread internal: one that is no id marks nothing, and is not kept."""
    thread = thread_from({"id": A, "name": "t", "cwd": "/w", "parentThreadId": bad}, None)
    assert thread is not None and thread.parent_thread_id is None and not thread.internal
    source = {"subagent": {"thread_spawn": {"parent_thread_id": bad}}}
    for payload in ({"id": A, "cwd": "/w", "parent_thread_id": bad}, {"id": A, "cwd": "/w", "source": source}):
        header = header_from_record({"type": "session_meta", "payload": payload})
        assert header is not None and header.parent_thread_id is None


def test_a_codex_parent_thread_id_that_is_an_id_marks_the_thread_internal():
    parent = "bbbbbbbb-1111-2222-3333-444444444444"
    thread = thread_from({"id": A, "name": "t", "cwd": "/w", "parentThreadId": parent}, None)
    assert thread is not None and thread.parent_thread_id == parent and thread.internal
    header = header_from_record({"type": "session_meta", "payload": {"id": A, "cwd": "/w", "parent_thread_id": parent}})
    assert header is not None and header.parent_thread_id == parent
