"""`lunavect tmux install|uninstall|publish|popup`: the counts in tmux's status line, the state on each agent
pane's border, and a popup of the sessions that need their person."""

from __future__ import annotations

import click

from lunavect.cli.common import Failure, fresh_store


@click.group("tmux")
def tmux_group() -> None:
    """Show lunavect in tmux: counts in the status line, states on pane borders, a popup (prefix a)."""


def _edit(install: bool) -> None:
    """Write or remove the block, switch publishing on or off, and bring the running servers along."""
    from lunavect import store
    from lunavect.tmux_status import conf, publish, servers

    path = conf.conf_path()
    live = servers.live_sockets()
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
    except OSError as exc:
        raise Failure(f"cannot read {path}: {exc}") from None
    # A key the person binds after the prefix stays theirs: lunavect then binds none in its place.
    taken = conf.persons_keys(text) | servers.persons_keys(live) if install else frozenset()
    try:
        changed, backup = conf.install(path, taken) if install else conf.uninstall(path)
    except OSError as exc:
        raise Failure(f"cannot write {path}: {exc}") from None
    conn = fresh_store()
    store.set_setting(conn, publish.SETTING, "1" if install else "0")
    if install:
        released = servers.release(live, taken)
        servers.apply_block(live, taken)
        publish.Servers().publish(conn, force=True)
    else:
        servers.remove_from(live)
    saved = f" (the previous file is {backup})" if backup else ""
    if install:
        what = "added lunavect's block to" if changed else "lunavect's block is already in"
    else:
        what = "removed lunavect's block from" if changed else "no lunavect block in"
    done = "updated" if install else "cleared"
    click.echo(f"{what} {path}{saved}; {len(live)} running tmux server(s) {done}")
    if install:
        _say_what_to_do(path, text, live, taken, released)


def _say_what_to_do(path: object, text: str, live: list[str], taken: frozenset[str], released: bool) -> None:
    """What the install left to the person: a key that stayed theirs, and the pane borders tmux does not draw."""
    from lunavect.tmux_status import conf, servers

    for key in sorted(taken):
        does = "its popup of the sessions that need you" if key == conf.POPUP_KEY else "the session that needs you most"
        click.echo(
            f"prefix {key} is your own binding, so lunavect binds no key for {does}; to choose one, add to "
            f"{path}: {conf.key_lines()[key].replace(f'bind-key {key} ', 'bind-key KEY ', 1)}"
        )
    if released:
        click.echo(f"your own bindings return in the running tmux servers with: tmux source-file {path}")
    if servers.border_status_off(live, text):
        click.echo(
            "each agent pane's state shows on its border, which tmux draws only with pane-border-status: add "
            f"`set -g pane-border-status top` to {path}"
        )


@tmux_group.command("install")
def install_command() -> None:
    """Add lunavect's block to tmux.conf (backed up first) and apply it to the tmux servers that run."""
    _edit(install=True)


@tmux_group.command("uninstall")
def uninstall_command() -> None:
    """Remove lunavect's block from tmux.conf and its options from the tmux servers that run."""
    _edit(install=False)


@tmux_group.command("publish")
def publish_command() -> None:
    """Set the options on every running tmux server now (the block runs this when a server starts)."""
    from lunavect.tmux_status import publish

    conn = fresh_store()
    if publish.enabled(conn):
        publish.Servers().publish(conn, force=True)


@tmux_group.command("popup")
def popup_command() -> None:
    """The list of sessions that need their person, for `display-popup`; Enter returns to the chosen one."""
    from lunavect.frontends.bar.popup import choose
    from lunavect.listing.attention import summarize
    from lunavect.listing.sessions import read_sessions
    from lunavect.navigation.navigate import open_session

    conn = fresh_store()
    chosen = choose(list(summarize(conn).attention))
    if chosen is None:
        return
    others = [s for s in read_sessions(conn, include_hidden=True) if s.id != chosen.id]
    result = open_session(chosen, others=others)
    if not result.ok:
        raise Failure(f"{result.outcome.value}: {result.message}")


COMMANDS: tuple[click.Command, ...] = (tmux_group,)
