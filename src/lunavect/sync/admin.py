"""The one-off conversations with the server behind `lunavect sync set` and `lunavect sync off`: check that
the server answers, the credentials work and the host name is free; take this host's keys out of the bucket.

Each returns a `Reply`-like value (None when fine, else one line for the person), never a traceback.
"""

from __future__ import annotations

import asyncio
import time

import msgspec
import nats
import nats.errors
import nats.js.errors

from lunavect.sync import keys
from lunavect.sync.bucket import NameTaken, check_name, open_bucket, own_entries
from lunavect.sync.config import SyncConfig
from lunavect.sync.connect import ConfigError, options
from lunavect.sync.remote import Beat

TIMEOUT_S = 15.0


def _explain(exc: BaseException, config: SyncConfig) -> str:
    text = str(exc) or type(exc).__name__
    if "authorization" in text.lower() or "authentication" in text.lower():
        return f"the server {', '.join(config.servers)} refused these credentials ({text.strip()})"
    if isinstance(exc, nats.errors.NoServersError | ConnectionRefusedError | OSError | TimeoutError):
        return f"cannot reach the NATS server at {', '.join(config.servers)} ({text.strip() or 'no answer'})"
    if isinstance(exc, nats.js.errors.APIError | nats.errors.NoRespondersError):
        return f"the server does not offer the bucket {keys.BUCKET!r} to this user (is JetStream on?): {text}"
    return f"sync failed: {text}"


async def _with_connection(config: SyncConfig, job: str, machine: str) -> None:
    errors: list[BaseException] = []

    async def on_error(exc: Exception) -> None:
        errors.append(exc)

    try:
        nc = await nats.connect(
            **{**options(config), "allow_reconnect": False, "max_reconnect_attempts": 0}, error_cb=on_error
        )
    except Exception as exc:
        raise (errors[0] if errors else exc) from None
    try:
        js = nc.jetstream(timeout=5.0)
        kv = await open_bucket(js)
        mine = await own_entries(js, kv, config.host)
        check_name(mine, config.host, machine)
        if job == "check":
            # Claim the name with a first beat: this also proves the user may write this host's keys.
            beat = Beat(at=time.time(), every=config.beat_s, machine=machine)
            try:
                await kv.put(keys.beat_key(config.host), msgspec.json.encode(beat))
            except (nats.errors.Error, TimeoutError) as exc:
                if any("permission" in str(e).lower() for e in errors):
                    raise PermissionError(
                        f"the server does not let this user write the keys of host {config.host!r} "
                        "(its permissions allow each machine only its own name)"
                    ) from None
                raise exc
        if job == "withdraw":
            # Sessions first, the heartbeat last: other hosts drop this host's rows with its beat.
            for key in sorted(mine, key=lambda k: k == keys.beat_key(config.host)):
                await kv.delete(key)
    finally:
        await nc.close()


def anyone_may_write(config: SyncConfig) -> bool:
    """True when the server lets clients without credentials write this host's keys (`open_server`)."""
    from lunavect.sync.open_server import anyone_may_write as ask

    try:
        return asyncio.run(asyncio.wait_for(ask(config), TIMEOUT_S))
    except Exception:  # noqa: BLE001 - no answer is no warning: the check itself has said what failed
        return False


def run(config: SyncConfig, job: str, machine: str) -> str | None:
    """`job` is "check" or "withdraw"; returns None when done, else why not."""
    try:
        asyncio.run(asyncio.wait_for(_with_connection(config, job, machine), TIMEOUT_S))
    except (NameTaken, PermissionError) as exc:
        return str(exc)
    except ConfigError as exc:
        return str(exc)
    except Exception as exc:  # noqa: BLE001 - every failure becomes one line
        return _explain(exc, config)
    return None
