"""`lunavect hook` and `lunavect hooks install|uninstall|status`: lunavect's hooks in the agents' settings.

The click `hook` command is here so that `lunavect --help` lists it; the agents' own `lunavect hook <client>`
never reaches it, because `lunavect.cli.main` answers that before click is imported.
"""

from __future__ import annotations

import time
from pathlib import Path

import click
import msgspec

from lunavect.cli.common import Failure, fresh_store
from lunavect.core.times import elapsed


@click.command("hook")
@click.argument("client", type=click.Choice(["claude", "codex"]))
def hook_command(client: str) -> None:
    """Record one agent event from stdin (run by the agent's hooks; prints nothing, always exits 0)."""
    from lunavect.shim.entry import main as hook_main

    hook_main([client])


@click.group()
def hooks() -> None:
    """Install, remove or check lunavect's hooks in the agents' settings."""


@hooks.command("install")
@click.option(
    "--statusline",
    is_flag=True,
    help="Also wrap Claude Code's status line to record its rate limits (your own status line runs unchanged).",
)
def hooks_install(statusline: bool) -> None:
    """Add lunavect's hooks to Claude Code and Codex, keeping every other setting as it is."""
    from lunavect.claude import install
    from lunavect.codex import install as codex_install
    from lunavect.install.command import describe_target

    if statusline:
        _install_statusline(install.settings_path())
    try:
        changed = install.install()
    except (install.SettingsError, OSError) as exc:
        raise Failure(str(exc)) from None
    click.echo(install.describe_install(changed))
    try:
        click.echo(codex_install.describe_install(codex_install.install()))
    except (codex_install.SettingsError, OSError) as exc:
        raise Failure(f"codex: {exc}") from None
    click.echo(describe_target())


def _install_statusline(path: Path) -> None:
    from lunavect.install import statusline

    try:
        changed = statusline.install(path)
    except (statusline.HooksFileError, OSError) as exc:
        raise Failure(str(exc)) from None
    click.echo(f"claude: status line {'wrapped' if changed else 'already wrapped'} in {path}")


@hooks.command("uninstall")
@click.option(
    "--statusline", "only_statusline", is_flag=True, help="Only put your own status line back; keep the hooks."
)
def hooks_uninstall(only_statusline: bool) -> None:
    """Remove lunavect's hooks (and its status-line wrapper, your own status line put back) and nothing else."""
    from lunavect.claude import install
    from lunavect.install import statusline

    try:
        put_back = statusline.uninstall(install.settings_path())
    except (statusline.HooksFileError, OSError) as exc:
        raise Failure(str(exc)) from None
    if put_back or only_statusline:
        click.echo(f"claude: status line {'put back' if put_back else 'not wrapped'} in {install.settings_path()}")
    if only_statusline:
        return
    try:
        changed = install.uninstall()
    except (install.SettingsError, OSError) as exc:
        raise Failure(str(exc)) from None
    click.echo(f"claude: {'removed' if changed else 'nothing to remove'} in {install.settings_path()}")
    from lunavect.codex import install as codex_install

    try:
        removed = codex_install.uninstall()
    except (codex_install.SettingsError, OSError) as exc:
        raise Failure(f"codex: {exc}") from None
    click.echo(f"codex: {'removed' if removed else 'nothing to remove'} in {codex_install.hooks_path()}")


@hooks.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def hooks_status(as_json: bool) -> None:
    """Tell, per client, whether the hooks are installed and whether events arrive."""
    from lunavect import store
    from lunavect.claude import install
    from lunavect.codex import install as codex_install

    status = install.status()
    codex_status = codex_install.status()
    conn = fresh_store()
    last = store.latest_event_time(conn, "claude")
    report = {
        "claude": {
            "state": status.state,
            "settings": str(status.path),
            "missing_events": status.missing,
            "stale_commands": status.stale_commands,
            "detail": status.detail,
            "last_event_age_s": round(time.time() - last, 1) if last else None,
        },
        "codex": codex_install.report(codex_status),
    }
    from lunavect import hook_service, paths

    report["claude"]["http_listener"] = hook_service.probe(paths.data_dir())
    codex_last = store.latest_event_time(conn, "codex")
    report["codex"]["last_event_age_s"] = round(time.time() - codex_last, 1) if codex_last else None
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
        return
    claude = report["claude"]
    click.echo(install.describe_status(status))
    age = claude["last_event_age_s"]
    click.echo("  events: " + ("none received yet" if age is None else f"last one {elapsed(age)} ago"))
    listener = claude["http_listener"]
    if listener is not None:
        answer = "answers" if listener["answers"] else "does not answer (is the collector running?)"
        click.echo(f"  HTTP hooks: the collector's listener on 127.0.0.1:{listener['port']} {answer}")
    click.echo(codex_install.describe_status(codex_status))
    age = report["codex"]["last_event_age_s"]
    click.echo("  events: " + ("none received yet" if age is None else f"last one {elapsed(age)} ago"))


COMMANDS: tuple[click.Command, ...] = (hook_command, hooks)
