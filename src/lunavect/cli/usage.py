"""`lunavect usage`: tokens over time from the store, the accounts' rate-limit windows, estimated costs."""

from __future__ import annotations

import click
import msgspec

from lunavect.cli.common import fresh_store


@click.command("usage")
@click.option("--since", default="7d", show_default=True, metavar="N[h|d|w]", help="How far back (e.g. 12h, 7d, 2w).")
@click.option(
    "--by",
    type=click.Choice(["day", "project", "model", "session", "client"]),
    default="day",
    show_default=True,
    help="How to group the tokens.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option(
    "--prices",
    type=click.Choice(["on", "off"]),
    default=None,
    help="Turn estimated costs on or off (kept for the next runs).",
)
def usage_command(since: str, by: str, as_json: bool, prices: str | None) -> None:
    """Print tokens used (from the clients' own files), rate limits, and estimated costs.

    \b
    Examples:
      lunavect usage
      lunavect usage --since 30d --by project
      lunavect usage --by model --json
      lunavect usage --by client
    """
    import time

    from lunavect.listing.names import names
    from lunavect.usage import prices as price_table
    from lunavect.usage import report

    conn = fresh_store()
    if prices is not None:
        price_table.set_enabled(conn, prices == "on")
    now = time.time()
    start = report.parse_since(since, now)
    if start is None:
        raise click.BadParameter(f"takes a count and a unit (12h, 7d, 2w), not {since[:40]!r}", param_hint="'--since'")
    result = report.build(conn, start, by, now, costs=price_table.enabled(conn), names=names)
    if as_json:
        click.echo(msgspec.json.encode(result).decode())
    else:
        click.echo(report.render(result, now))


COMMANDS: tuple[click.Command, ...] = (usage_command,)
