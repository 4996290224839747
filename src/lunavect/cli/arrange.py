"""The panel's row actions as commands, for scripts: `lunavect hide|unhide|pin|unpin|dismiss|undismiss|move|resume|
auto-hide`.

They write the same arrangement the panel writes (lunavect.listing.arrangement), so a script and an open panel never
disagree: the panel redraws as soon as one of these commits.
"""

from __future__ import annotations

import os
import re

import click

from lunavect.cli.common import (
    Failure,
    complete_session,
    fresh_store,
    json_option,
    open_store,
    print_json,
    session_key,
)
from lunavect.core.terminal_text import clean

_DURATION_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
# Automatic hiding between a minute (a shorter interval would hide a row while its person reads it) and a
# year (a longer one is "off" in all but name, and its number stops printing as a duration).
AUTO_HIDE_MIN_S = 60.0
AUTO_HIDE_MAX_S = 365 * 86400.0
_UNIT_S = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 7 * 86400.0}


def _arrange(action: str, session: str, as_json: bool) -> None:
    from lunavect.listing import arrangement

    conn = fresh_store()
    key = session_key(conn, session)
    try:
        changed = arrangement.act(conn, action, key)
    except arrangement.ArrangeError as exc:
        raise Failure(str(exc)) from None
    past = {
        "hide": "hidden",
        "unhide": "shown",
        "pin": "pinned",
        "unpin": "unpinned",
        "dismiss": "dismissed",
        "undismiss": "needs you again",
    }[action]
    if as_json:
        print_json({"id": key, "action": action, "changed": changed})
    elif changed:
        click.echo(f"{clean(key)}: {past}")
    else:
        click.echo(f"{clean(key)}: already {past if action not in ('unhide', 'undismiss') else 'so'}")


def _arrange_command(action: str, help_text: str) -> click.Command:
    """A command that does one of the panel's row actions to the session it names."""

    @click.command(action, help=help_text)
    @click.argument("session", shell_complete=complete_session)
    @json_option
    def command(session: str, as_json: bool) -> None:
        _arrange(action, session, as_json)

    return command


hide_command = _arrange_command(
    "hide", "Hide a session from the list (its work goes on and still counts in the totals)."
)
unhide_command = _arrange_command("unhide", "Restore a hidden session to the list.")
pin_command = _arrange_command("pin", "Pin a session: pinned sessions come first, in the order you give them.")
unpin_command = _arrange_command("unpin", "Unpin a session: it goes back among the others by its latest activity.")
dismiss_command = _arrange_command(
    "dismiss",
    "Dismiss a session's ready reply or error: it stays listed, but `next` and the bars pass it by until its next one.",
)
undismiss_command = _arrange_command(
    "undismiss", "Take a dismissal back: the session's reply or error needs you again."
)


@click.command("move")
@click.argument("session", shell_complete=complete_session)
@click.option(
    "--before", "before", metavar="ID", shell_complete=complete_session, help="Put the session just above this one."
)
@click.option(
    "--after", "after", metavar="ID", shell_complete=complete_session, help="Put the session just below this one."
)
@json_option
def move_command(session: str, before: str | None, after: str | None, as_json: bool) -> None:
    """Change a session's place in the list (within the pinned rows, or within the others)."""
    from lunavect.listing import arrangement

    if (before is None) == (after is None):
        raise click.UsageError("give exactly one of --before ID or --after ID")
    conn = fresh_store()
    key = session_key(conn, session)
    target = session_key(conn, before or after or "")
    try:
        if before is not None:
            changed = arrangement.move_before(conn, key, target)
        else:
            changed = arrangement.move_after(conn, key, target)
    except arrangement.ArrangeError as exc:
        raise Failure(str(exc)) from None
    side = "before" if before is not None else "after"
    if as_json:
        print_json({"id": key, "action": "move", "changed": changed, side: target})
        return
    where = f"{side} {target}"
    click.echo(clean(f"{key}: {'moved' if changed else 'already'} {where}"))


