"""The status-line wrapper Claude Code runs (installed only by `lunavect hooks install --statusline`).

Claude Code pipes one JSON object to its status-line command at each redraw; since 2.1.80 it holds
`rate_limits.five_hour` and `.seven_day` (`used_percentage`, `resets_at`) for subscribers. This wrapper keeps
those numbers (and nothing else of the input) in `<data folder>/limits/claude.json`, then runs the person's
own status-line command with the very same stdin, its stdout and stderr passed straight through (never
read), and exits with its exit code: what the person sees is byte for byte what their command prints.
Recording never fails the status line: any error there is swallowed. Started like the hook shim, without
`site`, stdlib only.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

from lunavect.shim.spoolfile import data_dir

LIMITS_DIR = "limits"
_WINDOWS = ("five_hour", "seven_day")
# The windows' lengths, which the input does not state.
_MINUTES = {"five_hour": 300, "seven_day": 10080}


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def limits_of(data: bytes, now: float) -> dict | None:
    """The rate-limit windows of one status-line input, in `usage.limits.Limits` form; None when absent."""
    try:
        payload = json.loads(data)
    except (ValueError, RecursionError):
        return None
    limits = payload.get("rate_limits") if isinstance(payload, dict) else None
    if not isinstance(limits, dict):
        return None
    found: dict = {"at": now}
    for name, side in zip(_WINDOWS, ("primary", "secondary"), strict=True):
        window = limits.get(name)
        used = _number(window.get("used_percentage")) if isinstance(window, dict) else None
        if used is None or not isinstance(window, dict):
            continue
        entry: dict = {"used_percent": used, "window_minutes": _MINUTES[name]}
        resets = _number(window.get("resets_at"))
        if resets is not None:
            entry["resets_at"] = resets
        found[side] = entry
    return found if len(found) > 1 else None


def record(data: bytes, now: float, folder: str | None = None) -> None:
    """Keep the input's windows, replacing the file in one rename (a reader never sees half of it)."""
    limits = limits_of(data, now)
    if limits is None:
        return
    folder = folder or os.path.join(data_dir(), LIMITS_DIR)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".claude.", dir=folder)
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(limits, f)
        os.replace(tmp, os.path.join(folder, "claude.json"))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def main(argv: list[str] | None = None) -> None:
    """`statusline [COMMAND]`: record, then run COMMAND (the person's own) with the same stdin."""
    args = sys.argv[1:] if argv is None else argv
    data = sys.stdin.buffer.read()
    try:
        record(data, time.time())
    except Exception:  # noqa: BLE001, S110 - the status line never fails for lunavect's sake
        pass
    if not args or not args[0]:
        sys.exit(0)
    sys.stdout.flush()
    completed = subprocess.run(args[0], shell=True, input=data, check=False)  # noqa: S602 - the person's command
    sys.exit(completed.returncode if completed.returncode >= 0 else 1)
