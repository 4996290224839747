"""`lunavect tray`: the counts in a tray icon, with a menu of the sessions that need their person."""

from __future__ import annotations

import click

from lunavect.cli.common import Failure, fresh_store


@click.command("tray")
def tray_command() -> None:
    """Show the counts in the system tray; its menu opens a session that needs you, or the panel.

    Needs the tray extra (`uv tool install 'lunavect[tray]'`) and a tray on the desktop; without one it says
    so and exits 1.
    """
    from lunavect.frontends.tray.presence import missing_tray

    why = missing_tray()
    if why:
        raise Failure(why)
    try:
        from lunavect.frontends.tray.app import Tray
    except ImportError as exc:
        from lunavect.core.extras import needs_extra

        raise Failure(f"{needs_extra('the tray', 'tray')} ({exc})") from None
    from lunavect.core.model import Session
    from lunavect.listing.sessions import read_sessions
    from lunavect.navigation.navigate import open_session

    conn = fresh_store()

    def open_one(session: Session) -> object:
        others = [s for s in read_sessions(conn, include_hidden=True) if s.id != session.id]
        return open_session(session, others=others)

    try:
        Tray(conn, open_one).run()
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # pystray's backends raise their toolkit's own errors (GLib.Error, Xlib's)
        raise Failure(f"the tray could not start: {exc}") from None


COMMANDS: tuple[click.Command, ...] = (tray_command,)
