"""`lunavect daemon`: the collector in the foreground."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from lunavect.cli.common import Failure

if TYPE_CHECKING:
    from lunavect.collector.loop import TransitionObserver


@click.command()
@click.option("--quiet", is_flag=True, help="Log only warnings.")
def daemon(quiet: bool) -> None:
    """Run the collector in the foreground (one per machine; exits at once if another runs)."""
    import logging

    from lunavect import paths
    from lunavect.collector import log as collector_log
    from lunavect.collector import loop as collector_loop

    collector_log.configure(logging.WARNING if quiet else logging.INFO, paths.data_dir() / paths.LOG_FILE_NAME)
    try:
        code = collector_loop.run(observer=_notifier)
    except KeyboardInterrupt:
        code = 0
    except OSError as exc:
        raise Failure(f"the collector stopped: {exc}") from None
    sys.exit(code)


def _notifier() -> TransitionObserver:
    """The notifier lives in the collector process, so notifications need no front end open; so does the
    HTTP hook listener, when HTTP hooks were set up (lunavect/hook_service.py)."""
    from lunavect import paths
    from lunavect.listener import service as hook_service
    from lunavect.listing import sessions
    from lunavect.notify.notifier import Notifier

    data_dir = paths.data_dir()
    notifier = Notifier(stored=sessions)  # the snapshot is read by the listing's readers
    return hook_service.WithListener(notifier, hook_service.start(data_dir), follow=data_dir)


COMMANDS: tuple[click.Command, ...] = (daemon,)
