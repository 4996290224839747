"""The incremental transcript reader: appended bytes only, complete lines only, and a file replaced,
truncated or rewritten in place is read again from its start."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lunavect.clients.claude import transcript
from lunavect.clients.claude.transcript import AppendedLines, Cursor


def read(path: Path, cursor: Cursor | None = None, budget: int = 1 << 30):
    with AppendedLines(path, cursor, budget) as lines:
        got = list(lines)
        return got, lines.cursor(), lines.restarted


def test_reads_complete_lines_and_leaves_a_line_being_written(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n{"c":')
    got, cursor, restarted = read(path)
    assert got == [(0, b'{"a":1}'), (8, b'{"b":2}')]
    assert cursor.offset == 16 and not restarted
    with open(path, "ab") as f:
        f.write(b"3}\n")
    got, cursor, restarted = read(path, cursor)
    assert got == [(16, b'{"c":3}')]  # the whole line, once it ended
    assert cursor.offset == path.stat().st_size and not restarted


def test_reads_only_what_was_appended(tmp_path, monkeypatch):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"x" * 100_000 + b"\n")
    _, cursor, _ = read(path)
    with open(path, "ab") as f:
        f.write(b'{"new":1}\n')
    reads: list[tuple[int, int]] = []
    real_pread = os.pread

    def counting(fd, length, offset):
        reads.append((length, offset))
        return real_pread(fd, length, offset)

    def counting_into(fd, buffers, offset):
        got = real_preadv(fd, buffers, offset)
        reads.append((got, offset))
        return got

    real_preadv = os.preadv
    monkeypatch.setattr(transcript.os, "pread", counting)
    monkeypatch.setattr(transcript, "_preadv", counting_into)
    got, cursor, restarted = read(path, cursor)
    assert got == [(100_001, b'{"new":1}')] and not restarted
    # The marks (the first and the last 64 bytes, checked, then saved) and the 10 new bytes: nothing else.
    assert sum(length for length, _ in reads) == 64 * 4 + 10


def test_unchanged_file_needs_no_read(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n')
    _, cursor, _ = read(path)
    assert cursor.unchanged(os.stat(path))
    with open(path, "ab") as f:
        f.write(b"{")
    assert not cursor.unchanged(os.stat(path))


def test_replaced_file_is_read_from_its_start(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n')
    _, cursor, _ = read(path)
    replacement = tmp_path / "new"
    replacement.write_bytes(b'{"a":1}\n{"b":2}\n{"c":3}\n')
    os.replace(replacement, path)  # another inode under the same name
    got, cursor, restarted = read(path, cursor)
    assert restarted and [line for _, line in got] == [b'{"a":1}', b'{"b":2}', b'{"c":3}']
    assert cursor.offset == path.stat().st_size


def test_truncated_file_is_read_from_its_start(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n')
    _, cursor, _ = read(path)
    with open(path, "r+b") as f:
        f.truncate(0)
        f.write(b'{"z":9}\n')
    got, _, restarted = read(path, cursor)
    assert restarted and got == [(0, b'{"z":9}')]


def test_rewritten_in_place_is_noticed_by_the_bytes_before_the_offset(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n')
    _, cursor, _ = read(path)
    inode = os.stat(path).st_ino
    with open(path, "r+b") as f:  # same inode, same length up to the offset, other bytes
        f.write(b'{"a":1}\n{"B":2}\n{"c":3}\n')
    assert os.stat(path).st_ino == inode
    got, _, restarted = read(path, cursor)
    assert restarted and [line for _, line in got] == [b'{"a":1}', b'{"B":2}', b'{"c":3}']


def test_rewritten_start_is_noticed_too(tmp_path):
    path = tmp_path / "t.jsonl"
    body = b'{"a":1}\n' + b'{"pad":"' + b"p" * 200 + b'"}\n'
    path.write_bytes(body)
    _, cursor, _ = read(path)
    with open(path, "r+b") as f:
        f.write(b'{"A":1}')
    _, _, restarted = read(path, cursor)
    assert restarted


def test_a_line_too_long_to_keep_is_skipped_without_being_held(tmp_path, monkeypatch):
    monkeypatch.setattr(transcript, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(transcript, "BLOCK_BYTES", 256)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n' + b"y" * 5000 + b"\n" + b'{"b":2}\n')
    with AppendedLines(path, None) as lines:
        got = list(lines)
        assert lines.too_long == 1
    assert got == [(0, b'{"a":1}'), (8, None), (5009, b'{"b":2}')]


def test_budget_stops_at_a_line_boundary_and_the_next_read_goes_on(tmp_path):
    path = tmp_path / "t.jsonl"
    records = [b'{"n":%d}' % n for n in range(100)]
    path.write_bytes(b"\n".join(records) + b"\n")
    seen: list[bytes] = []
    cursor = None
    for _ in range(100):
        got, cursor, restarted = read(path, cursor, budget=50)
        assert not restarted
        seen.extend(line for _, line in got)
        if not cursor.partial:
            break
        assert not cursor.unchanged(os.stat(path))  # a partial read is never taken for a finished one
    assert seen == records


def test_empty_file_and_no_newline_yet(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"")
    got, cursor, _ = read(path)
    assert got == [] and cursor.offset == 0
    path.write_bytes(b'{"a":')
    got, cursor, _ = read(path, cursor)
    assert got == [] and cursor.offset == 0


# A pattern of the whole read's kind (claude/records.py): a quoted word, never a newline.
WORD = re.compile(rb'"(?:ab|b)"')
LINE_PARTS = st.lists(st.sampled_from([b'"ab"', b'"b"', b'"a', b'b"', b"x", b"yy" * 40, b'"', b"\r"]), max_size=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(LINE_PARTS.map(b"".join), max_size=40),
    tail=LINE_PARTS.map(b"".join),
    block=st.integers(1, 64),
    longest=st.integers(1, 200),
    budget=st.integers(0, 400),
    resume=st.integers(0, 40),
)
def test_matching_gives_the_lines_iterating_gives_that_match(
    tmp_path_factory, monkeypatch, lines, tail, block, longest, budget, resume
):
    """The whole read's search over whole blocks (`matching`) cuts out exactly the lines iterating yields in
    which the pattern is found, and every line too long to keep, and ends with the same counts and cursor:
    whatever the block size, the longest line kept, the budget and where the read resumes."""
    monkeypatch.setattr(transcript, "BLOCK_BYTES", block)
    monkeypatch.setattr(transcript, "MAX_LINE_BYTES", longest)
    path = tmp_path_factory.mktemp("m") / "t.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    with AppendedLines(path, None, 1 << 30) as first:
        offsets = [offset for offset, _ in first]
    start = None  # the cursor after the first `resume` lines (a read that stops at its budget there)
    if 0 < resume < len(offsets):
        with AppendedLines(path, None, offsets[resume]) as head:
            list(head)
            start = head.cursor()

    def outcome(matched: bool):
        with AppendedLines(path, start, budget) as reading:
            if matched:
                got = [pair for found in reading.matching(WORD) for pair in found]
            else:
                got = [(at, line) for at, line in reading if line is None or WORD.search(line)]
            return got, reading.too_long, reading.stopped, reading.cursor()

    assert outcome(True) == outcome(False)


@pytest.mark.parametrize("block", [3, 7, 1 << 20])
def test_matching_stops_where_iterating_stops(tmp_path, monkeypatch, block):
    """A budget that ends exactly where a line ends, or inside one, stops both ways of reading at the same line."""
    monkeypatch.setattr(transcript, "BLOCK_BYTES", block)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'"ab"\n' * 6 + b'"x"\n' * 3)
    for budget in range(0, 50):
        with AppendedLines(path, None, budget) as reading:
            matched = [pair for found in reading.matching(WORD) for pair in found]
            ended = (reading.end, reading.stopped)
        with AppendedLines(path, None, budget) as reading:
            iterated = [(at, line) for at, line in reading if line is None or WORD.search(line)]
            assert (matched, ended) == (iterated, (reading.end, reading.stopped)), budget


def test_a_system_without_preadv_reads_the_same(tmp_path, monkeypatch):
    """macOS before 11 has no preadv: the reader seeks and reads into its buffer instead."""
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n' * 50 + b'{"b":')
    monkeypatch.setattr(transcript, "BLOCK_BYTES", 7)
    expected = read(path)
    monkeypatch.setattr(transcript, "_preadv", None)
    assert read(path) == expected
    assert [line for _, line in expected[0]] == [b'{"a":1}'] * 50
