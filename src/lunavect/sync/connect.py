"""How this host connects to NATS: the servers, the credentials and TLS that `lunavect sync set` recorded.

Every secret is read from its file when connecting, never copied into the store or a log. nats-py is the
optional extra `lunavect[sync]`; without it `missing_extra` says how to install it.
"""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

from lunavect.core.extras import needs_extra
from lunavect.sync.config import SyncConfig

CONNECT_TIMEOUT_S = 3
RECONNECT_WAIT_S = 1


class ConfigError(Exception):
    """A credential file that cannot be read, or a setting nats-py cannot use: one line for the person."""


def missing_extra() -> str | None:
    """Why sync cannot run here, or None when nats-py is installed."""
    try:
        import nats  # noqa: F401
    except ImportError:
        return needs_extra("sync", "sync")
    return None


def _secret(path: str, what: str) -> str:
    try:
        return Path(path).expanduser().read_text().strip()
    except OSError as exc:
        raise ConfigError(f"cannot read the {what} file {path}: {exc.strerror or exc}") from None


def options(config: SyncConfig) -> dict[str, Any]:
    """Keyword arguments for `nats.connect` (callbacks are the caller's)."""
    opts: dict[str, Any] = {
        "servers": list(config.servers),
        "name": f"lunavect {config.host}",
        "connect_timeout": CONNECT_TIMEOUT_S,
        "reconnect_time_wait": RECONNECT_WAIT_S,
        "max_reconnect_attempts": -1,
        "allow_reconnect": True,
    }
    if config.creds:
        if not Path(config.creds).expanduser().is_file():
            raise ConfigError(f"the credentials file {config.creds} does not exist")
        opts["user_credentials"] = str(Path(config.creds).expanduser())
    if config.user:
        opts["user"] = config.user
        opts["password"] = _secret(config.password_file, "password") if config.password_file else ""
    if config.token_file:
        opts["token"] = _secret(config.token_file, "token")
    if config.tls_ca:
        try:
            opts["tls"] = ssl.create_default_context(cafile=str(Path(config.tls_ca).expanduser()))
        except (OSError, ssl.SSLError) as exc:
            raise ConfigError(f"cannot use the TLS CA file {config.tls_ca}: {exc}") from None
    return opts
