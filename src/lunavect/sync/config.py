"""What `lunavect sync set` stores: where the NATS server is, how to prove who this host is, and its name.

The configuration lives in the store's settings (key `sync`), so the collector notices a change on its next
tick and every front end can say whether sync is on. Secrets never enter the store: only the paths of the
files that hold them (a `.creds` file, a password file, a token file), read when connecting.
"""

from __future__ import annotations

import socket
import sqlite3
import uuid

import msgspec

from lunavect.sync import keys

SETTING = "sync"
MACHINE_SETTING = "sync.machine"
# How often a host beats, and how many missed beats make its sessions `offline` elsewhere.
BEAT_S = 5.0
MISSED_BEATS = 3


class SyncConfig(msgspec.Struct, frozen=True, omit_defaults=True):
    servers: tuple[str, ...]
    host: str
    creds: str | None = None
    user: str | None = None
    password_file: str | None = None
    token_file: str | None = None
    tls_ca: str | None = None
    beat_s: float = BEAT_S


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(SyncConfig)


def default_host_name() -> str:
    """The machine's short host name, with anything a bucket key cannot hold replaced by `-`."""
    short = socket.gethostname().split(".")[0] or "host"
    cleaned = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_") else "-" for ch in short).lstrip("-_")
    return cleaned[:64] or "host"


def load(conn: sqlite3.Connection) -> SyncConfig | None:
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (SETTING,)).fetchone()
    if row is None:
        return None
    try:
        config = _decoder.decode(row[0])
    except msgspec.DecodeError:
        return None
    return config if keys.valid_host(config.host) and config.servers else None


def save(conn: sqlite3.Connection, config: SyncConfig) -> None:
    conn.execute(
        "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (SETTING, _encoder.encode(config).decode()),
    )


def clear(conn: sqlite3.Connection) -> None:
    conn.execute("DELETE FROM settings WHERE key = ?", (SETTING,))


def machine_id(conn: sqlite3.Connection) -> str:
    """This installation's own random id: what tells two machines that chose the same host name apart."""
    row = conn.execute("SELECT value FROM settings WHERE key = ?", (MACHINE_SETTING,)).fetchone()
    if row is not None:
        return str(row[0])
    value = uuid.uuid4().hex
    conn.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", (MACHINE_SETTING, value))
    return str(conn.execute("SELECT value FROM settings WHERE key = ?", (MACHINE_SETTING,)).fetchone()[0])


def silent_after(beat_s: float) -> float:
    """Seconds without a beat after which a host's sessions are shown `offline`."""
    return beat_s * MISSED_BEATS
