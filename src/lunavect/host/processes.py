"""Process facts: is the agent that reported a session still the same live process?

A pid alone is not an identity (the system reuses pids), so liveness compares the start time the hook
shim recorded with the running process's own. Only executable names, parents and start times are read:
never arguments, environments or memory.
"""

from __future__ import annotations

import psutil

# The shim rounds start times to 1/100 s and computes them from the same kernel clock as psutil; a reused
# pid would have started at another time entirely.
START_TIME_TOLERANCE_S = 1.0


def is_alive(pid: int | None, start_time: float | None) -> bool | None:
    """True/False when the process is known to be (not) the same live process; None when unknown."""
    if pid is None:
        return None
    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return False
        created = proc.create_time()
    except psutil.NoSuchProcess:
        return False
    except (psutil.AccessDenied, OSError):
        return None
    if start_time is None:
        return True
    return abs(created - start_time) <= START_TIME_TOLERANCE_S
