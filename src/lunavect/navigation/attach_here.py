"""`lunavect open ID --attach`: put this terminal itself on the session's tmux pane, on the machine where the
session runs, or resume it here once it has ended.

This is what another machine's `open` runs over `ssh -t HOST lunavect open ID --attach` (`remote_host`): the
person sits at that other machine, so focusing a pane on this machine's own tmux clients would show it to
nobody. The terminal ssh gave this command becomes a tmux client of the pane's server instead, with exactly
that window and pane selected (`tmux.grouped_attach_argv` says why a grouped session).

It fails closed, as returning to a task does everywhere: the pane is the live one on the terminal device the
session's own evidence places it on (`navigate.whereabouts`, `navigate.tmux_pane`: this user's tmux servers
only), and anything short of that proof is refused with its reason: another machine's row, a session on no
tmux pane, in an app, in the background under its client, one of several that fit, a command not run in a
terminal or already inside tmux. A session that has ended is resumed in this terminal, with the same plan
`lunavect resume` follows.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lunavect.core.clients import by_id
from lunavect.core.resume_command import shell_words
from lunavect.host.processes import ProcessTable
from lunavect.navigation import background, navigate, remote_host, resume
from lunavect.navigation.locate import SessionLike, Status
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals import tmux


@dataclass(frozen=True)
class Takeover:
    """A program that replaces this command in its terminal: `argv` run in `cwd`."""

    argv: list[str]
    cwd: str | None
    display: str  # the command as a person would type it


def _refused(outcome: Outcome, message: str, command: str | None = None) -> OpenResult:
    return OpenResult(outcome, f"cannot attach: {message}", command=command)


def _terminal(isatty: Callable[[int], bool]) -> bool:
    try:
        return isatty(0) and isatty(1)
    except OSError:
        return False


def plan(
    session: SessionLike,
    table: ProcessTable,
    environ: Mapping[str, str],
    others: Sequence[SessionLike] = (),
    isatty: Callable[[int], bool] = os.isatty,
) -> Takeover | OpenResult:
    """What this terminal becomes for `session`: a tmux client on its pane, its resume command, or a refusal."""
    host = getattr(session, "host", None)
    if host and remote_host.is_elsewhere(host):
        return _refused(Outcome.UNSUPPORTED, f"it runs on {host}; --attach opens a session of this machine only")
    if not _terminal(isatty):
        return _refused(Outcome.UNSUPPORTED, "this command does not run in a terminal (over ssh, give `ssh -t`)")
    job = navigate.background_job(session, table)
    if job is not None and job.live:
        client = by_id(session.provider)
        why = background.described(job, client.name if client is not None else session.provider)
        found = background.plan(session, job)
        command = found.command if isinstance(found, OpenResult) else found.display
        return _refused(Outcome.UNSUPPORTED, f"{why}, in no tmux pane", command=command)
    where = navigate.whereabouts(session, table, others)
    if where.status == Status.LIVE:
        pane = navigate.tmux_pane(where, table, environ)
        if pane is None:
            return _refused(Outcome.UNSUPPORTED, f"it runs on {where.tty}, which is no live tmux pane of this user's")
        if environ.get("TMUX"):
            # tmux refuses to nest a client in one of its own panes; the plain open switches this client instead.
            return _refused(
                Outcome.UNSUPPORTED, f"this terminal is inside tmux already; `lunavect open {session.id}` shows it here"
            )
        argv = tmux.grouped_attach_argv(pane)
        return Takeover(argv, None, shell_words(argv))
    if where.status == Status.NO_TERMINAL:
        return _refused(Outcome.UNSUPPORTED, f"it runs in {where.app or 'an app without a terminal'}, in no tmux pane")
    if where.status == Status.AMBIGUOUS:
        return navigate.ambiguous(where, "cannot attach: ")
    why = f"the session has finished ({where.detail})"
    ready = (
        background.plan(session, job)
        if job is not None
        else resume.plan(session.provider, session.session_id, session.cwd)
    )
    if isinstance(ready, OpenResult):
        return OpenResult(ready.outcome, f"{why}; {ready.message}", command=ready.command)
    return Takeover(ready.argv, ready.cwd, ready.display)


def take_over(takeover: Takeover) -> None:
    """Replace this process with the plan's program (returns only by raising OSError)."""
    if takeover.cwd:
        os.chdir(takeover.cwd)
    os.execvp(takeover.argv[0], takeover.argv)
