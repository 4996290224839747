"""`lunavect tray` under Xvfb with a real system tray (trayer): without a tray it says so in one line and exits
1; with one its icon is embedded in the tray, its image changes when the counts change, a right click with
xdotool opens its menu, and the menu's last item quits it."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable

import pytest
from unit_support import LUNAVECT_BIN

NEEDED = ("Xvfb", "trayer", "xdotool", "dbus-run-session")
pytestmark = pytest.mark.skipif(
    any(shutil.which(b) is None for b in NEEDED),
    reason="Xvfb, trayer, xdotool and a D-Bus session are needed (Debian: xvfb trayer xdotool dbus)",
)
Xlib_display = pytest.importorskip("Xlib.display", reason="the tray extra is not installed")
pytest.importorskip("gi", reason="the tray extra (PyGObject) is not installed")

PROMPT = {"session_id": "tray-1", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}
ASK = {"session_id": "tray-1", "hook_event_name": "PermissionRequest", "cwd": "/tmp/p", "tool_name": "Bash"}


def wait(check: Callable[[], object], what: str, timeout: float = 30) -> object:
    deadline = time.monotonic() + timeout
    while not (result := check()):
        assert time.monotonic() < deadline, f"{what} not seen in {timeout}s"
        time.sleep(0.05)
    return result


def tray_owner(name: str) -> int:
    conn = Xlib_display.Display(name)
    try:
        owner = conn.get_selection_owner(conn.intern_atom("_NET_SYSTEM_TRAY_S0"))
        return int(getattr(owner, "id", owner))
    finally:
        conn.close()


def windows(name: str) -> list[tuple[int, int, int, int, int, int]]:
    """Every viewable window: (id, depth below the root, x, y, width, height) in root coordinates."""
    conn = Xlib_display.Display(name)
    found = []
    try:
        root = conn.screen().root
        stack = [(root, 0)]
        while stack:
            window, depth = stack.pop()
            for child in window.query_tree().children:
                if child.get_attributes().map_state != 2:  # IsViewable
                    continue
                geometry = child.get_geometry()
                origin = root.translate_coords(child, 0, 0)
                found.append((child.id, depth + 1, origin.x, origin.y, geometry.width, geometry.height))
                stack.append((child, depth + 1))
    finally:
        conn.close()
    return found


def popups(name: str) -> int:
    """How many override-redirect windows (menus) are mapped on the root."""
    conn = Xlib_display.Display(name)
    try:
        count = 0
        for child in conn.screen().root.query_tree().children:
            attrs = child.get_attributes()
            if attrs.map_state == 2 and attrs.override_redirect:
                count += 1
        return count
    finally:
        conn.close()


def pixels(name: str, box: tuple[int, int, int, int]) -> str:
    """A digest of what the screen shows in `box` (x, y, width, height)."""
    from Xlib import X

    conn = Xlib_display.Display(name)
    try:
        x, y, width, height = box
        image = conn.screen().root.get_image(x, y, width, height, X.ZPixmap, 0xFFFFFFFF)
        return hashlib.sha256(image.data).hexdigest()
    finally:
        conn.close()


@pytest.mark.process
def test_tray_without_a_tray_says_so_and_exits_1(iso_env, display):
    proc = subprocess.run(
        [LUNAVECT_BIN, "tray"], env={**iso_env.env, "DISPLAY": display}, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "no system tray" in proc.stderr


@pytest.mark.process
def test_tray_icon_is_embedded_follows_the_counts_and_its_menu_opens(iso_env, display):
    env = {**iso_env.env, "DISPLAY": display, "PYSTRAY_BACKEND": "gtk", "NO_AT_BRIDGE": "1"}
    trayer = subprocess.Popen(
        ["trayer", "--edge", "top", "--align", "left", "--widthtype", "request", "--height", "32",
         "--SetDockType", "false", "--transparent", "false"],
        env=env,
    )  # fmt: skip
    tray = None
    try:
        wait(lambda: tray_owner(display), "trayer's tray selection")
        wait(lambda: windows(display), "trayer's panel")
        existing = {w[0] for w in windows(display)}

        iso_env.cli("list")  # a collector runs
        # GTK's tray icon talks to the session bus, as on every desktop: a private one for this test.
        tray = subprocess.Popen(["dbus-run-session", "--", LUNAVECT_BIN, "tray"], env=env, start_new_session=True)

        def embedded() -> list[tuple[int, int, int, int, int, int]]:
            # The icon's window reparented into the tray's panel (XEmbed): a new window below a top-level one.
            return [w for w in windows(display) if w[0] not in existing and w[1] >= 2 and w[4] > 1]

        _, _, x, y, width, height = wait(embedded, "the icon embedded in the tray", 60)[-1]
        box = (x, y, width, height)

        def settled() -> str | None:
            """The icon's image once it is drawn and holds still (two grabs a moment apart agree)."""
            before = pixels(display, box)
            time.sleep(0.3)
            return before if pixels(display, box) == before else None

        idle = wait(settled, "the icon's first image")
        assert iso_env.hook(PROMPT).returncode == 0
        assert iso_env.hook(ASK).returncode == 0
        iso_env.cli("list")
        wait(lambda: pixels(display, box) != idle, "the icon's image to change with the counts", 60)
        waiting = wait(settled, "the icon's new image")
        # Back to no session working or waiting: back to the first image.
        assert iso_env.hook({**PROMPT, "hook_event_name": "Stop"}).returncode == 0
        iso_env.cli("list")
        wait(lambda: pixels(display, box) == idle, "the icon's first image again", 60)
        assert waiting != idle

        menus = popups(display)
        subprocess.run(
            ["xdotool", "mousemove", str(x + width // 2), str(y + height // 2), "click", "3"], env=env, check=True
        )
        wait(lambda: popups(display) > menus, "the menu", 30)
        subprocess.run(["xdotool", "key", "Up", "Return"], env=env, check=True)  # the last item: Quit
        assert tray.wait(30) == 0
    finally:
        if tray is not None and tray.poll() is None:
            os.killpg(tray.pid, signal.SIGTERM)
            tray.wait(10)
        trayer.terminate()
        trayer.wait(10)
