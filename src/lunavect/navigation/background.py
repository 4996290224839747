"""Returning to a session its client runs in the background, apart from any terminal (Claude Code's `claude --bg`).

Such a session's process holds a terminal of its client's service, not the person's: the pane that launched it
only printed its job id, and focusing either would put the person in front of the wrong thing. Its way back
is the client's own command, `claude attach <job id>`, run as `--resume-in` says: in a new tmux window, in a
new terminal window, copied, or printed (the default, as for a finished session: nothing opens behind the
person's back). The job's id and name are the client's word (its live catalog and jobs folder, read through its
face), checked where they entered; the command is made of words, never of text a file supplied.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping

from lunavect.core.clients import by_id
from lunavect.core.resume_command import attach_args, attach_command
from lunavect.evidence.sources import BackgroundJob
from lunavect.navigation import resume
from lunavect.navigation.locate import SessionLike
from lunavect.navigation.open_result import OpenResult, Outcome

ATTACHED = "attached"


def described(job: BackgroundJob, client_name: str) -> str:
    """How the session is named in a message: its client's background session, its job and its name."""
    named = f' "{job.name}",' if job.name else ""
    return f"it runs in the background under {client_name}{named} job {job.job_id}"


def plan(
    session: SessionLike, job: BackgroundJob, which: Callable[[str], str | None] = shutil.which
) -> resume.ResumePlan | OpenResult:
    """The attach command as a plan to run, or an UNAVAILABLE result naming what is missing."""
    client = by_id(session.provider)
    args = attach_args(session.provider, job.job_id)
    display = attach_command(session.provider, job.job_id)
    if client is None or args is None or display is None:
        return OpenResult(Outcome.UNAVAILABLE, f"lunavect does not know how to attach to {session.provider} sessions")
    cli = which(client.cli.command)
    if cli is None:
        return OpenResult(
            Outcome.UNAVAILABLE,
            f"the `{client.cli.command}` command is not on PATH, so it cannot attach",
            command=display,
        )
    # The job needs no folder; its project's, while it exists, is where a shell after it would be useful.
    cwd = session.cwd if session.cwd and os.path.isdir(session.cwd) else None
    return resume.ResumePlan(cli=cli, args=args, cwd=cwd, display=display)


def open_attached(
    session: SessionLike, job: BackgroundJob, resume_in: str | None, environ: Mapping[str, str]
) -> OpenResult:
    """A running background session: its attach command, run as asked (printed when nothing was asked)."""
    client = by_id(session.provider)
    why = described(job, client.name if client is not None else session.provider)
    found = plan(session, job)
    if isinstance(found, OpenResult):
        return OpenResult(found.outcome, f"{why}; {found.message}", command=found.command)
    return run(found, resume_in, environ, why)


def resume_stopped(
    session: SessionLike, job: BackgroundJob, why: str, resume_in: str | None, environ: Mapping[str, str]
) -> OpenResult:
    """A background session whose process has ended (`claude stop`): the same command starts it again and
    attaches to it, as the client itself advises."""
    found = plan(session, job)
    if isinstance(found, OpenResult):
        return OpenResult(found.outcome, f"{why}; {found.message}", command=found.command)
    return run(found, resume_in, environ, why, ask="resume it with")


def run(
    p: resume.ResumePlan,
    resume_in: str | None,
    environ: Mapping[str, str],
    why: str,
    ask: str = "attach to it with",
) -> OpenResult:
    """The attach command run in a new tmux or terminal window, copied, or (by default) printed."""
    return resume.deliver(p, resume_in, environ, why, done=ATTACHED, what="the attach command", ask=ask)
