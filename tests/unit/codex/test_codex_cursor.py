"""The Codex lifecycle cursor: incremental reads answer what a fresh scan of the whole file answers.

A plain forward scan of every line (`reference`) is the oracle; the cursor must agree with it after appends,
partial lines, truncation, replacement and in-place rewrites, on crafted files and on real rollouts
(`../shared/data/codex/`), while reading only what was appended.
"""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import msgspec
import pytest
from codex_cursor_support import aborted, call, complete, context, output, rec, started
from unit_support import shared_data_dir

from lunavect.clients.codex import cursor as cursor_module
from lunavect.clients.codex.cursor import CursorState, Lifecycle, LifecycleCursor, boundary_of, tool_of
from lunavect.files.tail import MARK_BYTES, digest

REAL = shared_data_dir() / "codex"
REAL_ROLLOUTS = sorted(REAL.rglob("rollout-*.jsonl"))
T0 = 1_790_000_000.0
TURN_ID_RE = re.compile(rb'"turn_id"\s*:\s*"([0-9A-Za-z_-]{1,64})"')


# -- a rollout writer ---------------------------------------------------------------------------------------


META = rec("session_meta", {"id": "01a227be-4cf8-7c51-8158-933e9468ff3b", "cwd": "/w", "originator": "codex_exec"}, T0)


def append(path: Path, data: bytes) -> None:
    with open(path, "ab") as f:
        f.write(data)


# -- the oracle ---------------------------------------------------------------------------------------------


def reference(data: bytes) -> tuple:
    """A fresh forward scan: every complete line in order, then the unfinished last one (which may end a turn
    or start a tool, but is never kept as the turn's records)."""
    boundary = tool = seen = None
    *complete_lines, tail = data.split(b"\n")
    for line in complete_lines:
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        found = boundary_of(record) if isinstance(record, dict) else None
        if found is not None:
            boundary, tool, seen = found, None, None
            continue
        mark = tool_of(record) if isinstance(record, dict) else None
        if mark is not None:
            tool = mark
        refs = TURN_ID_RE.findall(line)
        if refs:
            seen = refs[-1].decode()
    try:
        record = json.loads(tail) if tail else None
    except ValueError:
        record = None
    if isinstance(record, dict):
        found = boundary_of(record)
        if found is not None:
            boundary, tool, seen = found, None, None
        else:
            tool = tool_of(record) or tool
    return summarize_parts(boundary, tool, seen)


def summarize_parts(boundary, tool, seen) -> tuple:
    if boundary is not None and boundary.kind == "task_started":
        if seen is None or seen == boundary.turn_id:
            return ("busy", boundary.turn_id, boundary.at, _tool(tool))
        return ("busy", seen, None, _tool(tool))
    if seen is not None and boundary is not None and seen != boundary.turn_id:
        return ("busy", seen, None, _tool(tool))
    if boundary is not None:
        return ("idle", boundary.turn_id, None, None)
    return (None, None, None, None)


def _tool(tool) -> tuple | None:
    return None if tool is None else (tool.running, tool.name, tool.call_id)


def summarize(answer: Lifecycle) -> tuple:
    return (answer.status, answer.turn_id, answer.start.at if answer.start else None, _tool(answer.tool))


# -- crafted files -------------------------------------------------------------------------------------------


def test_appends_move_the_boundary_and_read_only_new_bytes(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("A", T0 + 1) + call("exec_command", "c1", T0 + 2))
    cursor = LifecycleCursor()
    first = cursor.sample(path)
    assert first.status == "busy" and first.turn_id == "A" and first.start.at == pytest.approx(T0 + 1)
    assert first.tool.running and first.tool.name == "exec_command"

    piece = output("c1", T0 + 5) + complete("A", T0 + 6)
    append(path, piece)
    second = cursor.sample(path)
    assert second.status == "idle" and second.turn_id == "A" and second.tool is None
    assert second.boundary.at == pytest.approx(T0 + 6)
    # only the appended bytes (plus the mark before the offset and a bounded look at the end)
    assert cursor.bytes_read <= 3 * len(piece) + 2 * MARK_BYTES

    append(path, started("B", T0 + 10))
    third = cursor.sample(path)
    assert (third.status, third.turn_id, third.start.at) == ("busy", "B", pytest.approx(T0 + 10))

    append(path, aborted("B", T0 + 12))
    assert cursor.sample(path).status == "idle"
    assert cursor.sample(path).status == "idle"  # nothing appended: nothing read but the two marks
    assert cursor.bytes_read <= 2 * MARK_BYTES


