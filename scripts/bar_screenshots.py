"""Take the README's screenshots of the tray icon (with its menu open) and of tmux's status line, for real.

A private Xvfb with trayer, the tray on a private D-Bus session, and xterm running a tmux server that reads the
block `lunavect tmux install` wrote; sessions come from hook events sent through the real shim (two working,
one waiting for permission). Needs Xvfb, trayer, xdotool, xterm, dbus-run-session and the tray extra.

Usage: .venv/bin/python scripts/bar_screenshots.py   (writes docs/screenshots/tray.png and tmux-status.png)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from PIL import Image
from Xlib import X, display

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
LUNAVECT = [sys.executable, "-m", "lunavect"]


def start_xvfb() -> tuple[subprocess.Popen, str]:
    read, write = os.pipe()
    proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1400x400x24"], pass_fds=(write,))
    os.close(write)
    number = b""
    while not number.endswith(b"\n"):
        number += os.read(read, 16)
    os.close(read)
    return proc, f":{number.decode().strip()}"


def grab(name: str, box: tuple[int, int, int, int]) -> Image.Image:
    conn = display.Display(name)
    x, y, width, height = box
    raw = conn.screen().root.get_image(x, y, width, height, X.ZPixmap, 0xFFFFFFFF)
    conn.close()
    return Image.frombytes("RGB", (width, height), raw.data, "raw", "BGRX")


def hook(env: dict[str, str], session: str, event: str, **fields: str) -> None:
    payload = {"session_id": session, "hook_event_name": event, "cwd": f"/home/me/{session}", **fields}
    subprocess.run([*LUNAVECT, "hook", "claude"], input=json.dumps(payload).encode(), env=env, check=True)


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="lv-shots-"))
    home = root / "home"
    tmux_dir = root / "t"
    (tmux_dir / f"tmux-{os.getuid()}").mkdir(parents=True, mode=0o700)
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
        "LUNAVECT_HOME": str(root / "lunavect"),
        "TMUX_TMPDIR": str(tmux_dir),
        "PYSTRAY_BACKEND": "gtk",
        "NO_AT_BRIDGE": "1",
    }
    env.pop("TMUX", None)
    xvfb, name = start_xvfb()
    env["DISPLAY"] = name
    started: list[subprocess.Popen] = [xvfb]
    try:
        for session in ("api-server", "docs-site"):
            hook(env, session, "UserPromptSubmit", prompt="x")
        hook(env, "billing", "UserPromptSubmit", prompt="x")
        hook(env, "billing", "PermissionRequest", tool_name="Bash")
        subprocess.run([*LUNAVECT, "tmux", "install"], env=env, check=True, capture_output=True)

        trayer = ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "24"]
        started.append(subprocess.Popen([*trayer, "--SetDockType", "false", "--transparent", "false"], env=env))
        time.sleep(1)
        started.append(subprocess.Popen(["dbus-run-session", "--", *LUNAVECT, "tray"], env=env, start_new_session=True))
        time.sleep(3)
        subprocess.run(["xdotool", "mousemove", "1380", "12", "click", "3"], env=env, check=True)
        time.sleep(1)
        shot = grab(name, (900, 0, 500, 110))
        shot.resize((shot.width * 2, shot.height * 2), Image.Resampling.NEAREST).save(OUT / "tray.png")
        subprocess.run(["xdotool", "key", "Escape"], env=env)

        conf = home / ".tmux.conf"
        xterm = ["xterm", "-geometry", "120x6+0+200", "-fa", "DejaVu Sans Mono", "-fs", "11", "-e"]
        tmux = ["tmux", "-L", "shot", "-f", str(conf), "new-session", "-s", "work", "sh"]
        started.append(subprocess.Popen([*xterm, *tmux], env=env))
        time.sleep(3)
        terminal = grab(name, (0, 200, 1400, 200))
        terminal.crop(terminal.getbbox()).save(OUT / "tmux-status.png")
    finally:
        subprocess.run(["tmux", "-L", "shot", "kill-server"], env=env, capture_output=True)
        for proc in reversed(started):
            if proc.poll() is None:
                os.killpg(proc.pid, 15) if proc.args[0] == "dbus-run-session" else proc.terminate()
        lock = root / "lunavect" / "collector.lock"
        if lock.exists():
            os.kill(int(lock.read_text().strip()), 15)


if __name__ == "__main__":
    main()
