"""What `lunavect sync set` stores: where the NATS server is, how to prove who this host is, and its name.

The configuration lives in the store's settings (key `sync`), so the collector notices a change on its next
tick and every front end can say whether sync is on. Secrets never enter the store: only the paths of the
files that hold them (a `.creds` file, a password file, a token file), read when connecting.
"""

from __future__ import annotations

import sqlite3
import uuid

import msgspec

from lunavect import store
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


def load(conn: sqlite3.Connection) -> SyncConfig | None:
    text = store.get_setting(conn, SETTING)
    if text is None:
        return None
    try:
        config = _decoder.decode(text)
    except msgspec.DecodeError:
        return None
    return config if keys.valid_host(config.host) and config.servers else None


def save(conn: sqlite3.Connection, config: SyncConfig) -> None:
    store.set_setting(conn, SETTING, _encoder.encode(config).decode())


def clear(conn: sqlite3.Connection) -> None:
    store.set_setting(conn, SETTING, None)


def machine_id(conn: sqlite3.Connection) -> str:
    """This installation's own random id: what tells two machines that chose the same host name apart."""
    found = store.get_setting(conn, MACHINE_SETTING)
    return found if found is not None else store.setting_once(conn, MACHINE_SETTING, uuid.uuid4().hex)


def silent_after(beat_s: float) -> float:
    """Seconds without a beat after which a host's sessions are shown `offline`."""
    return beat_s * MISSED_BEATS
