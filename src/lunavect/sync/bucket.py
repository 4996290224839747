"""The bucket as every conversation with the server meets it (the sync client's and `sync set`'s): opened, or
created when missing; the keys one host holds in it now; whether a host name is another installation's.
"""

from __future__ import annotations

import time
from typing import Any

import nats.js.errors
from nats.js.kv import KeyValue

from lunavect.sync import keys, remote


class NameTaken(Exception):
    """Another installation beats under this host name."""


async def open_bucket(js: Any, create: bool = True) -> KeyValue:
    """The bucket, created (one value per key; three replicas on a cluster, else one) if it is missing."""
    try:
        return await js.key_value(keys.BUCKET)
    except nats.js.errors.BucketNotFoundError:
        if not create:
            raise
    last: Exception | None = None
    for replicas in (3, 1):
        try:
            return await js.create_key_value(bucket=keys.BUCKET, history=1, replicas=replicas)
        except nats.js.errors.APIError as exc:
            last = exc
    assert last is not None
    raise last


async def own_entries(js: Any, kv: KeyValue, host: str) -> dict[str, bytes]:
    """Every key of `host` the bucket holds now, with its value (deleted keys left out).

    Read with a watch, then checked against the stream's own list of the host's subjects: a key the watch did
    not deliver is read directly. A watch can say it has delivered everything before values already on their way
    have arrived (nats-py #842, seen here on a loaded machine), and `sync set` then missed the heartbeat of
    the machine that already used the name."""
    found: dict[str, bytes] = {}
    seen: set[str] = set()
    watcher = await kv.watch(f"{host}.>")
    try:
        while True:
            entry = await watcher.updates(timeout=5.0)
            if entry is None:
                break
            seen.add(entry.key)
            if entry.operation is None:  # a value; a deletion or a purge leaves the key out
                found[entry.key] = entry.value or b""
    finally:
        await watcher.stop()
    info = await js.stream_info(keys.STREAM, subjects_filter=f"{keys.SUBJECT_PREFIX}{host}.>")
    for subject in info.state.subjects or {}:
        key = subject[len(keys.SUBJECT_PREFIX) :]
        if key in seen:
            continue
        try:
            value = await kv.get(key)
        except nats.js.errors.KeyNotFoundError:  # deleted since, or a deletion's marker
            continue
        found[key] = value.value or b""
    return found


def check_name(entries: dict[str, bytes], host: str, machine: str) -> None:
    """Refuse a host name whose heartbeat belongs to another installation."""
    data = entries.get(keys.beat_key(host))
    if not data:
        return
    beat = remote.decode_beat(data)
    if beat is None:
        return
    if beat.machine != machine:
        heard = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(beat.at))
        raise NameTaken(
            f"the host name {host!r} is already used by another machine (last heard {heard}); "
            "choose another with --host-name, or run `lunavect sync off` there first"
        )
