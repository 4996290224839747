"""Whether the sync server lets anyone write this host's keys: a server that takes clients without credentials
and lets them write the bucket lets anyone who reaches it forge this machine's rows and heartbeat.

`sync set` says so, and the sync client asks again at each connection so that `sync status` says so too. The
question is asked without writing anything: as a client with no credentials, a put of this host's heartbeat
that expects a last revision the key cannot have. A server that refuses the client, or the publish, answers
no; a stream that answers "wrong last sequence" had accepted the client's write and checked it, so the answer
is yes, and nothing was stored.
"""

from __future__ import annotations

from typing import Any

import msgspec
import nats
import nats.errors
import nats.js.errors

from lunavect.sync import keys
from lunavect.sync.config import SyncConfig
from lunavect.sync.connect import options

# JetStream's error code for a put whose expected last revision is not the key's (nothing was written).
WRONG_LAST_SEQUENCE = 10071
_IMPOSSIBLE_REVISION = str(2**62)
WARNING = (
    "the server lets clients without credentials write this host's keys: anyone who reaches it can forge "
    "this machine's sessions and heartbeat (give each machine its own user, see docs/machines.md)"
)


def _anonymous(config: SyncConfig) -> dict[str, Any]:
    """How this host connects (its servers, its TLS CA), with no credentials at all."""
    bare = msgspec.structs.replace(config, creds=None, user=None, password_file=None, token_file=None)
    return {**options(bare), "allow_reconnect": False, "max_reconnect_attempts": 0, "name": "lunavect probe"}


async def anyone_may_write(config: SyncConfig, timeout: float = 3.0) -> bool:
    """True when a client without credentials may write `config.host`'s keys; False when it may not (or the
    answer cannot be had: the server unreachable is not this question's to report)."""

    async def quiet(_exc: Exception) -> None:
        return None

    try:
        nc = await nats.connect(**_anonymous(config), error_cb=quiet)
    except Exception:  # noqa: BLE001 - refused (no credentials), unreachable, or TLS: no anonymous writer
        return False
    try:
        js = nc.jetstream(timeout=timeout)
        try:
            await js.publish(
                keys.SUBJECT_PREFIX + keys.beat_key(config.host),
                b"",
                headers={"Nats-Expected-Last-Subject-Sequence": _IMPOSSIBLE_REVISION},
            )
        except nats.js.errors.APIError as exc:
            return exc.err_code == WRONG_LAST_SEQUENCE
        except (nats.errors.Error, TimeoutError):
            return False  # a permissions violation leaves the publish unanswered
        return True  # the stream took it as a write: anyone may write here
    finally:
        try:
            await nc.close()
        except Exception:  # noqa: BLE001 - closing a broken connection
            pass
