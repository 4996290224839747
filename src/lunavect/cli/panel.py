"""`lunavect panel`, which is also what `lunavect` alone opens: the live session panel."""

from __future__ import annotations

import sys

import click

from lunavect.cli.common import Failure, open_store
from lunavect.cli.listing import list_command


@click.command("panel")
@click.pass_context
def panel_command(ctx: click.Context) -> None:
    """The live session panel: search, filter, pin, hide, reorder and open sessions.

    Without a terminal to draw on (a pipe, a script), prints the list once instead.
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        ctx.invoke(list_command)
        return
    open_store().close()  # a store that cannot open fails here with one line, before the screen is taken
    try:
        from lunavect.frontends.tui import run_panel
    except ImportError as exc:
        raise Failure(f"the panel needs Textual ({exc}); reinstall lunavect") from None
    run_panel()


COMMANDS: tuple[click.Command, ...] = (panel_command,)
