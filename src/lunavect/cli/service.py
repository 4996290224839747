"""`lunavect service install|uninstall|status`: the collector at login (systemd user unit, launchd agent)."""

from __future__ import annotations

import click

from lunavect.cli.common import json_option, print_json


def _report(answer: object, as_json: bool) -> None:
    """The answer as one line, or as JSON (`ok`, `message`, `path`); exit 1 when it was not done."""
    from lunavect.install.service import Answer

    assert isinstance(answer, Answer)
    if as_json:
        print_json({"ok": answer.ok, "message": answer.message, "path": answer.path})
    else:
        click.echo(answer.message)
    if not answer.ok:
        raise SystemExit(1)


@click.group("service")
def service() -> None:
    """Run the collector at login, so notifications come with no front end open.

    Without it, a collector runs while a front end (the panel, list, watch, web) has started one.
    """


@service.command("install")
@json_option
def install_command(as_json: bool) -> None:
    """Write and start the service: a systemd user unit on Linux, a launchd agent on macOS."""
    import os

    from lunavect import paths
    from lunavect.install import service as svc

    _report(svc.install(dict(os.environ), log=paths.data_dir() / paths.LOG_FILE_NAME), as_json)


@service.command("uninstall")
@json_option
def uninstall_command(as_json: bool) -> None:
    """Stop the service and remove its file."""
    import os

    from lunavect.install import service as svc

    _report(svc.uninstall(dict(os.environ)), as_json)


@service.command("status")
@json_option
def status_command(as_json: bool) -> None:
    """Whether the service is installed for this installation and running."""
    import os

    from lunavect.install import service as svc

    _report(svc.status(dict(os.environ)), as_json)


COMMANDS: tuple[click.Command, ...] = (service,)
