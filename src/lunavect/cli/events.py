"""`lunavect events`: the stream of state changes of every session on every machine in the sync set, for
scripts, dashboards and chat bots that would otherwise poll `list` (README, "Events")."""

from __future__ import annotations

import sys
import time

import click

from lunavect.cli.common import Failure, fresh_store

# How often `--follow` looks for new changes (one indexed query, nothing more, when nothing changed).
FOLLOW_POLL_S = 0.5


def _line(change: dict[str, object]) -> str:
    """A change as a person reads it: time, host, session, from → to, and the reason."""
    from lunavect.core.terminal_text import clean
    from lunavect.core.times import epoch, local_text

    when = local_text(epoch(change["time"]), "%Y-%m-%d %H:%M:%S", missing="?")
    reason = f" ({clean(str(change['reason']), 80)})" if change["reason"] else ""
    return (
        f"{change['seq']} {when} {clean(str(change['host']), 64)} {clean(str(change['id']), 200)} "
        f"{change['from'] or '(new)'} → {change['to']}{reason}"
    )


@click.command("events")
@click.option(
    "--since",
    metavar="N|TIME",
    default=None,
    help="Only the changes after change N (a number printed before), or from an ISO-8601 TIME on.",
)
@click.option("--host", default=None, metavar="NAME", help="Only the changes of the sessions of host NAME.")
@click.option("--follow", "-f", is_flag=True, help="Keep printing new changes until interrupted.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per line (JSON Lines).")
def events_command(since: str | None, host: str | None, follow: bool, as_json: bool) -> None:
    """Every change of a listed session's state, on this machine and on every host in the sync set, oldest
    first, each with its number: `--since N` resumes exactly after change N, across restarts.

    \b
    Examples:
      lunavect events --json
      lunavect events --follow --json --since 1234
      lunavect events --host laptop --since 2026-12-04T08:00:00Z
    """
    import json

    from lunavect.events import log as changes_log

    try:
        start = changes_log.parse_since(since) if since is not None else changes_log.Since()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="'--since'") from None
    conn = fresh_store()
    if follow and since is None:
        start = changes_log.Since(seq=changes_log.latest(conn))
    try:
        while True:
            batch = changes_log.read(conn, start, host)
            for change in batch:
                said = change.as_dict()
                click.echo(json.dumps(said) if as_json else _line(said))
            if batch:
                start = changes_log.Since(seq=batch[-1].seq)
                sys.stdout.flush()
                if len(batch) == changes_log.READ_AT_MOST:
                    continue
            if not follow:
                return
            time.sleep(FOLLOW_POLL_S)
    except KeyboardInterrupt:
        return
    except BrokenPipeError:
        raise Failure("the reader of the stream went away") from None


COMMANDS: tuple[click.Command, ...] = (events_command,)
