"""`lunavect hook` and `lunavect hooks install|uninstall|status`: lunavect's hooks in the agents' settings.

The click `hook` command is here so that `lunavect --help` lists it; the agents' own `lunavect hook <client>`
never reaches it, because `lunavect.cli.main` answers that before click is imported.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec

from lunavect.cli.common import Failure, fresh_store
from lunavect.core.times import elapsed

if TYPE_CHECKING:
    from lunavect.claude.install import Http


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
@click.option(
    "--http",
    is_flag=True,
    help="Send Claude Code's tool events to the collector as HTTP hooks (needs the collector running).",
)
def hooks_install(statusline: bool, http: bool) -> None:
    """Add lunavect's hooks to Claude Code and Codex, keeping every other setting as it is."""
    from lunavect import paths
    from lunavect.claude import install
    from lunavect.codex import install as codex_install
    from lunavect.install.command import describe_target
    from lunavect.listener import service as hook_service

    if statusline:
        _install_statusline(install.settings_path())
    if http:
        _install_http(paths.data_dir())
    else:
        try:
            changed = install.install()
        except (install.SettingsError, OSError) as exc:
            raise Failure(str(exc)) from None
        click.echo(install.describe_install(changed))
        if hook_service.unconfigure(paths.data_dir()):
            click.echo("claude: HTTP hooks replaced by the command shim")
    try:
        click.echo(codex_install.describe_install(codex_install.install()))
    except (codex_install.SettingsError, OSError) as exc:
        raise Failure(f"codex: {exc}") from None
    click.echo(describe_target())


# How long `hooks install --http` waits for the collector's listener to answer.
ANSWER_WAIT_S = 5.0


def _install_http(data_dir: Path) -> None:
    """Claude's tool events as HTTP hooks (claude/http_hooks.py), the rest by the shim; says whether the
    collector's listener answers, because an HTTP hook's event is lost while nothing listens."""
    from lunavect.claude import http_hooks, install
    from lunavect.collector import process as collector_process
    from lunavect.listener import secret as hook_secret
    from lunavect.listener import service as hook_service

    try:
        port = hook_service.configure(data_dir)
        http = install.Http(port, hook_secret.load_or_create(data_dir))
        changed = install.install(http=http)
    except (install.SettingsError, OSError) as exc:
        raise Failure(str(exc)) from None
    click.echo(install.describe_install(changed))
    click.echo(
        f"claude: {', '.join(http_hooks.HTTP_EVENTS)} as HTTP hooks to 127.0.0.1:{port}; the other events run the "
        "command shim"
    )
    collector_process.ensure_running()
    deadline = time.monotonic() + ANSWER_WAIT_S
    while not (answers := (hook_service.probe(data_dir) or {}).get("answers")) and time.monotonic() < deadline:
        time.sleep(0.1)
    if answers:
        click.echo(f"  HTTP hooks: the collector's listener on 127.0.0.1:{port} answers")
    else:
        click.echo(
            f"  HTTP hooks: nothing answers on 127.0.0.1:{port} yet: tool events are lost until the collector runs "
            "(lunavect daemon, or lunavect service install)"
        )


def _expected_http(data_dir: Path) -> Http | None:
    """What `hooks status` checks Claude's settings against: this setup's HTTP handlers, or none."""
    from lunavect.claude import install
    from lunavect.listener import secret as hook_secret
    from lunavect.listener import service as hook_service

    port = hook_service.configured_port(data_dir)
    if port is None or not hook_secret.secret_path(data_dir).exists():
        return None
    return install.Http(port, hook_secret.load_or_create(data_dir))


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
    from lunavect import paths
    from lunavect.codex import install as codex_install
    from lunavect.listener import service as hook_service

    hook_service.unconfigure(paths.data_dir())

    try:
        removed = codex_install.uninstall()
    except (codex_install.SettingsError, OSError) as exc:
        raise Failure(f"codex: {exc}") from None
    click.echo(f"codex: {'removed' if removed else 'nothing to remove'} in {codex_install.hooks_path()}")


@hooks.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def hooks_status(as_json: bool) -> None:
    """Tell, per client, whether the hooks are installed and whether events arrive."""
    from lunavect import paths, store
    from lunavect.claude import install
    from lunavect.codex import install as codex_install
    from lunavect.listener import service as hook_service

    status = install.status(http=_expected_http(paths.data_dir()))
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
            "http_events": status.http_events,
            "last_event_age_s": round(time.time() - last, 1) if last else None,
        },
        "codex": codex_install.report(codex_status),
    }
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
    if status.http_events:
        click.echo(f"  by HTTP: {', '.join(status.http_events)}; the other events by the command shim")
    if listener is not None:
        answer = "answers" if listener["answers"] else "does not answer (is the collector running?)"
        click.echo(f"  HTTP hooks: the collector's listener on 127.0.0.1:{listener['port']} {answer}")
    click.echo(codex_install.describe_status(codex_status))
    age = report["codex"]["last_event_age_s"]
    click.echo("  events: " + ("none received yet" if age is None else f"last one {elapsed(age)} ago"))


COMMANDS: tuple[click.Command, ...] = (hook_command, hooks)