def test_a_partial_last_line_answers_now_and_is_read_whole_next_time(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("A", T0 + 1))
    cursor = LifecycleCursor()
    assert cursor.sample(path).status == "busy"
    line = complete("A", T0 + 3)
    append(path, line[:-1])  # the whole record, not yet its newline
    assert cursor.sample(path).status == "idle"
    assert cursor.state.offset == len(META) + len(started("A", T0 + 1))  # not kept
    append(path, b"\n")
    assert cursor.sample(path).status == "idle"
    assert cursor.state.boundary.kind == "task_complete"

    append(path, started("B", T0 + 5)[:20])  # half a record: answers nothing new
    answer = cursor.sample(path)
    assert answer.status == "idle" and answer.turn_id == "A"
    append(path, started("B", T0 + 5)[20:])
    assert cursor.sample(path).turn_id == "B"


@pytest.mark.parametrize("change", ["truncate", "replace", "rewrite"])
def test_a_shorter_replaced_or_rewritten_file_is_scanned_again(tmp_path: Path, change: str) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("A", T0 + 1) + call("exec_command", "c1", T0 + 2))
    cursor = LifecycleCursor()
    assert cursor.sample(path).status == "busy"
    ino = os.stat(path).st_ino
    if change == "truncate":
        with open(path, "r+b") as f:
            f.truncate(len(META))
        assert cursor.sample(path).status is None
        append(path, started("Z", T0 + 9))
        assert cursor.sample(path).turn_id == "Z"
    elif change == "replace":
        other = tmp_path / "other.jsonl"
        other.write_bytes(META + started("A", T0 + 1) + complete("A", T0 + 2) + b"x" * 40 + b"\n")
        os.replace(other, path)
        assert os.stat(path).st_ino != ino
        assert cursor.sample(path).status == "idle"
    else:
        # Same inode, same length, other bytes before the offset: a rewrite in place.
        data = path.read_bytes()
        rewritten = data.replace(b'"task_started","turn_id":"A"', b'"turn_aborted","turn_id":"A"')
        rewritten = rewritten.replace(b'"call_id":"c1"', b'"call_id":"c2"')
        assert len(rewritten) == len(data) and rewritten != data
        with open(path, "r+b") as f:
            f.write(rewritten)
        assert os.stat(path).st_ino == ino
        answer = cursor.sample(path)
        assert answer.status == "idle" and answer.turn_id == "A"
        assert summarize(answer) == reference(path.read_bytes())


