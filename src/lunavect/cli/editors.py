"""`lunavect editors install | uninstall | status`: lunavect's companion in VS Code or code-server, which lets
`lunavect open` select the exact integrated terminal a Claude Code or Codex session runs in (the guide's
"Settings → Connections → Sessions in editors")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import msgspec

from lunavect.cli.common import Failure
from lunavect.core.terminal_text import clean_lines

EDITOR_CHOICE = click.Choice(["vscode", "code-server"])
_folder = click.Path(file_okay=False, path_type=Path)


@click.group("editors")
def editors_group() -> None:
    """Sessions in editors: the companion that selects a session's terminal tab in VS Code or code-server."""


def _editor_options(command: Callable[..., Any]) -> Callable[..., Any]:
    for option in reversed(
        [
            click.argument("editor", type=EDITOR_CHOICE),
            click.option(
                "--command", "cli", help="The editor's command, when it is not `code` / `code-server` on PATH."
            ),
            click.option(
                "--extensions-dir", type=_folder, help="The editor's extensions folder (its --extensions-dir)."
            ),
            click.option("--user-data-dir", type=_folder, help="The editor's user data folder (its --user-data-dir)."),
        ]
    ):
        command = option(command)
    return command


@editors_group.command("install")
@_editor_options
def install_command(editor: str, cli: str | None, extensions_dir: Path | None, user_data_dir: Path | None) -> None:
    """Install the companion through the editor's own --install-extension (reload open windows after)."""
    from lunavect.navigation.editors import install

    try:
        status = install.install(editor, cli, extensions_dir, user_data_dir)
    except (install.EditorError, OSError) as exc:
        raise Failure(f"cannot install the {editor} companion: {exc}") from None
    click.echo(clean_lines(install.describe(status)))
    click.echo("reload each open window (Developer: Reload Window) to start the companion in it")


@editors_group.command("uninstall")
@_editor_options
def uninstall_command(editor: str, cli: str | None, extensions_dir: Path | None, user_data_dir: Path | None) -> None:
    """Remove the companion through the editor's own --uninstall-extension."""
    from lunavect.navigation.editors import install

    try:
        removed, folder = install.uninstall(editor, cli, extensions_dir, user_data_dir)
    except (install.EditorError, OSError) as exc:
        raise Failure(f"cannot uninstall the {editor} companion: {exc}") from None
    was = f"removed companion {removed}" if removed else "no companion was installed"
    click.echo(clean_lines(f"{editor}: {was} ({folder})"))


@editors_group.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print the status as JSON.")
def status_command(as_json: bool) -> None:
    """Whether each companion is installed, and how many of its editor's open windows answer."""
    from lunavect.navigation.editors import install

    found = install.status()
    if as_json:
        click.echo(msgspec.json.encode([s.as_dict() for s in found]).decode())
        return
    for status in found:
        click.echo(clean_lines(install.describe(status)))
        for problem in status.problems:
            click.echo(clean_lines(f"  {problem['what']}; fix: {problem['fix']}"))


COMMANDS: tuple[click.Command, ...] = (editors_group,)
