"""Windows of a compressed Codex rollout (`.jsonl.zst`): a finished thread, read forward as a stream.

A compressed file cannot be read backwards, so its records stream through zstandard from the start, and only
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
from lunavect.conversation.window import Unreadable, Window, assemble_window, parts_of, shows

BLOCK_BYTES = 1024 * 1024
# A longer line (a compacted history) is skipped rather than held whole.
MAX_LINE_BYTES = 16 * 1024 * 1024


def _lines(path: str) -> Iterator[tuple[int, bytes]]:
    """Every complete line of the decompressed text, with its offset there."""
    import zstandard  # only when a compressed rollout is read

    try:
        with open(path, "rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True) as r:
            at, carry, skipping = 0, b"", False
            while block := r.read(BLOCK_BYTES):
                data = carry + block
                start = at - len(carry)
                lines = data.split(b"\n")
                carry = lines.pop()
                for line in lines:
                    if not skipping:
                        yield start, line
                    skipping = False
                    start += len(line) + 1
                if len(carry) > MAX_LINE_BYTES:
                    carry, skipping = b"", True
                at += len(block)
    except (OSError, zstandard.ZstdError) as exc:
        raise Unreadable(f"cannot read {path}: {exc}") from None


def read_compressed(
    source: Source, *, before: str | None, messages: int, known: Mapping[str, str] | None
) -> tuple[Window, Assembly]:
    limit = place_key(before) if before is not None else None
    kept: deque[tuple[int, list[Part]]] = deque()
    count, dropped, end = 0, False, 0
    for offset, line in _lines(str(source.path)):
        end = offset + len(line) + 1
        if limit is not None and offset >= limit[0]:
            if offset > limit[0] or limit[1] == 0:
                break
            found = [p for p in parts_of(source, line, offset) if place_key(p.place)[1] < limit[1]]
        else:
            found = parts_of(source, line, offset)
        if not found:
            continue
        kept.append((offset, found))
        count += sum(shows(p) for p in found)
        while len(kept) > 1 and count - sum(shows(p) for p in kept[0][1]) >= messages:
            count -= sum(shows(p) for p in kept.popleft()[1])
            dropped = True
    st = os.stat(source.path)
    return assemble_window(
        list(reversed(kept)), messages=messages, older=dropped, end=end, st=st, marks=("", ""), known=known,
        bytes_read=st.st_size,
    )  # fmt: skip
