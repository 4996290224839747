"""Reading the hook spool: whole lines only, from a byte offset, across rotations.

The shim appends one line per event to `spool/events.jsonl`. The collector reads from the offset it stored
for that file's inode and stores the new offset in the same transaction as the events, so a collector
killed at any point neither loses an event nor stores one twice. A file is identified by its inode, so
rotation (renaming a fully read file aside, then deleting it once no shim can still be appending to it)
never confuses two files.

A write the disk cut short can leave a fragment with no newline, and the next record is then appended glued
to it. The shim blanks such a fragment out (lunavect/shim/spoolfile.py), but one may stay (a shim killed in
between), so the reader cuts every fragment off the record after it: a record begins with RECORD_START, and
those bytes stand nowhere else in a record, so the whole record is the line from its last RECORD_START on.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from lunavect.shim.spoolfile import RECORD_START, SPOOL_FILE_NAME

# Rotate the live spool once it is fully read and this large.
ROTATE_BYTES = 4 * 1024 * 1024
# A rotated file is deleted once fully read and untouched this long: a shim holds the file open for
# microseconds, so nothing can still append to it.
RETIRE_AFTER_S = 60.0
# At most this much is read per file per ingest, so one transaction stays short.
MAX_READ_BYTES = 4 * 1024 * 1024
ROTATED_PREFIX = "rotated-"
_RECORD_START = RECORD_START.encode("ascii")


@dataclass(frozen=True)
class Chunk:
    """Complete lines read from one spool file, and the offset just past them; `fragments` counts the pieces
    of cut-short writes cut off the lines' fronts."""

    inode: int
    name: str
    start: int
    end: int
    lines: list[bytes]
    fragments: int = 0


def cut_fragments(line: bytes) -> tuple[bytes, int]:
    """The record a line ends with, without the fragments glued in front of it, and how many were cut off.

    A fragment long enough to hold RECORD_START begins with it; a shorter one is counted with the one
    before it. A line written before records began with the mark has none after its start: kept whole."""
    start = line.rfind(_RECORD_START)
    if start <= 0:
        return line, 0
    head = line[:start]
    return line[start:], head.count(_RECORD_START) + (not head.startswith(_RECORD_START))


def _whole_records(data: bytes) -> tuple[list[bytes], int]:
    lines: list[bytes] = []
    fragments = 0
    for line in data.splitlines():
        record, cut = cut_fragments(line)
        lines.append(record)
        fragments += cut
    return lines, fragments


def _cursor(conn: sqlite3.Connection, inode: int) -> int:
    row = conn.execute("SELECT offset FROM spool_cursor WHERE inode = ?", (inode,)).fetchone()
    return row[0] if row else 0


def spool_files(spool_dir: Path) -> list[Path]:
    """Rotated files first (oldest first), then the live one: the order the events were written."""
    try:
        names = os.listdir(spool_dir)
    except FileNotFoundError:
        return []
    rotated = sorted(n for n in names if n.startswith(ROTATED_PREFIX) and n.endswith(".jsonl"))
    files = [spool_dir / n for n in rotated]
    if SPOOL_FILE_NAME in names:
        files.append(spool_dir / SPOOL_FILE_NAME)
    return files


def read_new(conn: sqlite3.Connection, path: Path, max_bytes: int = MAX_READ_BYTES) -> Chunk | None:
    """The complete lines appended to `path` since its stored offset, or None when there are none."""
    try:
        with open(path, "rb") as f:
            st = os.fstat(f.fileno())
            offset = _cursor(conn, st.st_ino)
            if st.st_size < offset:
                offset = 0  # truncated by hand: read again; event ids keep it exactly-once
            if st.st_size == offset:
                return None
            f.seek(offset)
            data = f.read(min(max_bytes, st.st_size - offset))
    except FileNotFoundError:
        return None
    last_newline = data.rfind(b"\n")
    if last_newline < 0:
        if len(data) >= max_bytes:
            # One line longer than a whole read: no shim writes that; skip it rather than stall forever.
            return Chunk(st.st_ino, path.name, offset, offset + len(data), [])
        return None  # a line still being written: read it whole next time
    whole = data[: last_newline + 1]
    lines, fragments = _whole_records(whole)
    return Chunk(st.st_ino, path.name, offset, offset + len(whole), lines, fragments)


def commit_cursor(conn: sqlite3.Connection, chunk: Chunk, now: float) -> None:
    """Record how far a file was read; call inside the transaction that stores the chunk's events."""
    conn.execute(
        "INSERT INTO spool_cursor (inode, name, offset, updated) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (inode) DO UPDATE SET name = excluded.name, offset = excluded.offset, "
        "updated = excluded.updated",
        (chunk.inode, chunk.name, chunk.end, now),
    )


def rotate_and_retire(conn: sqlite3.Connection, spool_dir: Path, now: float | None = None) -> None:
    """Move a large, fully read live spool aside, and delete rotated files nothing can write to any more.

    The cursor row of a retired file is deleted (and committed) before the file, so a crash in between
    leaves a file that is read again (its events are ignored by id) rather than a stale cursor that a new
    file with a reused inode would inherit.
    """
    now = time.time() if now is None else now
    live = spool_dir / SPOOL_FILE_NAME
    try:
        st = live.stat()
        if st.st_size >= ROTATE_BYTES and _cursor(conn, st.st_ino) == st.st_size:
            os.rename(live, spool_dir / f"{ROTATED_PREFIX}{now:017.6f}-{st.st_ino}.jsonl")
    except FileNotFoundError:
        pass
    for path in spool_files(spool_dir):
        if path.name == SPOOL_FILE_NAME:
            continue
        try:
            st = path.stat()
        except FileNotFoundError:
            continue
        if _cursor(conn, st.st_ino) == st.st_size and now - st.st_mtime > RETIRE_AFTER_S:
            conn.execute("DELETE FROM spool_cursor WHERE inode = ?", (st.st_ino,))
            try:
                path.unlink()
            except FileNotFoundError:
                pass
