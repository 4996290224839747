"""The bucket's key layout: every key starts with the host that owns it.

`<host>.beat` is the host's heartbeat, `<host>.s.<provider>.<token>` one of its sessions and
`<host>.arr.<provider>.<token>` the person's arrangement of one session as that host last changed it. The
host is always the first token, so a NATS server can let each host write `$KV.lunavect.<host>.>` only
(README, "Many machines"). A session id made only of letters, digits, `-` and `_` is its own token; any
other is `=` followed by its unpadded base64url, which NATS keys also allow.
"""

from __future__ import annotations

import base64
import re
from typing import NamedTuple

BUCKET = "lunavect"
STREAM = f"KV_{BUCKET}"
SUBJECT_PREFIX = f"$KV.{BUCKET}."
BEAT = "beat"
SESSION = "s"
ARRANGEMENT = "arr"

HOST_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")


class Key(NamedTuple):
    host: str
    kind: str
    session: str | None  # `claude:<id>` / `codex:<id>` for session and arrangement keys


def valid_host(name: str) -> bool:
    return bool(HOST_NAME.match(name))


def _token(session_id: str) -> str:
    if _PLAIN.match(session_id):
        return session_id
    return "=" + base64.urlsafe_b64encode(session_id.encode()).decode().rstrip("=")


def _untoken(token: str) -> str:
    if not token.startswith("="):
        return token
    body = token[1:]
    return base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()


def beat_key(host: str) -> str:
    return f"{host}.{BEAT}"


def session_key(host: str, session: str) -> str:
    provider, _, session_id = session.partition(":")
    return f"{host}.{SESSION}.{provider}.{_token(session_id)}"


def arrangement_key(host: str, session: str) -> str:
    provider, _, session_id = session.partition(":")
    return f"{host}.{ARRANGEMENT}.{provider}.{_token(session_id)}"


def parse(key: str) -> Key | None:
    """The parts of a bucket key, or None for a key lunavect does not write (ignored, never fatal)."""
    parts = key.split(".")
    if not parts or not valid_host(parts[0]):
        return None
    if len(parts) == 2 and parts[1] == BEAT:
        return Key(parts[0], BEAT, None)
    if len(parts) == 4 and parts[1] in (SESSION, ARRANGEMENT) and _PLAIN.match(parts[2]):
        try:
            session_id = _untoken(parts[3])
        except (ValueError, UnicodeDecodeError):
            return None
        return Key(parts[0], parts[1], f"{parts[2]}:{session_id}")
    return None
