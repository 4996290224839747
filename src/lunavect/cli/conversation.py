"""`lunavect show|reply|answer`: read a session's latest messages, type a reply into its pane, answer its
permission dialog.

`show` reads the client's own file on demand (lunavect.conversation) and prints what it read; nothing is
stored, logged or synced. `reply` and `answer` type into the session's exact pane only when it is proven
the session's and its screen shows what lunavect expects (lunavect.navigation.reply); otherwise they refuse
with the reason, and exit 1.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any

import click
import msgspec

from lunavect.cli.common import Failure, complete_session, fresh_store, print_outcome, session_key

# How often a follow looks for appended records: the file's size is compared, nothing more, when idle.
FOLLOW_POLL_S = 0.2


def _session(conn: sqlite3.Connection, text: str) -> tuple[Any, list[Any]]:
    """The named session of this machine's snapshot and every other one (its neighbours)."""
    from lunavect.listing.sessions import all_sessions

    key = session_key(conn, text)
    sessions = all_sessions(conn)
    found = next((s for s in sessions if s.id == key), None)
    if found is None:
        raise Failure(f"no session {text!r} on this machine (see `lunavect list --all`)")
    return found, [s for s in sessions if s.id != key]


def _print(messages: list[Any], as_json: bool, skipped: int = 0, **extra: object) -> None:
    from lunavect.conversation.render import render, skipped_note

    if as_json:
        click.echo(msgspec.json.encode({**extra, "messages": messages, "skipped": skipped}).decode())
        return
    if skipped:  # on stderr, so the messages on stdout stay what the client shows
        click.echo(f"lunavect: {skipped_note(skipped)}", err=True)
    for message in messages:
        for line in render(message):
            click.echo(line)


@click.command("show")
@click.argument("session_id", metavar="ID", shell_complete=complete_session)
@click.option("--last", "last", default=20, show_default=True, type=click.IntRange(1, 1000), help="How many messages.")
@click.option("--follow", "-f", is_flag=True, help="Keep printing new and changed messages until interrupted.")
@click.option("--agent", metavar="AGENT_ID", help="A Claude Code sub-agent's own conversation (see --json).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (with --follow: one object per line).")
def show_command(session_id: str, last: int, follow: bool, agent: str | None, as_json: bool) -> None:
    """Print a session's latest messages as its client shows them.

    Prompts, the assistant's text, each tool call (its name and a one-line summary) with a shortened result,
    errors, compaction and background-task events. Sub-agents are kept apart: `--agent` reads one of them.
    Read from the client's own files on demand; nothing of it is stored, logged or synced.

    \b
    Examples:
      lunavect show 5e55
      lunavect show 5e55 --last 50 --follow
      lunavect show 5e55 --json | jq '.messages[-1]'
    """
    from lunavect.conversation.follow import Follower
    from lunavect.conversation.window import read_window
    from lunavect.conversation.window_parts import Unreadable
    from lunavect.listing.conversation import find_source

    conn = fresh_store()
    session, _others = _session(conn, session_id)
    source = find_source(session.provider, session.session_id, conn)
    conn.close()
    if source is None:
        raise Failure(f"this machine holds no conversation file lunavect can read for {session.id}")
    agents = source.agents() if agent is None else []
    if agent is not None:
        if agent not in source.agents():
            raise Failure(f"{session.id} has no sub-agent {agent!r}")
        source = source.agent_source(agent)
    try:
        if not follow:
            window = read_window(source, messages=last)
            _print(window.messages, as_json, window.skipped, id=session.id, older=window.older, agents=agents)
            return
        follower = Follower(source, messages=last)
        while True:
            update = follower.poll()
            if update.changed or update.reset or update.skipped:
                if as_json:
                    _print(update.changed, True, update.skipped, id=session.id, reset=update.reset)
                else:
                    _print(update.changed, False, update.skipped)
            time.sleep(FOLLOW_POLL_S)
    except Unreadable as exc:
        raise Failure(str(exc)) from None
    except KeyboardInterrupt:
        return


@click.command("reply")
@click.argument("session_id", metavar="ID", shell_complete=complete_session)
@click.argument("text")
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def reply_command(session_id: str, text: str, as_json: bool) -> None:
    """Type TEXT into a waiting session's own terminal pane and submit it.

    Only to a session that waits for its person (response ready, input needed, idle), only into the tmux
    pane proven to be that session's (as `lunavect open` proves it) and only when its screen shows the
    client's empty prompt; otherwise it refuses, says why and names the resume command.
    """
    from lunavect.navigation.reply import reply

    conn = fresh_store()
    session, others = _session(conn, session_id)
    print_outcome(reply(session, text, state=session.state, others=others), as_json)


@click.command("answer")
@click.argument("session_id", metavar="ID", shell_complete=complete_session)
@click.argument("choice", type=click.Choice(["allow", "allow-always", "deny"]))
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON.")
def answer_command(session_id: str, choice: str, as_json: bool) -> None:
    """Answer a session's permission dialog: press the dialog's own key for CHOICE.

    Only when the session needs a permission and its pane shows that client's dialog for the tool lunavect
    expects; the screen is read again to confirm the dialog closed. A dialog lunavect does not recognise is
    never answered.
    """
    from lunavect.navigation.reply import answer

    conn = fresh_store()
    session, others = _session(conn, session_id)
    result = answer(session, choice, state=session.state, expected_tool=session.waiting_for, others=others)
    print_outcome(result, as_json)


COMMANDS: tuple[click.Command, ...] = (show_command, reply_command, answer_command)
