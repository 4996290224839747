"""`lunavect service install|uninstall|status`: the collector at login (systemd user unit, launchd agent)."""

from __future__ import annotations

import click


def _report(answer: object) -> None:
    from lunavect.install.service import Answer

    assert isinstance(answer, Answer)
    click.echo(answer.message)
    if not answer.ok:
        raise SystemExit(1)


@click.group("service")
def service() -> None:
    """Run the collector at login, so notifications come with no front end open.

    Without it, a collector runs while a front end (the panel, list, watch, web) has started one.
    """


@service.command("install")
def install_command() -> None:
    """Write and start the service: a systemd user unit on Linux, a launchd agent on macOS."""
    import os

    from lunavect import paths
    from lunavect.install import service as svc

    _report(svc.install(dict(os.environ), log=paths.data_dir() / paths.LOG_FILE_NAME))


@service.command("uninstall")
def uninstall_command() -> None:
    """Stop the service and remove its file."""
    import os

    from lunavect.install import service as svc

    _report(svc.uninstall(dict(os.environ)))


@service.command("status")
def status_command() -> None:
    """Whether the service is installed for this installation and running."""
    import os

    from lunavect.install import service as svc

    _report(svc.status(dict(os.environ)))


COMMANDS: tuple[click.Command, ...] = (service,)
