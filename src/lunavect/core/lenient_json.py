"""One line of a client's file as JSON, when a stray byte is not valid UTF-8.

The clients write UTF-8, but another tool that cuts a title mid-character, or a disk error, can leave one
invalid byte in a line; a strict decode then loses the whole line, with every fact it holds. So a line that
fails only for its encoding is decoded again with each bad byte replaced by U+FFFD, and the reader takes a
title or a name as it now reads (one odd character), while a value that must be exact (an id, a path) and
holds a replaced byte is dropped: it names nothing real any more.
"""

from __future__ import annotations

from lunavect.core import bounded_json

REPLACEMENT = "\ufffd"


def loads(line: bytes) -> tuple[object, bool]:
    """The line's JSON value, and whether bytes (or an escaped lone surrogate, bounded_json) had to be replaced
    to read it. Raises ValueError for a line that is not JSON whatever its encoding, or nests deeper than
    bounded_json allows (never RecursionError)."""
    try:
        return bounded_json.loads_marked(line)
    except UnicodeDecodeError:
        return bounded_json.loads_marked(line.decode("utf-8", "replace"))[0], True


def exact(value: object, replaced: bool) -> str | None:
    """A string that must be exact (a path, an id): None when it is no string, or holds a byte replaced in
    decoding its line."""
    if not isinstance(value, str) or not value:
        return None
    return None if replaced and REPLACEMENT in value else value
