"""`lunavect open ID`: return to a session's exact terminal pane or tab, or resume it when it has finished; and
`lunavect next`: the same for the session that needs its person most.

Both are thin shells around `lunavect.navigation.navigate.open_session`, the same function the panel's Enter
and row menu call, so every front end says the same thing for the same outcome; `next` only chooses the
session first (`lunavect.listing.attention.needs_person`, the one rule every front end's "next" follows).
"""

from __future__ import annotations

import os
import sqlite3
from typing import TYPE_CHECKING

import click
import msgspec

from lunavect.cli.common import Failure, complete_session, fresh_store, print_outcome, session_key
from lunavect.core.terminal_text import clean

if TYPE_CHECKING:
    from lunavect.core.model import Session

RESUME_IN = click.option(
    "--resume-in",
    type=click.Choice(["print", "clipboard", "tmux", "terminal"]),
    default=None,
    help="For a finished session, or one its client runs in the background: print the command that resumes or "
    "attaches to it (the default), copy it, or run it in a new tmux window or terminal window.",
)
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")


def open_key(
    conn: sqlite3.Connection, key: str, named: str, resume_in: str | None, as_json: bool, attach: bool = False
) -> None:
    """Open the session `key` (as the person `named` it) and say what happened, exiting 1 when it failed."""
    from lunavect.listing.sessions import all_sessions, find_session
    from lunavect.navigation.navigate import open_session

    # Another machine's session (sync) is found too: its own machine opens it.
    found = find_session(conn, key)
    if found is None:  # its row turned unreadable between the reads
        raise Failure(f"no session {named!r} (see `lunavect list --all`)")
    others = [s for s in all_sessions(conn) if s.id != found.id]
    if attach:
        attach_here(found, others, as_json)
        return
    try:
        result = open_session(found, resume_in=resume_in, others=others)
    except OSError as exc:
        raise Failure(f"cannot open {found.id}: {exc}") from None
    detail = result.message
    if result.grant:
        detail += f" (allow it in {result.grant})"
    if result.candidates:
        detail += " [" + "; ".join(result.candidates) + "]"
    print_outcome(result, as_json, detail)


def attach_here(found: Session, others: list[Session], as_json: bool) -> None:
    """`open --attach`: this terminal becomes a tmux client on the session's pane (or its resumed client);
    only a refusal comes back, said as `open` says any failure."""
    from lunavect.host.processes import LiveProcesses
    from lunavect.navigation import attach_here as attaching

    done = attaching.plan(found, LiveProcesses(), os.environ, others)
    if isinstance(done, attaching.Takeover):
        try:
            attaching.take_over(done)
        except OSError as exc:
            raise Failure(f"cannot run `{clean(done.display)}`: {exc}") from None
        return
    detail = done.message + (" [" + "; ".join(done.candidates) + "]" if done.candidates else "")
    if done.command:
        detail += f" (instead: {done.command})"
    print_outcome(done, as_json, detail)


@click.command("open")
@click.argument("session_id", metavar="ID", shell_complete=complete_session)
@RESUME_IN
@click.option(
    "--attach",
    is_flag=True,
    help="Make this terminal a tmux client showing the session's own pane, with its window and pane selected "
    "(what another machine's `open` runs over `ssh -t`), or resume it here once it has finished; refused, with "
    "the reason, when the session is in no tmux pane of this machine.",
)
@AS_JSON
def open_command(session_id: str, resume_in: str | None, attach: bool, as_json: bool) -> None:
    """Bring a session's exact terminal pane or tab to the front, or resume it if it has finished.

    ID is a session's id as `lunavect list --json` prints it (`claude:<id>`, `codex:<id>`), its bare
    session id, or a prefix of either that names one session; hidden sessions can be named too.

    \b
    Examples:
      lunavect open claude:5e55e55e
      lunavect open 5e55 --resume-in tmux
      lunavect open claude:5e55e55e --attach
    """
    if attach and resume_in is not None:
        raise click.UsageError("--attach resumes a finished session in this terminal: give it without --resume-in")
    conn = fresh_store()
    open_key(conn, session_key(conn, session_id), session_id, resume_in, as_json, attach)


@click.command("next")
@click.option("--print", "print_only", is_flag=True, help="Only name the session and the command that opens it.")
@RESUME_IN
@AS_JSON
def next_command(print_only: bool, resume_in: str | None, as_json: bool) -> None:
    """Open the session that needs you most, exactly as `lunavect open` would.

    A permission prompt first, then a question or form, then a failed turn of an open session that is not
    hidden; within each, the one that has waited longest (docs, "What needs you"). A ready reply waits for
    nobody. With nothing waiting, says so and exits 1.

    \b
    Examples:
      lunavect next
      lunavect next --print
      lunavect next --json
    """
    from lunavect.frontends.rows import label
    from lunavect.listing.attention import NOTHING_WAITS, needs_person
    from lunavect.listing.sessions import read_counted

    conn = fresh_store()
    waiting = needs_person(read_counted(conn))
    if not waiting:
        if as_json:
            click.echo(msgspec.json.encode({"outcome": "nothing", "message": NOTHING_WAITS}).decode())
            raise SystemExit(1)
        raise Failure(NOTHING_WAITS)
    chosen = waiting[0]
    if print_only:
        command = f"lunavect open {chosen.id}"
        if as_json:
            click.echo(msgspec.json.encode({"id": chosen.id, "state": chosen.state, "command": command}).decode())
        else:
            click.echo(f"{label(chosen)} · {command}")
        return
    open_key(conn, chosen.id, chosen.id, resume_in, as_json)


COMMANDS: tuple[click.Command, ...] = (open_command, next_command)
