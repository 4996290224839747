"""`lunavect list|counts|watch`: the sessions and their states, once, as totals, or redrawn live."""

from __future__ import annotations

import math

import click
import msgspec

from lunavect.cli.common import empty_explanation, fresh_store


@click.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as a JSON array.")
@click.option("--all", "include_hidden", is_flag=True, help="Include hidden sessions.")
@click.option("--host", "host", metavar="NAME", help="Only the sessions of this host (see `lunavect sync`).")
def list_command(as_json: bool, include_hidden: bool, host: str | None) -> None:
    """Print the sessions and their states.

    \b
    Examples:
      lunavect list
      lunavect list --all --host laptop
      lunavect list --json | jq -r '.[] | select(.state == "permission") | .id'
    """
    from lunavect.listing.sessions import read_sessions

    conn = fresh_store()
    sessions = read_sessions(conn, include_hidden=include_hidden, host=host)
    if as_json:
        click.echo(msgspec.json.encode(sessions).decode())
        return
    # The table's imports only for the table: scripts reading --json do not pay for them.
    from lunavect.frontends.table import render
    from lunavect.listing.hosts import not_current_note

    if sessions:
        click.echo(render(sessions))
    elif host is None:
        click.echo(empty_explanation(conn))
    note = not_current_note(conn)
    if note:
        click.echo(note)


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def counts(as_json: bool) -> None:
    """Print how many sessions work and how many await their person (hidden ones included)."""
    from lunavect.listing.sessions import counts as count_sessions

    result = count_sessions(fresh_store())
    if as_json:
        click.echo(msgspec.json.encode(result).decode())
    else:
        click.echo(f"working: {result['working']}  awaiting input: {result['awaiting_input']}")


def _finite(value: float) -> float:
    """click's range lets NaN through (it compares false with both bounds): refuse it as a range would."""
    if math.isnan(value):
        raise click.BadParameter("not a number")
    return value


@click.command()
@click.option(
    "--interval",
    default=1.0,
    show_default=True,
    type=click.FloatRange(0.1, 3600.0),
    callback=lambda _ctx, _param, value: _finite(value),
    help="Seconds between redraws (0.1 to 3600; a change in the store redraws at once anyway).",
)
@click.option("--all", "include_hidden", is_flag=True, help="Include hidden sessions.")
def watch(interval: float, include_hidden: bool) -> None:
    """Show the live list of sessions, redrawn until Ctrl-C."""
    from lunavect.frontends.watch import run_watch

    conn = fresh_store()
    try:
        run_watch(conn, interval=interval, include_hidden=include_hidden, explain_empty=lambda: empty_explanation(conn))
    except KeyboardInterrupt:
        pass


COMMANDS: tuple[click.Command, ...] = (list_command, counts, watch)
