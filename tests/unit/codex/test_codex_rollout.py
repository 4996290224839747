"""Codex rollout names, headers, discovery, titles and who a thread is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from unit_support import shared_data_dir

from lunavect.clients.codex.rollout import (
    Budget,
    SessionIndex,
    accepted_thread,
    client_of,
    discover,
    first_prompt_title,
    is_archived,
    is_internal,
    parse_name,
    read_header,
)

THREAD = "01a227be-4cf8-7c51-8158-933e9468ff3b"
SEGMENT = "01a227be-9999-7c51-8158-933e9468ff3b"
REAL = shared_data_dir() / "codex"


def meta(thread: str = THREAD, **payload) -> bytes:
    body = {"id": thread, "cwd": "/w", "originator": "codex_exec", "source": "exec", **payload}
    return (
        json.dumps({"timestamp": "2026-11-29T14:38:32.770Z", "type": "session_meta", "payload": body}).encode() + b"\n"
    )


def test_names_codex_writes_and_names_it_does_not() -> None:
    plain = parse_name(f"rollout-2026-11-29T14-38-32-{THREAD}.jsonl")
    assert plain and plain.thread_id == THREAD and plain.segment_id is None and plain.stamp == "2026-11-29T14-38-32"
    segmented = parse_name(f"rollout-2026-11-29T14-38-32-{THREAD}_{SEGMENT}.jsonl")
    assert segmented and segmented.thread_id == THREAD and segmented.segment_id == SEGMENT
    packed = parse_name(f"rollout-2026-11-29T14-38-32-{THREAD}.jsonl.zst")  # compressed by Codex once finished
    assert packed and packed.thread_id == THREAD and packed.compressed
    for bad in (
        f"rollout-2026-11-29-{THREAD}.jsonl",
        f"rollout-2026-11-29T14-38-32-{THREAD}.json",
        f"rollout-2026-11-29T14-38-32-{THREAD}.jsonl.gz",
        f"x-2026-11-29T14-38-32-{THREAD}.jsonl",
        "rollout-2026-11-29T14-38-32-not-a-uuid.jsonl",
        f"rollout-2026-11-29T14-38-32-{THREAD}_x.jsonl",
    ):
        assert parse_name(bad) is None, bad


def test_a_segmented_name_needs_a_header_naming_the_same_thread(tmp_path: Path) -> None:
    good = tmp_path / f"rollout-2026-11-29T14-38-32-{THREAD}_{SEGMENT}.jsonl"
    good.write_bytes(meta(THREAD))
    assert accepted_thread(good) == THREAD  # the primary thread, never the segment: not a new task
    other = tmp_path / f"rollout-2026-11-29T14-38-33-{THREAD}_{SEGMENT}.jsonl"
    other.write_bytes(meta(SEGMENT))
    assert accepted_thread(other) is None
    unwritten = tmp_path / f"rollout-2026-11-29T14-38-34-{THREAD}_{SEGMENT}.jsonl"
    unwritten.write_bytes(meta(THREAD)[:-1])  # the header line is not complete yet
    assert accepted_thread(unwritten) is None
    huge = tmp_path / f"rollout-2026-11-29T14-38-35-{THREAD}_{SEGMENT}.jsonl"
    huge.write_bytes(meta(THREAD, base_instructions={"text": "x" * 2_000_000}))
    assert accepted_thread(huge) is None  # beyond the bounded read
    plain = tmp_path / f"rollout-2026-11-29T14-38-32-{THREAD}.jsonl"
    plain.write_bytes(b"")
    assert accepted_thread(plain) == THREAD


def test_headers_give_folder_originator_source_version_and_parent(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(meta(cli_version="0.169.0", thread_source="user") + b"garbage\n")
    header = read_header(path)
    assert header.thread_id == THREAD and header.cwd == "/w" and header.originator == "codex_exec"
    assert header.source == "exec" and header.cli_version == "0.169.0" and header.parent_thread_id is None
    assert header.started == pytest.approx(1795963112.77)
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": THREAD, "depth": 1}}}
    path.write_bytes(meta(SEGMENT, source=spawn))
    assert read_header(path).parent_thread_id == THREAD
    path.write_bytes(b'{"type":"response_item","payload":{}}\n')
    assert read_header(path) is None
    path.write_bytes(b"\xff\xfe not json\n")
    assert read_header(path) is None


@pytest.mark.skipif(not REAL.exists(), reason="the shared real rollouts are not present")
def test_real_desktop_headers() -> None:
    for path in sorted(REAL.rglob("rollout-*.jsonl")):
        header = read_header(path)
        assert header is not None and header.thread_id == parse_name(path.name).thread_id
        assert header.originator == "Codex Desktop" and header.source == "vscode"
        assert client_of(header.originator, header.source) == "desktop"
        assert not is_internal(header)


@pytest.mark.parametrize(
    "payload, internal",
    [
        ({"source": "exec"}, False),
        ({"source": "vscode"}, False),
        ({"source": "cli", "thread_source": "user"}, False),
        ({"source": {"subagent": "review"}}, True),
        ({"source": {"subagent": "compact"}}, True),
        ({"source": {"subagent": {"thread_spawn": {"parent_thread_id": SEGMENT, "depth": 1}}}}, True),
        ({"source": {"subagent": {"other": "guardian"}}}, True),
        ({"source": {"internal": "memory_consolidation"}}, True),
        ({"source": "exec", "parent_thread_id": SEGMENT}, True),
        ({"source": "exec", "thread_source": "memory_consolidation"}, True),
    ],
)
def test_who_is_an_internal_agent(tmp_path: Path, payload: dict, internal: bool) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(meta(**payload))
    assert is_internal(read_header(path)) is internal


def test_the_memory_folder_is_internal_and_a_same_named_folder_elsewhere_is_not(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    (home / "memories" / "sub").mkdir(parents=True)
    (tmp_path / "project" / "memories").mkdir(parents=True)
    (tmp_path / "link").symlink_to(home / "memories")
    path = tmp_path / "r.jsonl"
    for cwd, internal in (
        (home / "memories", True),
        (home / "memories" / "sub", True),
        (tmp_path / "link", True),
        (tmp_path / "project" / "memories", False),
        (home, False),
    ):
        path.write_bytes(meta(cwd=str(cwd)))
        assert is_internal(read_header(path), home / "memories") is internal, cwd


def test_only_the_exact_desktop_originators_are_desktop() -> None:
    assert client_of("Codex Desktop", "vscode") == "desktop"
    assert client_of("codex_work_desktop", "vscode") == "desktop"
    assert client_of(None, "vscode") is None  # the ambiguous vscode source alone proves nothing
    assert client_of("codex-tui", "vscode") == "cli"  # 0.169.0's TUI writes source vscode
    assert client_of("codex_exec", "exec") == "exec"
    assert client_of("codex desktop", "vscode") != "desktop"


def _touch(path: Path, data: bytes = b"") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_discovery_finds_recent_day_folders_newest_first_within_budget(tmp_path: Path) -> None:
    home = tmp_path / ".codex"
    names = []
    for day in range(1, 12):
        name = f"rollout-2026-11-{day:02d}T10-00-00-01a227be-4cf8-7c51-8158-{day:012d}.jsonl"
        _touch(home / "sessions" / "2026" / "11" / f"{day:02d}" / name)
        names.append(name)
    _touch(home / "sessions" / "2026" / "11" / "11" / "notes.txt")
    _touch(home / "sessions" / "2026" / "11" / "11" / f"rollout-2026-11-11T10-00-00-{THREAD}.jsonl.zst")
    _touch(home / "archived_sessions" / f"rollout-2026-11-11T09-00-00-{THREAD}.jsonl")
    found = discover(home, Budget(days=7))
    assert [p.name for p in found if not p.name.endswith(".zst")] == list(reversed(names))[:7]
    assert [p.name for p in found if p.name.endswith(".zst")] == [f"rollout-2026-11-11T10-00-00-{THREAD}.jsonl.zst"]
    assert all(not is_archived(p, home) for p in found)
    assert is_archived(home / "archived_sessions" / "x.jsonl", home)
    assert len(discover(home, Budget(entries=3))) < 7
    assert discover(tmp_path / "nowhere", Budget()) == []


def test_session_index_names_are_read_incrementally_and_the_last_wins(tmp_path: Path) -> None:
    path = tmp_path / "session_index.jsonl"
    path.write_text(json.dumps({"id": THREAD, "thread_name": "First name"}) + "\n" + "not json\n")
    index = SessionIndex(path)
    assert index.refresh() == {THREAD: "First name"}
    with open(path, "a") as f:
        f.write(json.dumps({"id": THREAD, "thread_name": "Renamed\nsecond line"}) + "\n")
        f.write('{"id": "x", "thread_na')  # a line still being written
    assert index.refresh()[THREAD] == "Renamed"
    path.write_text(json.dumps({"id": SEGMENT, "thread_name": "Other"}) + "\n")  # replaced by a shorter file
    assert index.refresh() == {SEGMENT: "Other"}


def test_titles_from_the_first_prompt_in_both_formats(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    old = {"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": "Fix the\nbuild"}}
    path.write_text(json.dumps(old) + "\n")
    assert first_prompt_title(path) == "Fix the"
    item = {"type": "UserMessage", "content": [{"type": "text", "text": "  run   the tests " + "x" * 200}]}
    new = {"timestamp": "t", "type": "event_msg", "payload": {"type": "item_completed", "item": item}}
    path.write_text(json.dumps(new) + "\n")
    title = first_prompt_title(path)
    assert title.startswith("run the tests x") and len(title) == 80 and title.endswith("…")
    path.write_text('{"payload": {"type": "user_message"\n')
    assert first_prompt_title(path) is None
