"""`lunavect status`: the counts and the most urgent session for status bars, once or one line per change."""

from __future__ import annotations

import click

from lunavect.cli.common import fresh_store

FORMATS = ("plain", "json", "tmux", "waybar", "i3blocks", "polybar")


@click.command("status")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="plain",
    show_default=True,
    help="The bar's convention: waybar is its custom module's JSON, i3blocks pango markup, polybar its tags.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON (the same as --format json).")
@click.option("--follow", is_flag=True, help="Keep running: print one line each time it changes.")
def status_command(fmt: str, as_json: bool, follow: bool) -> None:
    """Print how many sessions work, await their person and failed, and who has waited longest.

    Hidden sessions count (hiding never cancels work). With --follow this is a persistent script for a bar:
    it wakes only when the store changes, never on a timer.

    \b
    Examples:
      lunavect status
      lunavect status --format waybar --follow
      lunavect status --json
    """
    from lunavect.frontends.bar.formats import RENDERERS
    from lunavect.listing.attention import summarize

    render = RENDERERS["json" if as_json else fmt]
    conn = fresh_store()
    if not follow:
        click.echo(render(summarize(conn)))
        return
    from lunavect.collector import process as collector_process
    from lunavect.frontends.bar.follow import follow as follow_lines

    try:
        follow_lines(conn, render, ensure_collector=collector_process.ensure_running)
    except (KeyboardInterrupt, BrokenPipeError):
        pass


COMMANDS: tuple[click.Command, ...] = (status_command,)
