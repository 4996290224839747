"""`lunavect hook` and `lunavect hooks install|uninstall|status`: lunavect's hooks in the agents' settings.

The click `hook` command is here so that `lunavect --help` lists it; the agents' own `lunavect hook <client>`
never reaches it, because `lunavect.cli.main` answers that before click is imported.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
import msgspec

from lunavect.cli.common import Failure, fresh_store
from lunavect.core import clients as descriptors
from lunavect.core.times import elapsed
from lunavect.install.hooks_file import HooksRefused

if TYPE_CHECKING:
    from lunavect.clients import Face, HooksStatus
    from lunavect.install.command import Http


@click.command("hook")
@click.argument("client", type=click.Choice(descriptors.ids()))
@click.argument("event", required=False)
def hook_command(client: str, event: str | None) -> None:
    """Record one agent event from stdin (run by the agent's hooks; prints nothing, always exits 0). EVENT names
    the event for a client whose hook payloads do not."""
    from lunavect.shim.entry import main as hook_main

    hook_main([client] if event is None else [client, event])


@click.group()
def hooks() -> None:
    """Install, remove or check lunavect's hooks in the agents' settings."""


@hooks.command("install")
@click.argument("named", nargs=-1, metavar="[CLIENT]...")
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
def hooks_install(named: tuple[str, ...], statusline: bool, http: bool) -> None:
    """Add lunavect's hooks to the clients you have (their command on PATH or their folder here), or to those
    named, keeping every other setting as it is. A client you do not have is skipped: no folder is made for it.

    \b
    Examples:
      lunavect hooks install
      lunavect hooks install claude codex
      lunavect hooks install --statusline
    """
    from lunavect import clients, paths
    from lunavect.clients import claude
    from lunavect.install.command import describe_target
    from lunavect.listener import service as hook_service

    unknown = [name for name in named if name not in descriptors.ids()]
    if unknown:  # checked here, not by a click.Choice fixed at import: the clients are the descriptors' now
        raise click.BadParameter(
            f"no client {', '.join(unknown)} (clients: {', '.join(descriptors.ids())})", param_hint="CLIENT"
        )
    chosen = [face for face in clients.faces() if face.CLIENT.id in named or (not named and face.present())]
    if not chosen:
        every = " ".join(descriptors.ids())
        raise Failure(
            "none of the clients lunavect reads is here (none has its command on PATH or its own folder); "
            f"name the ones to install into: lunavect hooks install {every}"
        )
    if statusline:
        _install_statusline(claude.settings_path())
    data_dir = paths.data_dir()
    for face in clients.faces():
        if face not in chosen:
            if named:
                continue  # the person chose: the others are left as they are, without a word
            click.echo(
                f"{face.CLIENT.id}: skipped, not here (no {_absent(face)}); `lunavect hooks install {face.CLIENT.id}` installs it anyway"
            )
            continue
        client = face.CLIENT
        if http and client.install.http_hooks:
            _install_http(face, data_dir)
            continue
        _echo(face.install_hooks)
        if client.install.http_hooks and hook_service.unconfigure(data_dir):
            click.echo(f"{client.id}: HTTP hooks replaced by the command shim")
    click.echo(describe_target())


def _absent(face: Face) -> str:
    """What `Face.present` looked for and did not find."""
    from lunavect.core.terminal_text import clean

    return f"`{face.CLIENT.cli.command}` on PATH, no {clean(str(face.home()))}"


def _echo(act: Callable[[], list[str]]) -> None:
    """The lines a face's install or uninstall prints, or its refusal as the one-line failure."""
    try:
        lines = act()
    except HooksRefused as exc:
        raise Failure(str(exc)) from None
    for line in lines:
        click.echo(line)


# How long `hooks install --http` waits for the collector's listener to answer.
ANSWER_WAIT_S = 5.0


def _install_http(face: Face, data_dir: Path) -> None:
    """The client's tool events as HTTP hooks (claude/http_hooks.py), the rest by the shim; says whether the
    collector's listener answers, because an HTTP hook's event is lost while nothing listens."""
    from lunavect.collector import process as collector_process
    from lunavect.install.command import Http
    from lunavect.listener import secret as hook_secret
    from lunavect.listener import service as hook_service

    try:
        port = hook_service.configure(data_dir)
        http = Http(port, hook_secret.load_or_create(data_dir))
    except OSError as exc:
        raise Failure(str(exc)) from None
    _echo(lambda: face.install_hooks(http=http))
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
    """What `hooks status` checks an HTTP-capable client's settings against: this setup's HTTP handlers, or
    none."""
    from lunavect.install.command import Http
    from lunavect.listener import secret as hook_secret
    from lunavect.listener import service as hook_service

    port = hook_service.configured_port(data_dir)
    if port is None or not hook_secret.secret_path(data_dir).exists():
        return None
    return Http(port, hook_secret.load_or_create(data_dir))


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
    from lunavect import clients, paths
    from lunavect.clients import claude
    from lunavect.install import statusline
    from lunavect.listener import service as hook_service

    path = claude.settings_path()
    try:
        put_back = statusline.uninstall(path)
    except (statusline.HooksFileError, OSError) as exc:
        raise Failure(str(exc)) from None
    if put_back or only_statusline:
        click.echo(f"claude: status line {'put back' if put_back else 'not wrapped'} in {path}")
    if only_statusline:
        return
    for face in clients.faces():
        _echo(face.uninstall_hooks)
        if face.CLIENT.install.http_hooks:
            hook_service.unconfigure(paths.data_dir())


@hooks.command("status")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def hooks_status(as_json: bool) -> None:
    """Tell, per client, whether the hooks are installed and whether events arrive."""
    from lunavect import clients, paths, store
    from lunavect.listener import service as hook_service

    expected = _expected_http(paths.data_dir())
    described: list[tuple[Face, HooksStatus]] = [
        (face, face.hooks_status(http=expected if face.CLIENT.install.http_hooks else None)) for face in clients.faces()
    ]
    conn = fresh_store()
    listener = hook_service.probe(paths.data_dir())
    report: dict[str, dict] = {}
    for face, status in described:
        client = face.CLIENT
        last = store.latest_event_time(conn, client.id)
        entry = report[client.id] = face.hooks_report(status)
        entry["last_event_age_s"] = round(time.time() - last, 1) if last else None
        if client.install.http_hooks:
            entry["http_listener"] = listener
    if as_json:
        click.echo(msgspec.json.encode(report).decode())
        return
    for face, status in described:
        entry = report[face.CLIENT.id]
        click.echo(face.describe_status(status))
        age = entry["last_event_age_s"]
        click.echo("  events: " + ("none received yet" if age is None else f"last one {elapsed(age)} ago"))
        if entry.get("http_events"):
            click.echo(f"  by HTTP: {', '.join(entry['http_events'])}; the other events by the command shim")
        if face.CLIENT.install.http_hooks and listener is not None:
            answer = "answers" if listener["answers"] else "does not answer (is the collector running?)"
            click.echo(f"  HTTP hooks: the collector's listener on 127.0.0.1:{listener['port']} {answer}")


COMMANDS: tuple[click.Command, ...] = (hook_command, hooks)
