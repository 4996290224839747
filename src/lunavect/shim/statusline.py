"""The status-line wrapper Claude Code runs (installed only by `lunavect hooks install --statusline`).

Claude Code pipes one JSON object to its status-line command at each redraw; since 2.1.80 it holds
`rate_limits.five_hour` and `.seven_day` (`used_percentage`, `resets_at`) for subscribers. This wrapper keeps
those numbers (and nothing else of the input) in `<data folder>/limits/claude.json`, then runs the person's
own status-line command with the very same stdin, its stdout and stderr passed straight through (never
read), and exits with its exit code: what the person sees is byte for byte what their command prints.
Recording never fails the status line: any error there is swallowed. Started like the hook shim, without
`site`, stdlib only.

It runs at every redraw, so it costs what the hook shim costs and no more (bench/statusline.py): no `json`
(its `re` import), no `tempfile`, no `subprocess`. It becomes the person's command (`exec /bin/sh -c`) with
the input waiting in a pipe, so no process of lunavect's stays between the client and that command.
"""

from __future__ import annotations

import os
import sys
import time

from lunavect.core import limit_history
from lunavect.core.bounds import bounded, percent
from lunavect.shim.jsoncodec import json_dumps, json_loads
from lunavect.shim.spoolfile import data_dir

LIMITS_DIR = "limits"
_WINDOWS = ("five_hour", "seven_day")
# The windows' lengths, which the input does not state.
_MINUTES = {"five_hour": 300, "seven_day": 10080}
# A pipe holds at least this much everywhere lunavect runs (Linux 64 KiB, macOS 16 KiB): an input this size is
# left whole in the pipe before the person's command starts; a larger one is fed by a writer process.
_PIPE_HOLDS = 16 * 1024
# The most of the kept file read back (what `usage.limits` reads too): its history is at most some 10 KB.
_FILE_HOLDS = 64 * 1024
SHELL = "/bin/sh"


def limits_of(data: bytes, now: float) -> dict | None:
    """The rate-limit windows of one status-line input, in `usage.limits.Limits` form; None when absent.

    This is where the figures enter lunavect, so each is checked here once (`core.bounds`): a window whose
    `used_percentage` is no percent from 0 to 100 is not kept, and a `resets_at` that is no time in seconds
    within the believed range (1e300, or a millisecond value such as 1.8e12) is left out, keeping the window
    without its reset."""
    try:
        payload = json_loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    limits = payload.get("rate_limits") if isinstance(payload, dict) else None
    if not isinstance(limits, dict):
        return None
    found: dict = {"at": now}
    for name, side in zip(_WINDOWS, ("primary", "secondary"), strict=True):
        window = limits.get(name)
        used = percent(window.get("used_percentage")) if isinstance(window, dict) else None
        if used is None or not isinstance(window, dict):
            continue
        entry: dict = {"used_percent": used, "window_minutes": _MINUTES[name]}
        resets = bounded(window.get("resets_at"))
        if resets is not None:
            entry["resets_at"] = resets
        found[side] = entry
    return found if len(found) > 1 else None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _history(path: str) -> list:
    """The recent figures the file kept (`core.limit_history`), each checked again; none when it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return []
    try:
        raw = os.read(fd, _FILE_HOLDS)
    finally:
        os.close(fd)
    try:
        kept = json_loads(raw.decode("utf-8"))
    except (ValueError, RecursionError):
        return []
    return limit_history.checked(kept.get("history")) if isinstance(kept, dict) else []


def record(data: bytes, now: float, folder: str | None = None) -> None:
    """Keep the input's windows with their recent figures (what the pace of the last hour is read from),
    replacing the file in one rename (a reader never sees half of it)."""
    limits = limits_of(data, now)
    if limits is None:
        return
    folder = folder or os.path.join(data_dir(), LIMITS_DIR)
    point = (now, limits.get("primary", {}).get("used_percent"), limits.get("secondary", {}).get("used_percent"))
    history = limit_history.merged(_history(os.path.join(folder, "claude.json")), point)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    tmp = os.path.join(folder, f".claude.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        try:
            text = json_dumps(limits)
            _write_all(fd, (text[:-1] + ',"history":' + limit_history.as_json(history) + "}").encode())
        finally:
            os.close(fd)
        os.replace(tmp, os.path.join(folder, "claude.json"))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _default_signals() -> None:
    """Python ignores SIGPIPE and SIGXFSZ, and an ignored signal stays ignored across exec: the person's
    command gets them back at their default, as it would without lunavect."""
    try:
        import _signal  # type: ignore[import-not-found]  # `signal` itself imports enum: several ms
    except ImportError:
        return
    for name in ("SIGPIPE", "SIGXFSZ"):
        number = getattr(_signal, name, None)
        if number is not None:
            _signal.signal(number, _signal.SIG_DFL)


def become(command: str, data: bytes) -> None:
    """Replace this process by `/bin/sh -c command` reading `data` on its stdin; stdout, stderr and the exit
    code are the command's own."""
    read_end, write_end = os.pipe()
    if len(data) <= _PIPE_HOLDS:
        _write_all(write_end, data)
    elif os.fork() == 0:  # the writer: feeds the pipe while the command reads, then goes
        os.close(read_end)
        try:
            _write_all(write_end, data)
        except OSError:
            pass  # the command stopped reading
        os._exit(0)
    os.close(write_end)
    os.dup2(read_end, 0)
    os.close(read_end)
    _default_signals()
    os.execv(SHELL, [SHELL, "-c", command])


def main(argv: list[str] | None = None) -> None:
    """`statusline [COMMAND]`: record, then become COMMAND (the person's own) with the same stdin."""
    args = sys.argv[1:] if argv is None else argv
    data = sys.stdin.buffer.read()
    try:
        record(data, time.time())
    except Exception:  # noqa: BLE001, S110 - the status line never fails for lunavect's sake
        pass
    if not args or not args[0]:
        sys.exit(0)
    become(args[0], data)
