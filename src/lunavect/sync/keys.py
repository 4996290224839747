"""The bucket's key layout: every key starts with the host that owns it.

`<host>.beat` is the host's heartbeat, `<host>.s.<provider>.<token>` one of its sessions and
`<host>.arr.<provider>.<token>` the person's arrangement of one session as that host last changed it. The
host is always the first token, so a NATS server can let each host write `$KV.lunavect.<host>.>` only
(docs, "Many machines"). A session id made only of letters, digits, `-` and `_` is its own token; any
other is `=` followed by its unpadded base64url, which NATS keys also allow.

Keys are written by other machines, and what `parse` takes from one becomes a SQL key, a `ssh` argument (to
resume a session there), a terminal line and a NATS subject: a host name and a session id are checked here,
where they enter, by the same rules as this machine's own (`core.ids`; each pattern ends at the very end of
the text, since `$` would let a trailing newline through), and a key that fails is no key of lunavect's.
"""

from __future__ import annotations

import base64
import re
from typing import NamedTuple

from lunavect.core.ids import is_session_id

BUCKET = "lunavect"
STREAM = f"KV_{BUCKET}"
SUBJECT_PREFIX = f"$KV.{BUCKET}."
BEAT = "beat"
SESSION = "s"
ARRANGEMENT = "arr"

# A host name starts with a letter or digit: it is passed to `ssh` as an argument, never as an option.
HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}\Z")
PROVIDER_NAME = re.compile(r"[a-z][a-z0-9_-]{0,31}\Z")
_PLAIN = re.compile(r"[A-Za-z0-9_-]+\Z")
# Longer than any key lunavect writes (a host, a provider and a 128-character id in base64).
MAX_KEY_CHARS = 512


class Key(NamedTuple):
    host: str
    kind: str
    session: str | None  # `claude:<id>` / `codex:<id>` for session and arrangement keys


def valid_host(name: object) -> bool:
    return isinstance(name, str) and HOST_NAME.match(name) is not None


def _token(session_id: str) -> str:
    if _PLAIN.match(session_id):
        return session_id
    return "=" + base64.urlsafe_b64encode(session_id.encode()).decode().rstrip("=")


def _untoken(token: str) -> str | None:
    """The session id a key's last token holds, or None when it holds no valid one."""
    if token.startswith("="):
        body = token[1:]
        try:
            token = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)).decode()
        except ValueError:  # not base64, or not UTF-8
            return None
    return token if is_session_id(token) else None


def beat_key(host: str) -> str:
    return f"{host}.{BEAT}"


def session_key(host: str, session: str) -> str:
    provider, _, session_id = session.partition(":")
    return f"{host}.{SESSION}.{provider}.{_token(session_id)}"


def arrangement_key(host: str, session: str) -> str:
    provider, _, session_id = session.partition(":")
    return f"{host}.{ARRANGEMENT}.{provider}.{_token(session_id)}"


def parse(key: str) -> Key | None:
    """The parts of a bucket key, or None for a key lunavect does not write, or one whose host name or session
    id is not valid (ignored, never fatal)."""
    if len(key) > MAX_KEY_CHARS:
        return None
    parts = key.split(".")
    if not valid_host(parts[0]):
        return None
    if len(parts) == 2 and parts[1] == BEAT:
        return Key(parts[0], BEAT, None)
    if len(parts) == 4 and parts[1] in (SESSION, ARRANGEMENT) and PROVIDER_NAME.match(parts[2]):
        session_id = _untoken(parts[3])
        if session_id is None:
            return None
        return Key(parts[0], parts[1], f"{parts[2]}:{session_id}")
    return None
