"""Test-only hook command: append the hook payload (stdin JSON) to a JSON-lines file.

Usage (as a hook command):  python3 hook_capture.py /path/to/hooks.jsonl

Each line is ``{"payload": <stdin JSON or raw text>, "meta": {...}}`` where ``meta`` records
what a hook shim can see about its own process: pid, ppid, ancestors (pid, comm, exe,
cmdline, tty), its controlling tty, the time, and a few environment variables.
Standard library only; always exits 0 and prints nothing.
"""

from __future__ import annotations

import json
import os
import sys
import time


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return None


def _proc(pid: int) -> dict:
    info: dict = {"pid": pid}
    stat = _read(f"/proc/{pid}/stat")
    if stat:
        rest = stat[stat.rfind(")") + 2 :].split()
        info["comm"] = stat[stat.find("(") + 1 : stat.rfind(")")]
        info["ppid"] = int(rest[1])
        info["tty_nr"] = int(rest[4])
        info["starttime"] = int(rest[19])
    try:
        info["exe"] = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        info["exe"] = None
    cmd = _read(f"/proc/{pid}/cmdline")
    info["cmdline"] = cmd.split("\0")[:-1] if cmd else None
    try:
        info["fd0"] = os.readlink(f"/proc/{pid}/fd/0")
    except OSError:
        info["fd0"] = None
    return info


def _ancestors(pid: int, limit: int = 12) -> list[dict]:
    out = []
    while pid > 1 and len(out) < limit:
        p = _proc(pid)
        out.append(p)
        pid = p.get("ppid", 0)
    return out


def main() -> int:
    out = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("LV_HOOK_CAPTURE", "hooks.jsonl")
    raw = sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = raw
    try:
        tty = os.ttyname(0)
    except OSError:
        tty = None
    try:
        with open("/dev/tty"):
            has_ctty = True
    except OSError:
        has_ctty = False
    meta = {
        "time": time.time(),
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "stdin_tty": tty,
        "has_controlling_tty": has_ctty,
        "sid": os.getsid(0),
        "pgid": os.getpgid(0),
        "ancestors": _ancestors(os.getppid()),
        "env": {
            k: os.environ.get(k)
            for k in (
                "CLAUDE_CODE_SESSION_ID",
                "CLAUDE_PROJECT_DIR",
                "TMUX",
                "TMUX_PANE",
                "TERM",
                "CLAUDECODE",
                "CLAUDE_CODE_ENTRYPOINT",
                "CLAUDE_EFFORT",
                "PWD",
            )
            if k in os.environ
        },
    }
    line = json.dumps({"payload": payload, "meta": meta}) + "\n"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.write(fd, line.encode())
    finally:
        os.close(fd)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:  # never disturb the client
        sys.exit(0)
