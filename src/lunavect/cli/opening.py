"""`lunavect open ID`: return to a session's exact terminal pane or tab, or resume it when it has finished.

The command is a thin shell around `lunavect.navigation.navigate.open_session`, the same function the panel's
Enter and row menu call, so every front end says the same thing for the same outcome.
"""

from __future__ import annotations

import click
import msgspec

from lunavect.cli.common import Failure, fresh_store, session_key
from lunavect.core.terminal_text import clean_lines


@click.command("open")
@click.argument("session_id", metavar="ID")
@click.option(
    "--resume-in",
    type=click.Choice(["print", "clipboard", "tmux", "terminal"]),
    default=None,
    help="For a finished session, or one its client runs in the background (`claude --bg`): print the command "
    "that resumes or attaches to it (the default), copy it, or run it in a new tmux window or terminal window.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def open_command(session_id: str, resume_in: str | None, as_json: bool) -> None:
    """Bring a session's exact terminal pane or tab to the front, or resume it if it has finished.

    ID is a session's id as `lunavect list --json` prints it (`claude:<id>`, `codex:<id>`), its bare
    session id, or a prefix of either that names one session; hidden sessions can be named too.
    """
    from lunavect.listing.sessions import all_sessions
    from lunavect.navigation.navigate import open_session

    conn = fresh_store()
    key = session_key(conn, session_id)
    sessions = all_sessions(conn)
    found = next((s for s in sessions if s.id == key), None)
    if found is None:  # another machine's session (sync): its own machine opens it
        from lunavect.listing.sessions import read_sessions

        found = next((s for s in read_sessions(conn, include_hidden=True) if s.id == key), None)
    if found is None:  # its row turned unreadable between the two reads
        raise Failure(f"no session {session_id!r} (see `lunavect list --all`)")
    others = [s for s in sessions if s.id != found.id]
    try:
        result = open_session(found, resume_in=resume_in, others=others)
    except OSError as exc:
        raise Failure(f"cannot open {found.id}: {exc}") from None
    if as_json:
        click.echo(msgspec.json.encode(result.as_dict()).decode())
        if not result.ok:
            raise SystemExit(1)
        return
    if result.ok:
        click.echo(clean_lines(result.message))
        return
    detail = result.message
    if result.grant:
        detail += f" (allow it in {result.grant})"
    if result.candidates:
        detail += " [" + "; ".join(result.candidates) + "]"
    raise Failure(f"{result.outcome.value}: {detail}")


COMMANDS: tuple[click.Command, ...] = (open_command,)
