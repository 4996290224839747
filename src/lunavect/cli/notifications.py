"""`lunavect notifications on|off|status|test|sound|command ...`: the notifier's settings, kept in the store,
where the collector's notifier reads them again for each batch (no restart needed)."""

from __future__ import annotations

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


@notifications.command("test")
@json_option
def test_command(as_json: bool) -> None:
    """Send a test notification now, through the desktop and the command hook, and say how each went."""
    from lunavect.notify import settings as ns
    from lunavect.notify.command import run_command
    from lunavect.notify.decide import Item, compose

    conn = open_store()
    current = ns.load(conn)
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
    note = compose([item])
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


COMMANDS: tuple[click.Command, ...] = (notifications,)
