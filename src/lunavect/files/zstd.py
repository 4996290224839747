"""Reading a zstd-compressed file as a stream, through the standard library's own zstd where it has one.

Codex compresses the rollouts it no longer writes to. Python 3.14's `compression.zstd` reads them; before
3.14, `backports.zstd` is the same module (1.8 MB, against the 24 MB of `zstandard`, half of a whole install).
A file of several frames (Codex appends a frame per flush) reads as one stream. Imported only when a compressed
file is read: the collector's start does not pay for it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

if sys.version_info >= (3, 14):
    from compression import zstd
else:
    from backports import zstd

from lunavect.files.tail import open_regular

# What reading a file that cannot be read, is no zstd stream, or is cut short raises.
UNREADABLE: tuple[type[Exception], ...] = (OSError, zstd.ZstdError, EOFError)


@contextmanager
def open_zstd(path: Path | str) -> Iterator[BinaryIO]:
    """The decompressed stream of a regular file (`open_regular`: never a FIFO or device another user placed).
    Reading it raises one of `UNREADABLE` on a file that is no zstd stream, or is cut short."""
    with os.fdopen(open_regular(path), "rb") as raw, zstd.ZstdFile(raw, mode="rb") as stream:
        yield stream  # type: ignore[misc]


def compress(data: bytes) -> bytes:
    """One zstd frame of `data` (for tests and tools that write what Codex writes)."""
    return zstd.compress(data)
