"""`lunavect paths`: every file and folder lunavect reads or writes on this machine, from the one place that
knows each (so a person finds the log, the store or a backup without reading the docs, and a script with
`--json`)."""

from __future__ import annotations

import click
import msgspec


def places() -> dict[str, object]:
    """The places, by what they are: lunavect's own (data, store, log, spool, sockets), the service's file, the
    clients' files its hooks are written into, and the backups it made of a person's files (those that exist)."""
    import os

    from lunavect import clients, paths
    from lunavect.install import service
    from lunavect.install.hooks_file import backup_path
    from lunavect.listing import changes
    from lunavect.navigation.editors import windows
    from lunavect.tmux_status import conf

    hooks = {face.CLIENT.id: face.hooks_status(verify=False).path for face in clients.faces()}
    backups = [backup_path(path) for path in (*hooks.values(), conf.conf_path())]
    return {
        "data": str(paths.data_dir()),
        "store": str(paths.store_path()),
        "log": str(paths.data_dir() / paths.LOG_FILE_NAME),
        "spool": str(paths.spool_dir()),
        "sockets": {"changes": str(changes.socket_path()), "editors": str(windows.folder())},
        "service": str(service.unit_path(dict(os.environ))),
        "hooks": {client: str(path) for client, path in hooks.items()},
        "backups": [str(path) for path in backups if path.exists()],
    }


@click.command("paths")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def paths_command(as_json: bool) -> None:
    """Print where lunavect keeps its data, store, log, spool and sockets, the files it writes hooks into, and the
    backups it made of your files.

    \b
    Examples:
      lunavect paths
      tail -f "$(lunavect paths --json | jq -r .log)"
    """
    from lunavect.core.terminal_text import clean

    found = places()
    if as_json:
        click.echo(msgspec.json.encode(found).decode())
        return
    for name, value in found.items():
        if isinstance(value, dict):
            click.echo(f"{name}:")
            for key, path in value.items():
                click.echo(f"  {key:<9} {clean(path)}")
        elif isinstance(value, list):
            click.echo(f"{name}:" + ("" if value else " none yet"))
            for path in value:
                click.echo(f"  {clean(path)}")
        else:
            click.echo(f"{name:<11} {clean(value)}")


COMMANDS: tuple[click.Command, ...] = (paths_command,)
