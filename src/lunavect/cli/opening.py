"""`lunavect open ID`: return to a session's exact terminal pane or tab, or resume it when it has finished; and
`lunavect next`: the same for the session that needs its person most.

Both are thin shells around `lunavect.navigation.navigate.open_session`, the same function the panel's Enter
and row menu call, so every front end says the same thing for the same outcome; `next` only chooses the
session first (`lunavect.listing.attention.needs_person`, the one rule every front end's "next" follows).
"""

from __future__ import annotations

import sqlite3

import click
import msgspec

from lunavect.cli.common import Failure, complete_session, fresh_store, print_outcome, session_key

RESUME_IN = click.option(
    "--resume-in",
    type=click.Choice(["print", "clipboard", "tmux", "terminal"]),
    default=None,
    help="For a finished session, or one its client runs in the background: print the command that resumes or "
    "attaches to it (the default), copy it, or run it in a new tmux window or terminal window.",
)
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")


def open_key(conn: sqlite3.Connection, key: str, named: str, resume_in: str | None, as_json: bool) -> None:
    """Open the session `key` (as the person `named` it) and say what happened, exiting 1 when it failed."""
    from lunavect.listing.sessions import all_sessions
    from lunavect.navigation.navigate import open_session

    sessions = all_sessions(conn)
    found = next((s for s in sessions if s.id == key), None)
    if found is None:  # another machine's session (sync): its own machine opens it
        from lunavect.listing.sessions import read_sessions

        found = next((s for s in read_sessions(conn, include_hidden=True) if s.id == key), None)
    if found is None:  # its row turned unreadable between the two reads
        raise Failure(f"no session {named!r} (see `lunavect list --all`)")
    others = [s for s in sessions if s.id != found.id]
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


@click.command("open")
@click.argument("session_id", metavar="ID", shell_complete=complete_session)
@RESUME_IN
@AS_JSON
def open_command(session_id: str, resume_in: str | None, as_json: bool) -> None:
    """Bring a session's exact terminal pane or tab to the front, or resume it if it has finished.

    ID is a session's id as `lunavect list --json` prints it (`claude:<id>`, `codex:<id>`), its bare
    session id, or a prefix of either that names one session; hidden sessions can be named too.

    \b
    Examples:
      lunavect open claude:5e55e55e
      lunavect open 5e55 --resume-in tmux
    """
    conn = fresh_store()
    open_key(conn, session_key(conn, session_id), session_id, resume_in, as_json)


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
    from lunavect.listing.sessions import read_sessions

    conn = fresh_store()
    waiting = needs_person(read_sessions(conn, include_hidden=True))
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
