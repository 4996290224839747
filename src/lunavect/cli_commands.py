"""The click commands behind `lunavect` (everything but the hook shim)."""

from __future__ import annotations

import sqlite3
import sys
import time

import click
import msgspec

from lunavect import __version__


class Failure(click.ClickException):
    """A failure the person can act on: printed as one line, exit code 1."""

    def show(self, file=None) -> None:  # noqa: ANN001 - click's signature
        click.echo(f"lunavect: {self.format_message()}", err=True)


def _store() -> sqlite3.Connection:
    from lunavect import store

    try:
        return store.connect()
    except (store.StoreError, OSError) as exc:
        raise Failure(str(exc)) from None


def _fresh_store() -> sqlite3.Connection:
    """The store, with a collector running and caught up with every event spooled so far."""
    from lunavect import collector

    conn = _store()
    try:
        if collector.ensure_running():
            collector.wait_caught_up(conn)
    except OSError as exc:
        raise Failure(f"cannot start the collector: {exc}") from None
    return conn


@click.group(invoke_without_command=True, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="lunavect")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Every Claude Code and Codex session on this machine, with the exact state of each.

    Without a command, opens the live session panel.
    """
    if ctx.invoked_subcommand is None:
        from lunavect.cli_panel import panel_command

        ctx.invoke(panel_command)


@cli.command("hook")
@click.argument("client", type=click.Choice(["claude", "codex"]))
def hook_command(client: str) -> None:
    """Record one agent event from stdin (run by the agent's hooks; prints nothing, always exits 0)."""
    from lunavect.hook import main as hook_main

    hook_main([client])


@cli.group()
def hooks() -> None:
    """Install, remove or check lunavect's hooks in the agents' settings."""


@hooks.command("install")
def hooks_install() -> None:
    """Add lunavect's hooks to Claude Code and Codex, keeping every other setting as it is."""
    from lunavect.claude import install
    from lunavect.codex import install as codex_install
    from lunavect.install.command import describe_target

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


@hooks.command("uninstall")
def hooks_uninstall() -> None:
    """Remove lunavect's hooks and nothing else."""
    from lunavect.claude import install

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
    conn = _fresh_store()
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
    codex_last = store.latest_event_time(conn, "codex")
    report["codex"]["last_event_age_s"] = round(time.time() - codex_last, 1) if codex_last else None
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
        return
    claude = report["claude"]
    click.echo(install.describe_status(status))
    age = claude["last_event_age_s"]
    click.echo("  events: " + ("none received yet" if age is None else f"last one {_age_words(age)} ago"))
    click.echo(codex_install.describe_status(codex_status))
    age = report["codex"]["last_event_age_s"]
    click.echo("  events: " + ("none received yet" if age is None else f"last one {_age_words(age)} ago"))


def _age_words(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)} s"
    if seconds < 5400:
        return f"{int(seconds // 60)} min"
    if seconds < 172800:
        return f"{int(seconds // 3600)} h"
    return f"{int(seconds // 86400)} days"


@cli.command()
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


@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the sessions as a JSON array.")
@click.option("--all", "include_hidden", is_flag=True, help="Include hidden sessions.")
def list_command(as_json: bool, include_hidden: bool) -> None:
    """Print the sessions and their states."""
    from lunavect.frontends.table import render
    from lunavect.sessions import read_sessions

    sessions = read_sessions(_fresh_store(), include_hidden=include_hidden)
    if as_json:
        click.echo(msgspec.json.encode(sessions).decode())
    elif sessions:
        click.echo(render(sessions))
    else:
        click.echo(_empty_explanation())


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def counts(as_json: bool) -> None:
    """Print how many sessions work and how many await their person (hidden ones included)."""
    from lunavect.sessions import counts as count_sessions

    result = count_sessions(_fresh_store())
    if as_json:
        click.echo(msgspec.json.encode(result).decode())
    else:
        click.echo(f"working: {result['working']}  awaiting input: {result['awaiting_input']}")


@cli.command()
@click.option("--interval", default=1.0, show_default=True, help="Seconds between redraws.")
@click.option("--all", "include_hidden", is_flag=True, help="Include hidden sessions.")
def watch(interval: float, include_hidden: bool) -> None:
    """Show the live list of sessions, redrawn until Ctrl-C."""
    from lunavect.frontends.watch import run_watch

    conn = _fresh_store()
    try:
        run_watch(conn, interval=interval, include_hidden=include_hidden, explain_empty=_empty_explanation)
    except KeyboardInterrupt:
        pass


def _empty_explanation() -> str:
    from lunavect import setup_report

    return "\n".join(setup_report.explain(setup_report.probe()))


def run() -> None:
    cli.main(prog_name="lunavect")


from lunavect.cli_arrange import COMMANDS as _ARRANGE_COMMANDS  # noqa: E402 - they import Failure from here
from lunavect.cli_panel import panel_command as _panel_command  # noqa: E402

for _command in (*_ARRANGE_COMMANDS, _panel_command):
    cli.add_command(_command)


from lunavect.cli_open import open_command  # noqa: E402

cli.add_command(open_command)
