"""Opening a session that runs on another machine (sync): its pids and terminals are that machine's, so the
way back is `ssh HOST -t lunavect open ID`, which has that machine's collector focus its own pane (or resume
the session there). Inside tmux it runs in a new window; elsewhere it is printed for the person to run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from lunavect.core import tmux_text
from lunavect.core.resume_command import ssh_command
from lunavect.host.name import machine_name
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals.runner import Reply, run


def sync_host() -> str | None:
    """This machine's sync host name, or None when sync is off (then every row is this machine's)."""
    from lunavect import store
    from lunavect.sync.presence import local_host

    try:
        conn = store.connect()
    except (store.StoreError, OSError):
        return None
    try:
        return local_host(conn)
    finally:
        conn.close()


def is_elsewhere(host: str | None) -> bool:
    """True for a row of another machine: only sync brings those, and they carry another host's name."""
    if not host:
        return False
    own = sync_host()
    return own is not None and host not in (own, machine_name())


def open_remote(
    host: str, session_id: str, environ: Mapping[str, str], runner: Callable[[list[str]], Reply] = run
) -> OpenResult:
    command = ssh_command(host, "open", session_id)
    tmux = environ.get("TMUX", "")
    if not tmux:
        return OpenResult(Outcome.RESUME, f"it runs on {host}; open it there with: {command}", command=command)
    parts = tmux.split(",")
    target = ["-t", f"${parts[2]}:"] if len(parts) >= 3 and parts[2].isdigit() else []
    reply = runner(
        [
            "tmux",
            "-S",
            parts[0],
            "new-window",
            *target,
            "-P",
            "-F",
            "#{session_name}:#{window_index}",
            tmux_text.argument(command),
        ]
    )
    if not reply.ok:
        why = "tmux did not answer within 10 s" if reply.failure == "timeout" else f"tmux: {reply.error_line}"
        return OpenResult(Outcome.FAILED, f"{why}; open it on {host} with: {command}", terminal="tmux", command=command)
    where = reply.stdout.strip()
    return OpenResult(
        Outcome.RESUMED, f"opened on {host} in tmux window {where}: {command}", terminal="tmux", command=command
    )
