"""kitty: focus the window whose child process is the agent's shell, through kitty's remote control.

kitty answers only when remote control is on and it listens on a socket (`allow_remote_control` and
`listen_on` in kitty.conf); the socket is found among the kitty process's own open sockets, never from an
environment. The window is matched by the pid of its child process, which is the agent's nearest parent
under kitty: one window, exactly.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals.runner import Reply, run

GRANT = "kitty.conf: `allow_remote_control socket-only` and `listen_on unix:/tmp/kitty`, then restart kitty"


def socket_address(paths: list[str]) -> str | None:
    """kitty's `--to` address from the sockets its process has open (a path, or an abstract `@name`)."""
    for path in paths:
        if path.startswith("@"):
            return f"unix:{path}"
    for path in paths:
        if path.startswith("/"):
            return f"unix:{path}"
    return None


def focus_argv(address: str, window_pid: int) -> list[str]:
    return ["kitty", "@", "--to", address, "focus-window", "--match", f"pid:{window_pid}"]


def focus(address: str | None, window_pid: int, runner: Callable[[list[str]], Reply] = run) -> OpenResult:
    if address is None:
        return OpenResult(Outcome.PERMISSION, "kitty does not listen for remote control", terminal="kitty", grant=GRANT)
    reply = runner(focus_argv(address, window_pid))
    if reply.ok:
        return OpenResult(
            Outcome.FOCUSED,
            f"kitty window of pid {window_pid} is in front",
            terminal="kitty",
            target=f"pid:{window_pid}",
        )
    if reply.failure == "missing":
        return OpenResult(Outcome.UNSUPPORTED, "the kitty command is not on PATH", terminal="kitty")
    if reply.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, "kitty did not answer within 10 s", terminal="kitty")
    line = reply.error_line
    lowered = line.lower()
    if "no matching" in lowered:
        return OpenResult(Outcome.GONE, "the kitty window is gone", terminal="kitty", target=f"pid:{window_pid}")
    if "remote control" in lowered or "password" in lowered or "denied" in lowered:
        return OpenResult(Outcome.PERMISSION, f"kitty refused remote control: {line}", terminal="kitty", grant=GRANT)
    return OpenResult(Outcome.FAILED, f"kitty: {line}", terminal="kitty")
