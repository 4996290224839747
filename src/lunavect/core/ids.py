"""What a session id may be, wherever one enters: a hook's payload, a transcript's name, a catalog entry.

Claude Code's session ids and Codex's thread ids are UUIDs; other clients and older versions use other
shapes, so the rule is a safe alphabet rather than one format. An id is later part of file names
(`<session id>.jsonl`), glob patterns and terminal output: a `/`, a `..`, a control character or a 128 KB
string is refused where it enters, so no path is ever built from it unchecked. Checked with string methods
only, because the hook shim checks ids too and does not import `re`.
"""

from __future__ import annotations

SESSION_ID_MAX_CHARS = 128
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")


def is_session_id(value: object) -> bool:
    """True for 1 to 128 characters of letters, digits, `-`, `_` and `.`, starting with a letter or digit (so
    neither `.` nor `..` nor a hidden file's name)."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= SESSION_ID_MAX_CHARS
        and value[0].isascii()
        and value[0].isalnum()
        and _ALLOWED.issuperset(value)
    )
