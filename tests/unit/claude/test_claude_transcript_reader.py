"""The incremental transcript reader: appended bytes only, complete lines only, and a file replaced,
truncated or rewritten in place is read again from its start."""

from __future__ import annotations

import os
from pathlib import Path

from lunavect.claude import transcript
from lunavect.claude.transcript import AppendedLines, Cursor


def read(path: Path, cursor: Cursor | None = None, budget: int = 1 << 30):
    with AppendedLines(path, cursor, budget) as lines:
        got = list(lines)
        return got, lines.cursor(), lines.restarted


def test_reads_complete_lines_and_leaves_a_line_being_written(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":2}\n{"c":')
    got, cursor, restarted = read(path)
    assert got == [(0, b'{"a":1}'), (8, b'{"b":2}')]
    assert cursor.offset == 16 and not restarted and cursor.lines == 2
    with open(path, "ab") as f:
        f.write(b"3}\n")
    got, cursor, restarted = read(path, cursor)
    assert got == [(16, b'{"c":3}')]  # the whole line, once it ended
    assert cursor.offset == path.stat().st_size and not restarted and cursor.lines == 3


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

    monkeypatch.setattr(transcript.os, "pread", counting)
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
    assert cursor.lines == 3


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
