"""Is there a tray to put an icon in? Answered before pystray starts, so that a desktop without one gets one
clear line instead of an icon nobody sees (pystray itself would run on, invisible).

On X11 a tray is the owner of the `_NET_SYSTEM_TRAY_S<screen>` selection (the freedesktop system tray
protocol that trayer, stalonetray, and the trays of XFCE, MATE and KDE implement); macOS always has a menu
bar. Other systems are let through: pystray says itself what it cannot do there.
"""

from __future__ import annotations

import os
import sys

from lunavect.core.extras import needs_extra


def missing_tray(environ: dict[str, str] | None = None, platform: str = sys.platform) -> str | None:
    """Why no tray icon can be shown here, or None when one can."""
    env = os.environ if environ is None else environ
    if platform == "darwin" or not platform.startswith("linux"):
        return None
    display = env.get("DISPLAY")
    if not display:
        if env.get("WAYLAND_DISPLAY"):
            return "no X11 display for the tray (run under XWayland with a tray, e.g. waybar's tray)"
        return "no graphical display here ($DISPLAY is not set)"
    try:
        from Xlib import display as xdisplay
        from Xlib.error import DisplayError
    except ImportError:
        return needs_extra("the tray", "tray")
    try:
        conn = xdisplay.Display(display)
    except (DisplayError, OSError) as exc:
        return f"cannot open the display {display}: {exc}"
    try:
        atom = conn.intern_atom(f"_NET_SYSTEM_TRAY_S{conn.get_default_screen()}")
        owner = conn.get_selection_owner(atom)
        if int(getattr(owner, "id", owner)) == 0:
            return f"no system tray runs on the display {display}"
        return None
    finally:
        conn.close()
