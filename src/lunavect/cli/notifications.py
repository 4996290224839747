"""`lunavect notifications on|off|status|test|sound|command ...`: the notifier's settings, kept in the store,
where the collector's notifier reads them again for each batch (no restart needed)."""

from __future__ import annotations

from typing import Any, NoReturn

import click

from lunavect.cli.common import json_option, open_store, print_json


def _kinds_named(names: tuple[str, ...]) -> list[str]:
    from lunavect.notify.kinds import BY_NAME

    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise click.BadParameter(
            f"no notification kind {', '.join(unknown)} (kinds: {', '.join(BY_NAME)})", param_hint="KIND"
        )
    return list(names)


def _switch(on: bool, names: tuple[str, ...], as_json: bool) -> None:
    from lunavect.notify import settings as ns

    conn = open_store()
    current = ns.load(conn)
    if not names:
        current.enabled = on
    else:
        kinds = _kinds_named(names)
        chosen = set(current.kinds) | set(kinds) if on else set(current.kinds) - set(kinds)
        current.kinds = [k for k in _all_kinds() if k in chosen]
        if on:
            current.enabled = True
    ns.save(conn, current)
    _say(current, as_json)


def _all_kinds() -> list[str]:
    from lunavect.notify.kinds import KINDS

    return [k.name for k in KINDS]


def _say(settings: object, as_json: bool) -> None:
    """The settings as the person reads them, or as JSON (the store's own fields)."""
    if as_json:
        print_json(settings)
    else:
        click.echo(_describe(settings))


def _describe(s: object) -> str:
    from lunavect.notify.settings import NotifySettings

    assert isinstance(s, NotifySettings)
    kinds = ", ".join(f"{k} {'on' if k in s.kinds else 'off'}" for k in _all_kinds())
    lines = [
        f"notifications: {'on' if s.enabled else 'off'}",
        f"kinds: {kinds}",
        f"hidden sessions: {'notify' if s.hidden else 'silent'}",
        f"the pane or window you are looking at: {'silent' if s.focus else 'notify'}",
        f"desktop notifications: {'on' if s.desktop else 'off'}; sound: {s.sound}"
        + "".join(f"; {name}: {sound}" for name, sound in sorted(s.sounds.items())),
        f"command: {s.command or 'none'}",
        "push: " + (f"{s.push_config}" + (f" (tag {s.push_tag})" if s.push_tag else "") if s.push_config else "off"),
        "usage warnings: "
        + (f"when a rate-limit window reaches {s.usage_percent:g} %" if s.usage_percent is not None else "off"),
    ]
    return "\n".join(lines)


def _percent(text: str) -> float | None:
    if text.strip().lower() == "off":
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 100:
        raise click.BadParameter(
            f"takes a number above 0 and at most 100, or off (not {text[:40]!r})", param_hint="'--usage-percent'"
        )
    return value


@click.group("notifications")
def notifications() -> None:
    """Desktop notifications when a session needs you: response ready, permission, input, errors; and when
    an account's rate-limit window reaches 90 % (`set --usage-percent`).

    The collector sends them (`lunavect service install` keeps one running from login), once per state
    change, never for the pane or window you are looking at.
    """


@notifications.command("on")
@click.argument("kinds", nargs=-1, metavar="[KIND]...")
@json_option
def on_command(kinds: tuple[str, ...], as_json: bool) -> None:
    """Turn notifications on, or only the named kinds (ready, permission, input, error, stale)."""
    _switch(True, kinds, as_json)


@notifications.command("off")
@click.argument("kinds", nargs=-1, metavar="[KIND]...")
@json_option
def off_command(kinds: tuple[str, ...], as_json: bool) -> None:
    """Turn notifications off, or only the named kinds (ready, permission, input, error, stale)."""
    _switch(False, kinds, as_json)


@notifications.command("status")
@json_option
def status_command(as_json: bool) -> None:
    """The settings, whether a collector runs to send them, and the latest notifications: sent, or failed and
    why."""
    import os

    from lunavect.collector import process as collector_process
    from lunavect.core.terminal_text import clean
    from lunavect.core.times import local_text
    from lunavect.install import service
    from lunavect.notify import sent
    from lunavect.notify import settings as ns

    conn = open_store()
    running = collector_process.is_running()
    answer = service.status(dict(os.environ))
    if as_json:
        recent = [
            {"key": d.key, "kind": d.kind, "at": d.at, "outcome": d.outcome, "reason": d.reason}
            for d in sent.recent(conn, 5)
        ]
        print_json(
            {
                "settings": ns.load(conn),
                "collector_running": running,
                "service": {"ok": answer.ok, "message": answer.message, "path": answer.path},
                "sent": recent,
            }
        )
        return
    click.echo(_describe(ns.load(conn)))
    click.echo(
        "collector: "
        + ("running (it sends the notifications)" if running else "not running: nothing is sent until one starts")
    )
    click.echo(f"service: {answer.message}")
    for delivery in sent.recent(conn, 5):
        when = local_text(delivery.at, "%Y-%m-%d %H:%M:%S", missing="?")
        outcome = delivery.outcome or "sending"
        why = f": {clean(delivery.reason)}" if delivery.reason and delivery.outcome != sent.SENT else ""
        click.echo(f"{outcome} {when} {clean(delivery.kind)} {clean(delivery.key)}{why}")


