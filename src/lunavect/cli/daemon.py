"""`lunavect daemon`: the collector in the foreground."""

from __future__ import annotations

import sys

import click

from lunavect.cli.common import Failure


@click.command()
@click.option("--quiet", is_flag=True, help="Log only warnings.")
def daemon(quiet: bool) -> None:
    """Run the collector in the foreground (one per machine; exits at once if another runs)."""
    import logging

    from lunavect import collector

    logging.basicConfig(
        level=logging.WARNING if quiet else logging.INFO,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    try:
        code = collector.run()
    except KeyboardInterrupt:
        code = 0
    except OSError as exc:
        raise Failure(f"the collector stopped: {exc}") from None
    sys.exit(code)


COMMANDS: tuple[click.Command, ...] = (daemon,)
