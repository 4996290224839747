"""Running one scripting request against a terminal, with the limits every request shares.

Each request gets 10 seconds (the guide: "Each scripting request has a 10-second timeout"); a missing
program, a timeout and a failure come back as values, never as exceptions, so each caller can turn them
into its own distinct message.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass

REQUEST_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class Reply:
    """What one request gave: `ok`, its output, or why it failed (`missing`, `timeout`, `failed`)."""

    ok: bool
    stdout: str = ""
    stderr: str = ""
    failure: str | None = None
    code: int | None = None

    @property
    def error_line(self) -> str:
        """The first non-empty line of the error output, for a one-line message."""
        for line in (self.stderr or self.stdout).splitlines():
            if line.strip():
                return line.strip()[:300]
        return f"exit code {self.code}" if self.code is not None else (self.failure or "failed")


def listed_ids(listing: str, key: str, value: object, id_key: str, id_type: type) -> list:
    """The `id_key` of each entry of a JSON list (a terminal's or window manager's listing) whose `key` is
    `value`, where that id is an `id_type`. A reply that is not JSON, not a list, or has other entries finds
    nothing rather than raising: the listing comes from another program, whatever its version prints."""
    try:
        data = json.loads(listing)
    except ValueError:
        return []
    if not isinstance(data, list):
        return []
    return [
        entry[id_key]
        for entry in data
        if isinstance(entry, dict) and entry.get(key) == value and isinstance(entry.get(id_key), id_type)
    ]


def run(argv: list[str], timeout: float = REQUEST_TIMEOUT_S, env: dict[str, str] | None = None) -> Reply:
    """Run `argv` without a terminal of its own; never raises."""
    if not argv or shutil.which(argv[0], path=(env or os.environ).get("PATH")) is None:
        return Reply(False, failure="missing")
    try:
        proc = subprocess.run(
            argv,
            capture_output=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Reply(False, failure="timeout")
    except OSError as exc:
        return Reply(False, stderr=str(exc), failure="failed")
    except ValueError as exc:  # an argument no program can be given: a NUL, or text the system cannot encode
        return Reply(False, stderr=str(exc), failure="failed")
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        return Reply(False, stdout, stderr, failure="failed", code=proc.returncode)
    return Reply(True, stdout, stderr, code=0)
