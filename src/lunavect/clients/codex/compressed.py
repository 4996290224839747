"""Compressed Codex rollouts (`rollout-….jsonl.zst`): read as a stream, never whole.

Codex compresses rollouts it no longer writes to (zstd), and turns one back into a plain `.jsonl` before it
appends again, so a compressed rollout is a finished, immutable thread: it is read once from its start, not
followed. The reader decompresses in fixed blocks and folds them with the plain cursor's own block search, so
the answer (latest boundary, the tool after it, the open turn) is the one the plain reader would give for the
same bytes, and memory stays bounded whatever the thread's length: one block plus one unfinished line, and a
line longer than `MAX_LINE_BYTES` (a compacted history; the plain reader cannot hold one whole either) is
skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lunavect.clients.codex.cursor import CursorState, Lifecycle, LifecycleCursor, fold_block, last_line_time
from lunavect.clients.codex.usage import UsageRead

SUFFIX = ".zst"
BLOCK_BYTES = 1024 * 1024
MAX_LINE_BYTES = 1024 * 1024


def is_compressed(path: Path | str) -> bool:
    return str(path).endswith(SUFFIX)


def _decompressed(path: Path | str, block: int = BLOCK_BYTES) -> Iterator[bytes]:
    """The decompressed bytes in blocks of at most `block`; nothing when the file is unreadable or corrupt."""
    from lunavect.files.zstd import UNREADABLE, open_zstd  # only when a compressed rollout exists

    try:
        with open_zstd(path) as r:
            while True:
                data = r.read(block)
                if not data:
                    return
                yield data
    except UNREADABLE:
        return


def read_prefix(path: Path | str, max_bytes: int) -> bytes:
    """The first `max_bytes` decompressed bytes (a header, a first prompt), or fewer when the file is shorter."""
    parts: list[bytes] = []
    size = 0
    for data in _decompressed(path, min(BLOCK_BYTES, max_bytes)):
        parts.append(data[: max_bytes - size])
        size += len(parts[-1])
        if size >= max_bytes:
            break
    return b"".join(parts)


def complete_lines(path: Path | str) -> Iterator[bytes]:
    """Blocks of whole lines (each block ends with a newline); the last line counts even without one."""
    carry = b""
    skipping = False
    for data in _decompressed(path):
        end = data.rfind(b"\n")
        if end < 0:
            if not skipping:
                carry += data
                if len(carry) > MAX_LINE_BYTES:
                    carry, skipping = b"", True
            continue
        head, rest = data[: end + 1], data[end + 1 :]
        if skipping:
            head, skipping = head[head.find(b"\n") + 1 :], False
        block, carry = carry + head, rest
        if block:
            yield block
    if carry and not skipping:
        yield carry + b"\n"


def lifecycle(path: Path | str) -> Lifecycle | None:
    """The finished thread's lifecycle, as the plain cursor would answer it; None when nothing could be read."""
    return read_whole(path)[0]


def read_whole(path: Path | str, usage: UsageRead | None = None) -> tuple[Lifecycle | None, CursorState]:
    """The lifecycle and the kept state of one pass; `usage`, when given, folds every usage record on the way
    (codex/usage.py), and the state keeps what it left."""
    state = CursorState()
    read = False
    for block in complete_lines(path):
        read = True
        fold_block(state, block)
        state.last_at = last_line_time(block) or state.last_at
        if usage is not None:
            usage.lines(block)
    if usage is not None:
        state.usage = usage.usage
    return (LifecycleCursor(state).answer() if read else None), state
