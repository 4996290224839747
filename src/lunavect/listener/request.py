"""What the HTTP hook listener makes of the bytes a connection sent: where the head ends, and whether it is
exactly lunavect's own hook request. Pure functions over bytes, apart from the sockets, so that every rule is
checked with any input (tests/unit/listener/test_hook_listener.py feeds them random bytes) and none can raise.

The head is bounded as it arrives: `head_end` is asked after every read, and the listener never reads past
`MAX_HEAD_BYTES` of a head (a 20 KB head in one segment is refused, not parsed).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from lunavect.clients import claude
from lunavect.clients.claude import HOOK_PATH

SECRET_HEADER = claude.SECRET_HEADER.lower()  # header names are compared lower-cased
# Claude's hook payloads are a few KB; a PostToolUse carries the tool's output, kept whole up to this size.
MAX_BODY_BYTES = 8 * 1024 * 1024
MAX_HEAD_BYTES = 16 * 1024
END = b"\r\n\r\n"
# How many bytes may be read while the head has not ended: its limit and the blank line that ends it.
HEAD_READ_LIMIT = MAX_HEAD_BYTES + len(END)


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str


def head_end(buf: bytes) -> int | Refusal | None:
    """Where the body starts in `buf` (the head's blank line found within the limit), None while the head may
    still come, or a refusal once `buf` holds more than a head may be."""
    end = buf.find(END, 0, HEAD_READ_LIMIT)
    if end >= 0:
        return end + len(END)
    if len(buf) >= HEAD_READ_LIMIT:
        return Refusal(413, "head-too-large")
    return None


def body_length(head: bytes, secret: bytes) -> int | Refusal:
    """The length of the body this head announces when it is lunavect's hook (POST to the hook path with the
    secret and a length within bounds), or why it is refused. The secret is compared in constant time."""
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3:
        return Refusal(400, "bad-request-line")
    method, path = parts[0], parts[1]
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep:
            return Refusal(400, "bad-header")
        headers[name.strip().lower()] = value.strip()
    if path != HOOK_PATH:
        return Refusal(404, "wrong-path")
    if method != "POST":
        return Refusal(405, "wrong-method")
    if not hmac.compare_digest(headers.get(SECRET_HEADER, "").encode("latin-1"), secret):
        return Refusal(403, "wrong-secret")
    declared = headers.get("content-length", "")
    # Digits only: int() would also take "+5", " 5" and "5_0".
    if not (declared.isascii() and declared.isdigit()):
        return Refusal(411, "no-length")
    length = int(declared) if len(declared) <= 12 else MAX_BODY_BYTES + 1
    if length > MAX_BODY_BYTES:
        return Refusal(413, "too-large")  # refused before a byte of it is read
    return length
