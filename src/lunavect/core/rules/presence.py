"""Whether a session's client still runs, and which process shows it to its person.

Most clients run a session in the process the person sees: its hooks record that process (pid, start, tty),
and the session is open while it lives. Codex 0.169.0 hands an interactive thread to its managed app-server
daemon, which runs it (its hooks run there: they record the daemon) and outlives the TUI that shows it: the
daemon keeps a quit thread loaded for a minute or more. So the Codex reader finds the TUI of a thread its daemon
runs (`lunavect.clients.codex.terminals`) and says so as `terminal` evidence; from then on that process, not the
daemon, is the one the person sees: the session is open while it lives, `lunavect open` goes to its terminal, and
it has ended once it exits (a turn still running under the daemon goes on: the daemon's liveness decides that).
"""

from __future__ import annotations

from lunavect.core.model import Evidence, State
from lunavect.core.rules.facts import Decision, Facts

# The source of the evidence that names the process showing a session (its terminal client).
TERMINAL = "terminal"

# States that evidence keeps only while the client runs: with no process known to ask (a Codex session read
# from its rollout alone), the client that writes that evidence is open.
_RUNNING_STATES = frozenset({State.WORKING, State.COMPACTING, State.PERMISSION, State.INPUT, State.OFFLINE})


def fold_terminal(facts: Facts, ev: Evidence) -> None:
    """The process that shows the session now (a TUI of a thread Codex's daemon runs): kept beside the one its
    hooks recorded, which still decides whether the turn runs."""
    facts.terminal_pid, facts.terminal_pstart, facts.terminal_tty = ev.pid, ev.pstart, ev.tty


def forget_terminal(facts: Facts) -> None:
    """A new client took the session over (a resume, another runner): the terminal found before is not its."""
    facts.terminal_pid = facts.terminal_pstart = facts.terminal_tty = None


def shown_by(facts: Facts) -> tuple[int | None, float | None, str | None]:
    """The process the person sees the session in (pid, start, tty): its terminal client when one was found,
    else the process its hooks or its client's catalog recorded."""
    if facts.terminal_pid is not None:
        return facts.terminal_pid, facts.terminal_pstart, facts.terminal_tty
    return facts.pid, facts.pstart, facts.tty


def is_open(facts: Facts, decision: Decision, alive: bool | None, writer: bool | None = None) -> bool:
    """Whether the session's client still runs, from the evidence `lunavect open` uses: the process that shows
    it (`shown_by`; `alive` is that process's liveness, pid and start time) and SessionEnd. The writer proof
    (Codex still has the session's log open for writing) proves it too; with no process known at all, only a
    state that fresh evidence of a running client keeps says so. A saved title or an old catalog entry never
    does."""
    if facts.ended:
        return False
    if alive is not None:
        return alive
    return writer is True or decision.state in _RUNNING_STATES
