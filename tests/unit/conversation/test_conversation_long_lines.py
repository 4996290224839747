"""A line longer than a window decodes (conversation.window.MAX_LINE_BYTES: a huge tool result, an image) is
skipped before it is decoded and said to be, and never held whole (issue 25): `show` on one 60 MB line took
13.7 s and 200 MB, gathering the line by copying it again for every block read backwards."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from unit_support import shared_data_dir

from lunavect.clients import conversation_at
from lunavect.conversation.follow import Follower
from lunavect.conversation.window import read_window
from lunavect.conversation.window_parts import MAX_LINE_BYTES

REAL = shared_data_dir() / "claude" / "spotter" / "tool_heavy.jsonl"
pytestmark = pytest.mark.skipif(not REAL.is_file(), reason=f"the shared real transcripts are not at {REAL}")
# What reading may hold, whatever the line's length: what it gathered (and copied once) before the line proved
# longer than the bound.
HELD = 3 * MAX_LINE_BYTES


def huge_result(size: int) -> bytes:
    result = {"type": "tool_result", "tool_use_id": "toolu_huge", "content": "x" * size}
    record = {"type": "user", "isSidechain": False, "message": {"role": "user", "content": [result]}}
    return json.dumps(record).encode() + b"\n"


def message(text: str) -> bytes:
    content = [{"type": "text", "text": text}]
    record = {"type": "assistant", "isSidechain": False, "message": {"role": "assistant", "content": content}}
    return json.dumps(record).encode() + b"\n"


def shown(messages) -> list[tuple[str, str | None, str | None]]:
    return [(m.kind.value, m.text, m.result) for m in messages]


def peak(read):  # noqa: ANN001, ANN202 - any reading
    tracemalloc.start()
    try:
        return read(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_line_longer_than_the_bound_is_skipped_said_and_never_held(tmp_path: Path) -> None:
    lines = REAL.read_bytes().splitlines(keepends=True)
    pristine = read_window(conversation_at(REAL, "claude"), messages=500)
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"".join([*lines[:20], huge_result(60 * 1024 * 1024), *lines[20:]]))
    window, held = peak(lambda: read_window(conversation_at(path, "claude"), messages=500))
    assert window.skipped == 1
    assert shown(window.messages) == shown(pristine.messages)
    assert held < HELD, held
    # A line just within the bound is read as any other.
    path.write_bytes(b"".join([*lines[:20], huge_result(MAX_LINE_BYTES - 1000), *lines[20:]]))
    assert read_window(conversation_at(path, "claude"), messages=500).skipped == 0


def test_a_long_line_appended_in_pieces_is_passed_over_once(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(REAL.read_bytes())
    follower = Follower(conversation_at(path, "claude"))
    follower.poll()
    line = huge_result(20 * 1024 * 1024)
    skipped, held = 0, 0
    for at in range(0, len(line), 3 * 1024 * 1024):  # a client writing it while the follower reads
        with path.open("ab") as out:
            out.write(line[at : at + 3 * 1024 * 1024])
        update, used = peak(follower.poll)
        skipped, held = skipped + update.skipped, max(held, used)
    with path.open("ab") as out:
        out.write(message("AFTER THE LONG LINE"))
    update = follower.poll()
    assert skipped + update.skipped == 1
    assert [m.text for m in update.changed] == ["AFTER THE LONG LINE"]
    assert held < HELD, held


def test_a_long_line_in_a_compressed_rollout_is_skipped_and_said(tmp_path: Path) -> None:
    from lunavect.files.zstd import compress

    rollout = sorted((shared_data_dir() / "codex").rglob("rollout-*.jsonl"))[-1]
    output = {"type": "function_call_output", "call_id": "c", "output": "x" * (MAX_LINE_BYTES + 10)}
    huge = json.dumps({"timestamp": "2026-02-23T12:00:00Z", "type": "response_item", "payload": output}).encode()
    lines = rollout.read_bytes().splitlines(keepends=True)
    packed = tmp_path / rollout.with_suffix(".jsonl.zst").name
    packed.write_bytes(compress(b"".join([*lines[:5], huge + b"\n", *lines[5:]])))
    window = read_window(conversation_at(packed, "codex"), messages=500)
    assert window.skipped == 1
    assert shown(window.messages) == shown(read_window(conversation_at(rollout, "codex"), messages=500).messages)
