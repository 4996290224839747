"""`notify.command`: a program of the person's choosing, run with each notification as JSON on its stdin, so
that a notification can go to ntfy, Pushover, Telegram or a phone without lunavect knowing each one.

The command line is split as a shell would split it but never run through a shell; its output is discarded;
it gets `COMMAND_TIMEOUT_S` and is killed after that. A failure is a value for the log, never an exception.
"""

from __future__ import annotations

import json
import shlex
import subprocess

from lunavect.notify.decide import Notification

COMMAND_TIMEOUT_S = 10.0


def run_command(command: str, note: Notification, timeout: float = COMMAND_TIMEOUT_S) -> str | None:
    """Run the hook; None when it exited 0, else a one-line reason."""
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        return f"notify.command cannot be split: {exc}"
    if not argv:
        return "notify.command is empty"
    payload = json.dumps(note.as_dict()).encode()
    try:
        done = subprocess.run(
            argv,
            input=payload,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
            check=False,
            start_new_session=True,
        )
    except FileNotFoundError:
        return f"notify.command: {argv[0]} not found"
    except subprocess.TimeoutExpired:
        return f"notify.command: {argv[0]} did not finish within {timeout:g} s"
    except OSError as exc:
        return f"notify.command: {exc}"
    return None if done.returncode == 0 else f"notify.command: {argv[0]} exited with {done.returncode}"
