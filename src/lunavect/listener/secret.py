"""The per-install secret that Claude Code's HTTP hooks present to the collector's listener.

The listener binds loopback only, but any local program could reach loopback: the secret (in the data
folder, mode 0600, written into the person's own Claude settings) proves a request comes from a hook
that this person installed. One owner: the listener checks it, `hooks install --http` writes it.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

SECRET_FILE_NAME = "hook-secret"


def secret_path(data_dir: Path) -> Path:
    return data_dir / SECRET_FILE_NAME


def load_or_create(data_dir: Path) -> str:
    """The secret, created once (O_EXCL, 0600) so two starting processes agree on one value."""
    path = secret_path(data_dir)
    data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        value = path.read_text(encoding="ascii").strip()
        if len(value) >= 32:
            os.chmod(path, 0o600)  # a copied or restored file must not stay readable by others
            return value
        path.unlink()
        return load_or_create(data_dir)
    value = secrets.token_hex(32)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(value + "\n")
    return value
