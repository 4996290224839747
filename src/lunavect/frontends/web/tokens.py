"""The web panel's tokens: who may look at the list, and who may also change it.

A token is 32 random bytes, shown to its person once (with the panel's URL) and stored only as its SHA-256:
a copy of the store gives nobody access. Tokens are random and long, so a fast hash is as safe as a slow one
here (a slow one only protects guessable passwords) and checking a request costs microseconds. Each token
has a short id (the start of its hash) for listing and revoking, and a role: `view` reads the list, `control`
may also pin, hide, reorder and open sessions.

They live in the store's `settings` table (one row per token, under `web.token.<id>`), so they need no schema
change of their own and go wherever the store goes.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import time
from dataclasses import dataclass

import msgspec

from lunavect import store

ROLES = ("view", "control")
PREFIX = "web.token."
ID_LENGTH = 12


class TokenError(Exception):
    """A token cannot be made or revoked as asked (unknown id, unknown role)."""


class _Stored(msgspec.Struct):
    sha256: str
    role: str
    created: float
    label: str = ""


@dataclass(frozen=True)
class Token:
    """A stored token, without its secret."""

    id: str
    role: str
    created: float
    label: str
    sha256: str

    @property
    def can_change(self) -> bool:
        return self.role == "control"


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(_Stored)


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def create(conn: sqlite3.Connection, role: str, label: str = "", now: float | None = None) -> tuple[str, Token]:
    """Make a token of `role`; returns its secret (to show once) and what is stored of it."""
    if role not in ROLES:
        raise TokenError(f"unknown role {role!r} (use {' or '.join(ROLES)})")
    secret = secrets.token_urlsafe(32)
    hashed = digest(secret)
    stored = _Stored(sha256=hashed, role=role, created=time.time() if now is None else now, label=label.strip())
    key = hashed[:ID_LENGTH]
    store.set_setting(conn, PREFIX + key, _encoder.encode(stored).decode())
    return secret, Token(key, stored.role, stored.created, stored.label, hashed)


def list_tokens(conn: sqlite3.Connection) -> list[Token]:
    """Every stored token, oldest first. A damaged row is left out (it can still be revoked by its id)."""
    tokens = []
    for key, value in store.settings_under(conn, PREFIX).items():
        try:
            stored = _decoder.decode(value)
        except (msgspec.DecodeError, msgspec.ValidationError):
            continue
        if stored.role not in ROLES:
            continue
        tokens.append(Token(key[len(PREFIX) :], stored.role, stored.created, stored.label, stored.sha256))
    tokens.sort(key=lambda t: (t.created, t.id))
    return tokens


def revoke(conn: sqlite3.Connection, token_id: str) -> Token:
    """Remove the token with this id (or an unambiguous start of it); open pages using it lose access."""
    token_id = token_id.strip()
    if not token_id:
        raise TokenError("no token id given")
    matches = [t for t in list_tokens(conn) if t.id.startswith(token_id)]
    if not matches:
        raise TokenError(f"no token {token_id!r} (see `lunavect web tokens list`)")
    if len(matches) > 1:
        raise TokenError(f"{token_id!r} names {len(matches)} tokens: give more of the id")
    store.set_setting(conn, PREFIX + matches[0].id, None)
    return matches[0]


def verify(tokens: list[Token], secret: str | None) -> Token | None:
    """The stored token whose secret this is, or None. Compared in constant time."""
    if not secret or len(secret) > 256:
        return None
    hashed = digest(secret)
    found = None
    for token in tokens:
        if hmac.compare_digest(token.sha256, hashed):
            found = token
    return found