@notifications.command("set")
@click.option("--hidden/--no-hidden", default=None, help="Notify for hidden sessions too.")
@click.option(
    "--focus/--no-focus", default=None, help="Stay silent for the pane or window you are looking at (default)."
)
@click.option("--desktop/--no-desktop", default=None, help="Show desktop notifications (default).")
@click.option("--sound", default=None, metavar="NAME", help="The sound: default, none, or a sound's name.")
@click.option(
    "--sound-for",
    nargs=2,
    multiple=True,
    metavar="KIND|PROJECT NAME",
    help="A sound for one kind or one project (NAME 'inherit' removes it).",
)
@click.option(
    "--command",
    "command",
    default=None,
    metavar="PROGRAM",
    help="Run PROGRAM with each notification as JSON on stdin ('' removes it).",
)
@click.option(
    "--usage-percent",
    "usage_percent",
    default=None,
    metavar="PERCENT|off",
    help="Warn once per window when an account's rate-limit window reaches PERCENT (default 90; off: never).",
)
@json_option
def set_command(
    hidden: bool | None,
    focus: bool | None,
    desktop: bool | None,
    sound: str | None,
    sound_for: tuple[tuple[str, str], ...],
    command: str | None,
    usage_percent: str | None,
    as_json: bool,
) -> None:
    """Change how notifications are sent."""
    import shlex

    from lunavect.notify import settings as ns

    conn = open_store()
    current = ns.load(conn)
    if hidden is not None:
        current.hidden = hidden
    if focus is not None:
        current.focus = focus
    if desktop is not None:
        current.desktop = desktop
    if sound is not None:
        current.sound = sound
    for name, value in sound_for:
        if value == "inherit":
            current.sounds.pop(name, None)
        else:
            current.sounds[name] = value
    if command is not None:
        if command.strip():
            try:
                shlex.split(command)
            except ValueError as exc:
                raise click.BadParameter(f"cannot split the command: {exc}", param_hint="'--command'") from None
        current.command = command.strip() or None
    if usage_percent is not None:
        current.usage_percent = _percent(usage_percent)
    ns.save(conn, current)
    _say(current, as_json)


def _test_note() -> Any:
    from lunavect.notify.decide import Item, compose

    item = Item(
        key="lunavect:test",
        kind="ready",
        mark="test",
        title="lunavect test notification",
        project=None,
        provider="lunavect",
        client=None,
        needs="nothing: notifications work",
        since=None,
        urgency=0,
    )
    return compose([item])


@notifications.command("test")
@json_option
def test_command(as_json: bool) -> None:
    """Send a test notification now, through the desktop and the command hook, and say how each went."""
    from lunavect.notify import settings as ns
    from lunavect.notify.command import run_command

    conn = open_store()
    current = ns.load(conn)
    note = _test_note()
    how: dict[str, str | None] = {"desktop": "off", "command": None}
    failed = False
    if current.desktop:
        from lunavect.notify.desktop import Desktop, DesktopUnavailable

        try:
            desktop = Desktop(on_open=lambda _key: None)
            try:
                desktop.send(note, current.sound)
            finally:
                desktop.close()
            how["desktop"] = "sent"
        except DesktopUnavailable as exc:
            how["desktop"] = str(exc)
            failed = True
    if current.command:
        failure = run_command(current.command, note)
        how["command"] = failure or "ran"
        failed = failed or failure is not None
    if as_json:
        print_json({"ok": not failed, **how})
    else:
        for channel, said in how.items():
            if said is not None:
                click.echo(f"{channel}: {said}")
    if failed:
        raise SystemExit(1)


@notifications.group("push")
def push_group() -> None:
    """Push notifications to a phone or a chat through Apprise (ntfy, Gotify, Pushover, Telegram, Matrix, e-mail
    and ~100 more; the `push` extra): the kinds that are on also go to the services of an Apprise configuration
    file. lunavect keeps only the file's path and a tag, never a service's URL or token.

    \b
    Examples:
      lunavect notifications push set ~/.config/apprise/apprise.yml --tag lunavect
      lunavect notifications push test
    """


