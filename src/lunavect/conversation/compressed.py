"""Windows of a conversation read forward as a stream: a compressed Codex rollout (`.jsonl.zst`, a finished
thread), or the records a client keeps in no file of its own (`Source.records`: OpenCode's database rows).

A compressed file cannot be read backwards, so its records stream through zstd from the start, and only
the newest records that make the window are kept (a queue that drops the oldest once the rest hold enough
messages): memory stays that of one window, whatever the thread's length. Places are offsets in the
decompressed text, the same as in the plain rollout the file was made from, so a message keeps its place and
mark when Codex compresses it.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterator, Mapping

from lunavect.conversation.assemble import Assembly
from lunavect.conversation.parts import Part, place_key
from lunavect.conversation.source import Source
from lunavect.conversation.window_parts import MAX_LINE_BYTES, Unreadable, Window, assemble_window, parts_of, shows

BLOCK_BYTES = 1024 * 1024


def _lines(path: str) -> Iterator[tuple[int, int, bytes | None]]:
    """Every complete line of the decompressed text, with its offset there and the next line's; None for a
    line longer than MAX_LINE_BYTES (a compacted history), skipped rather than held whole."""
    from lunavect.files.zstd import UNREADABLE, open_zstd  # only when a compressed rollout is read

    try:
        with open_zstd(path) as r:
            at, carry, skipping, line_start = 0, b"", False, 0
            while block := r.read(BLOCK_BYTES):
                data = carry + block
                start = at - len(carry)
                lines = data.split(b"\n")
                carry = lines.pop()
                for line in lines:
                    after = start + len(line) + 1
                    yield line_start, after, None if skipping or len(line) > MAX_LINE_BYTES else line
                    skipping, start, line_start = False, after, after
                if len(carry) > MAX_LINE_BYTES:
                    carry, skipping = b"", True
                at += len(block)
    except UNREADABLE as exc:
        raise Unreadable(f"cannot read {path}: {exc}") from None


def read_compressed(
    source: Source, *, before: str | None, messages: int, known: Mapping[str, str] | None
) -> tuple[Window, Assembly]:
    limit = place_key(before) if before is not None else None
    kept: deque[tuple[int, list[Part]]] = deque()
    # Lines skipped unread as far back as the window reaches: those before each kept record, and since the last.
    skipped_before: deque[int] = deque()
    count, dropped, end, skipped, pending = 0, False, 0, 0, 0
    records = source.records() if source.records is not None else _lines(str(source.path))
    for offset, after, line in records:
        end = after
        if limit is not None and offset >= limit[0] and (offset > limit[0] or limit[1] == 0):
            break
        parts = parts_of(source, line, offset)
        if parts is None:
            skipped, pending = skipped + 1, pending + 1
            continue
        found = parts if limit is None or offset < limit[0] else [p for p in parts if place_key(p.place)[1] < limit[1]]
        if not found:
            continue
        kept.append((offset, found))
        skipped_before.append(pending)
        count, pending = count + sum(shows(p) for p in found), 0
        while len(kept) > 1 and count - sum(shows(p) for p in kept[0][1]) >= messages:
            count -= sum(shows(p) for p in kept.popleft()[1])
            dropped = True
            skipped -= skipped_before.popleft() + skipped_before[0]
            skipped_before[0] = 0
    try:
        st = os.stat(source.path)
    except OSError as exc:
        raise Unreadable(f"cannot read {source.path}: {exc.strerror or exc}") from None
    return assemble_window(
        list(reversed(kept)), messages=messages, older=dropped, end=end, st=st, marks=("", ""), known=known,
        bytes_read=st.st_size, skipped=skipped,
    )  # fmt: skip