def test_a_rewrite_that_keeps_the_last_bytes_is_still_noticed(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    tail = output("c9", T0 + 9)
    path.write_bytes(META + started("A", T0 + 1) + tail)
    cursor = LifecycleCursor()
    assert cursor.sample(path).status == "busy"
    data = path.read_bytes()
    rewritten = data[:20] + (b"1" if data[20:21] != b"1" else b"2") + data[21:]  # only the first record changes
    with open(path, "r+b") as f:
        f.write(rewritten)
    cursor.sample(path)
    assert cursor.state.head == digest(rewritten[:MARK_BYTES])  # scanned again from the start


def test_malformed_huge_invalid_and_unknown_lines_are_normal(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    junk = (
        b"not json at all\n"
        + b'{"timestamp":"x","type":"event_msg","payload":{"type":"task_complete"\n'  # cut short
        + b'\xff\xfe{"type":"task_started"}\n'  # invalid UTF-8 around a marker
        + rec("brand_new_type", {"type": "task_complete", "turn": "Q"}, T0)  # not an event_msg
        + rec("event_msg", {"type": "agent_message", "message": 'said "type":"task_complete"'}, T0)
        + b"[1, 2, 3]\n"
        + b'{"timestamp":"'
        + b"9" * 3_000_000
        + b'"}\n'  # one huge line
    )
    path.write_bytes(META + started("A", T0 + 1) + junk)
    answer = LifecycleCursor().sample(path)
    assert (answer.status, answer.turn_id) == ("busy", "A")
    assert summarize(answer) == reference(path.read_bytes())


def test_a_compacted_line_quoting_many_tool_calls_is_judged_once(tmp_path: Path) -> None:
    history = [{"type": "function_call", "name": "exec_command", "call_id": f"c{i}"} for i in range(2000)]
    compacted = rec("compacted", {"message": "", "replacement_history": history}, T0 + 2)
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("A", T0 + 1) + compacted)
    answer = LifecycleCursor().sample(path)
    assert answer.status == "busy" and answer.tool is None


# -- restart recovery: a boundary more than 8 MB back ---------------------------------------------------------


def _filler(turn: str, size: int, t: float) -> bytes:
    line = context(turn, t, pad=4000)
    return line * (size // len(line) + 1)


def test_the_open_turns_start_is_recovered_from_more_than_8_mb_back(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    # more than the newest 8 MB plus one recovery chunk: several polls
    path.write_bytes(META + started("X", T0 + 1) + _filler("X", 30 * 1024 * 1024, T0 + 2))
    cursor = LifecycleCursor()
    first = cursor.sample(path)
    # the newest 8 MB hold no boundary: the open turn is known by its records, its start not yet
    assert first.status == "busy" and first.turn_id == "X" and first.recovering
    assert first.start is None
    # bounded: the window plus one recovery chunk (and the block overlaps)
    assert (
        cursor.bytes_read <= cursor_module.WINDOW_BYTES + cursor_module.RECOVERY_BYTES + 4 * cursor_module.BLOCK_BYTES
    )
    answers = [first]
    while answers[-1].recovering:
        answers.append(cursor.sample(path))
        assert len(answers) < 10
    final = answers[-1]
    assert final.status == "busy" and final.turn_id == "X"
    assert final.start is not None and final.start.at == pytest.approx(T0 + 1)  # the original event time
    assert summarize(final) == reference(path.read_bytes())


def test_recovery_never_borrows_another_responses_start(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    # Y started long ago; the newest records belong to turn X, whose start is not in the file.
    path.write_bytes(META + started("Y", T0 + 1) + _filler("X", 10 * 1024 * 1024, T0 + 2))
    cursor = LifecycleCursor()
    answer = cursor.sample(path)
    while answer.recovering:
        answer = cursor.sample(path)
    assert answer.status == "busy" and answer.turn_id == "X" and answer.start is None
    assert summarize(answer) == reference(path.read_bytes())


def test_a_known_start_is_kept_across_large_appends_without_rereading(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("X", T0 + 1))
    cursor = LifecycleCursor()
    assert cursor.sample(path).start.at == pytest.approx(T0 + 1)
    append(path, _filler("X", 20 * 1024 * 1024, T0 + 3))
    answer = cursor.sample(path)
    assert answer.status == "busy" and answer.start.at == pytest.approx(T0 + 1) and not answer.recovering
    assert cursor.bytes_read <= cursor_module.WINDOW_BYTES + 2 * cursor_module.BLOCK_BYTES


def test_a_boundary_in_the_older_part_of_a_large_append_is_found(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("X", T0 + 1))
    cursor = LifecycleCursor()
    cursor.sample(path)
    # X completes and Y starts early in a 12 MB append; the newest 8 MB are only Y's records
    append(path, complete("X", T0 + 2) + started("Y", T0 + 3) + _filler("Y", 12 * 1024 * 1024, T0 + 4))
    answer = cursor.sample(path)
    while answer.recovering:
        answer = cursor.sample(path)
    assert answer.turn_id == "Y" and answer.start.at == pytest.approx(T0 + 3)
    assert summarize(answer) == reference(path.read_bytes())


def test_recovery_state_survives_a_restart(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(META + started("X", T0 + 1) + _filler("X", 20 * 1024 * 1024, T0 + 2))
    cursor = LifecycleCursor()
    assert cursor.sample(path).recovering
    saved = msgspec.json.encode(cursor.state)
    restarted = LifecycleCursor(msgspec.json.decode(saved, type=CursorState))
    answer = restarted.sample(path)
    while answer.recovering:
        answer = restarted.sample(path)
    assert answer.start.at == pytest.approx(T0 + 1)


# -- real rollouts -------------------------------------------------------------------------------------------


@pytest.mark.skipif(not REAL_ROLLOUTS, reason="the shared real rollouts are not present")
@pytest.mark.parametrize("source", REAL_ROLLOUTS, ids=lambda p: p.name[-20:])
def test_real_rollouts_read_whole_agree_with_a_fresh_scan(source: Path) -> None:
    data = source.read_bytes()
    answer = LifecycleCursor().sample(source)
    assert summarize(answer) == reference(data)


@pytest.mark.skipif(not REAL_ROLLOUTS, reason="the shared real rollouts are not present")
@pytest.mark.parametrize("source", REAL_ROLLOUTS, ids=lambda p: p.name[-20:])
def test_real_rollouts_replayed_in_random_pieces_agree_at_every_step(source: Path, tmp_path: Path) -> None:
    data = source.read_bytes()
    path = tmp_path / source.name
    path.write_bytes(b"")
    cursor = LifecycleCursor()
    rng = random.Random(source.name)
    at = 0
    steps = 0
    while at < len(data):
        # pieces that end anywhere: mid-line, at a newline, several lines at once
        size = rng.choice([1, 7, 100, 1000, 5000, 20000])
        piece = data[at : at + size]
        append(path, piece)
        at += len(piece)
        steps += 1
        # persist and restore the state now and then, as the collector does
        if steps % 17 == 0:
            cursor = LifecycleCursor(msgspec.json.decode(msgspec.json.encode(cursor.state), type=CursorState))
        if rng.random() < 0.35 or at >= len(data):
            assert summarize(cursor.sample(path)) == reference(data[:at]), f"after {at} bytes"


@pytest.mark.skipif(not REAL_ROLLOUTS, reason="the shared real rollouts are not present")
def test_the_unfinished_real_rollout_ends_on_a_running_tool() -> None:
    unfinished = [p for p in REAL_ROLLOUTS if "019c8a70" in p.name]
    assert unfinished
    answer = LifecycleCursor().sample(unfinished[0])
    assert answer.status == "busy" and answer.tool.running and answer.tool.name == "exec_command"
    assert answer.start is not None  # its task_started (0.104 writes no started_at): the record's time


@pytest.mark.skipif(not REAL_ROLLOUTS, reason="the shared real rollouts are not present")
@pytest.mark.parametrize("source", REAL_ROLLOUTS, ids=lambda p: p.name[-20:])
def test_small_blocks_windows_and_recovery_chunks_agree_on_real_rollouts(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same answers with every bound shrunk, so that block overlaps, windows and multi-poll recovery are
    exercised by real records."""
    monkeypatch.setattr(cursor_module, "BLOCK_BYTES", 48 * 1024)
    monkeypatch.setattr(cursor_module, "OVERLAP_BYTES", 16 * 1024)
    monkeypatch.setattr(cursor_module, "WINDOW_BYTES", 64 * 1024)
    monkeypatch.setattr(cursor_module, "RECOVERY_BYTES", 32 * 1024)
    data = source.read_bytes()
    path = tmp_path / source.name
    rng = random.Random(len(data))
    for cut in sorted(rng.sample(range(1, len(data)), 12)) + [len(data)]:
        path.write_bytes(data[:cut])
        cursor = LifecycleCursor()  # a fresh start (a restart without stored state) on a large prefix
        answer = cursor.sample(path)
        polls = 1
        while answer.recovering:
            answer = cursor.sample(path)
            polls += 1
            assert polls < 100
        assert summarize(answer) == reference(data[:cut]), f"prefix of {cut} bytes"