def _push_module() -> Any:
    from lunavect.notify import push

    return push


def _refuse(reason: str, as_json: bool) -> NoReturn:
    """A push command that could not do its work: one line, or with `--json` `{"ok": false, "reason"}`; exit 1."""
    from lunavect.cli.common import Failure

    if as_json:
        print_json({"ok": False, "reason": reason})
        raise SystemExit(1)
    raise Failure(reason)


@push_group.command("set")
@click.argument("config", metavar="FILE", type=click.Path(dir_okay=False, path_type=str))
@click.option("--tag", default=None, metavar="TAG", help="Only the services of FILE that have this tag.")
@json_option
def push_set(config: str, tag: str | None, as_json: bool) -> None:
    """Push through the services of the Apprise configuration FILE (YAML or text; see README, "On your phone")."""
    import os

    from lunavect.notify import settings as ns

    push = _push_module()
    path = os.path.abspath(os.path.expanduser(config))
    try:
        _, services = push.load(path, tag)
    except push.PushError as exc:
        _refuse(str(exc), as_json)
    if not services:
        where = f" with the tag {tag}" if tag else ""
        _refuse(f'{path} names no Apprise service{where} (see README, "On your phone")', as_json)
    conn = open_store()
    current = ns.load(conn)
    current.push_config, current.push_tag = path, tag
    ns.save(conn, current)
    said = {"ok": True, "config": path, "tag": tag, "services": services}
    if as_json:
        print_json(said)
        return
    click.echo(f"push: on, through {services} service(s) of {path}" + (f" tagged {tag}" if tag else ""))
    if os.stat(path).st_mode & 0o077:
        click.echo(f"  warning: {path} holds your services' tokens and others may read it: chmod 600 it")


@push_group.command("off")
@json_option
def push_off(as_json: bool) -> None:
    """Stop pushing (the configuration file is left as it is)."""
    from lunavect.notify import settings as ns

    conn = open_store()
    current = ns.load(conn)
    current.push_config = current.push_tag = None
    ns.save(conn, current)
    if as_json:
        print_json({"config": None, "tag": None})
    else:
        click.echo("push: off")


@push_group.command("status")
@json_option
def push_status(as_json: bool) -> None:
    """Where pushes go, the web panel's public address their links use, and how sending went: sends and
    failures counted, the last failure's reason."""
    from lunavect import store
    from lunavect.core.terminal_text import clean
    from lunavect.core.times import local_text
    from lunavect.notify import settings as ns

    push = _push_module()
    conn = open_store()
    current = ns.load(conn)
    public_url = store.get_setting(conn, push.PUBLIC_URL_SETTING)
    said = {"config": current.push_config, "tag": current.push_tag, "public_url": public_url, **push.status(conn)}
    if as_json:
        print_json(said)
        return
    if current.push_config is None:
        click.echo("push: off (lunavect notifications push set FILE)")
    else:
        tagged = f" tagged {current.push_tag}" if current.push_tag else ""
        click.echo(f"push: on, through the services of {clean(current.push_config)}{tagged}")
    click.echo(f"links: {clean(public_url) if public_url else 'none (lunavect web --public-url URL)'}")
    click.echo(f"sent: {said['sent']}, failed: {said['failed']}")
    failure = said["last_failure"]
    if isinstance(failure, dict):
        when = local_text(failure["at"], "%Y-%m-%d %H:%M:%S", missing="?")
        click.echo(f"last failure {when}: {clean(str(failure['reason']))}")


@push_group.command("test")
@json_option
def push_test(as_json: bool) -> None:
    """Push a test notification now, wait for the services, and say how it went (exit 1 when it failed)."""
    import time

    from lunavect import store
    from lunavect.notify import settings as ns

    push = _push_module()
    conn = open_store()
    current = ns.load(conn)
    if current.push_config is None:
        _refuse("push is off: lunavect notifications push set FILE first", as_json)
    test_push = push.push_of(_test_note(), store.get_setting(conn, push.PUBLIC_URL_SETTING))
    failure = push.send(current.push_config, current.push_tag, test_push)
    push.record(conn, failure, time.time())
    if failure is not None:
        _refuse(f"push failed: {failure}", as_json)
    if as_json:
        print_json({"ok": True, "reason": None})
    else:
        click.echo("push: sent")


COMMANDS: tuple[click.Command, ...] = (notifications,)