@click.command("resume")
@click.argument("session", shell_complete=complete_session)
@click.option("--print", "print_only", is_flag=True, help="Print the command instead of running it.")
def resume_command(session: str, print_only: bool) -> None:
    """Resume a session in its client, in its project folder, or attach to one its client runs in the background
    (or print the command that does)."""
    from lunavect.listing.sessions import read_sessions
    from lunavect.navigation import resume
    from lunavect.navigation.open_result import OpenResult

    conn = fresh_store()
    key = session_key(conn, session)
    found = next((s for s in read_sessions(conn, include_hidden=True) if s.id == key), None)
    if found is None or not found.resume:
        raise Failure(f"no resume command is known for {key}")
    from lunavect.core.resume_command import attach_command, ssh_argv, ssh_command
    from lunavect.navigation.remote_host import is_elsewhere, unsafe

    if is_elsewhere(found.host):
        # Another machine's session resumes there, through that machine's lunavect.
        problem = unsafe(found.host, found.id)
        if problem is not None:
            raise Failure(f"cannot resume {key} on another machine: {problem}")
        command = ssh_command(found.host, "resume", found.id)
        if print_only:
            click.echo(clean(command))
            return
        try:
            os.execvp("ssh", ssh_argv(found.host, "resume", found.id))
        except OSError as exc:
            raise Failure(f"cannot run `{clean(command)}`: {exc}") from None
    from lunavect.host.processes import LiveProcesses
    from lunavect.navigation import background
    from lunavect.navigation.navigate import background_job

    # A session its client runs in the background comes back through its attach command, running or stopped
    # (a resume would start a second copy of one that runs).
    job = background_job(found, LiveProcesses())
    if print_only:
        attach = attach_command(found.provider, job.job_id) if job is not None else None
        click.echo(clean(attach or found.resume))
        return
    # The same plan `lunavect open` follows: a deleted folder or a missing CLI is said in one line, never left
    # to a shell's `sh:` error.
    ready = background.plan(found, job) if job is not None else resume.plan(found.provider, found.session_id, found.cwd)
    if isinstance(ready, OpenResult):
        raise Failure(f"cannot resume {key}: {ready.message}")
    try:
        if ready.cwd:
            os.chdir(ready.cwd)
        os.execv(ready.cli, ready.argv)
    except OSError as exc:
        raise Failure(f"cannot run `{ready.display}`: {exc}") from None


def parse_duration(text: str) -> float:
    """Seconds in `90`, `30m`, `8h`, `1d` or `2w`, bounded to what automatic hiding can mean (a bad one is bad
    usage: exit 2)."""
    match = _DURATION_RE.match(text.lower())
    if not match:
        raise click.BadParameter(f"not a duration: {text[:40]!r} (try 30m, 8h, 1d or 2w)", param_hint="INTERVAL")
    seconds = float(match.group(1)) * _UNIT_S[match.group(2)]
    if not AUTO_HIDE_MIN_S <= seconds <= AUTO_HIDE_MAX_S:
        raise click.BadParameter(
            f"the interval must be between 1m and 365d, not {text.strip()[:40]!r}", param_hint="INTERVAL"
        )
    return seconds


def describe_duration(seconds: float) -> str:
    for unit, size in (("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{int(seconds // size)}{unit}"
    return f"{seconds:g}s"


@click.command("auto-hide")
@click.argument("interval", required=False)
@json_option
def auto_hide_command(interval: str | None, as_json: bool) -> None:
    """Show or set automatic hiding: `off`, or hide inactive sessions after e.g. `8h` or `3d`.

    Working, waiting and unknown sessions are never hidden automatically.
    """
    from lunavect.listing import arrangement
    from lunavect.listing.sessions import auto_hide_after

    conn = open_store()
    if interval is not None:
        seconds = None if interval.strip().lower() in ("off", "none", "0") else parse_duration(interval)
        arrangement.set_auto_hide_after(conn, seconds)
    current = auto_hide_after(conn)
    if as_json:
        print_json({"auto_hide_after_s": current})
    elif current is None:
        click.echo("automatic hiding: off")
    else:
        click.echo(f"automatic hiding: inactive sessions after {describe_duration(current)}")


COMMANDS = (
    hide_command,
    unhide_command,
    pin_command,
    unpin_command,
    dismiss_command,
    undismiss_command,
    move_command,
    resume_command,
    auto_hide_command,
)
