"""Make the web panel's screenshots in this folder: a real `lunavect web` on seeded sessions, in Chromium at a
phone's width (360 px), light and dark, and at a desktop's.

Run: .venv/bin/python docs/screenshots/make_web.py   (everything happens in a temporary LUNAVECT_HOME)
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "support"))


def main() -> None:
    import os

    import tui_seed as seed
    from playwright.sync_api import sync_playwright
    from web_support import CHROMIUM_ARGS, chromium_path, isolated_env, start_web, stop_collector

    folder = Path(tempfile.mkdtemp(prefix="lunavect-web-shots-"))
    env = isolated_env(folder)
    os.environ.update({k: env[k] for k in ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "LUNAVECT_HOME")})
    served = start_web(env)
    try:
        from lunavect import store
        from lunavect.listing import arrangement

        seed.NOW = time.time()  # timers start from now, and tick in the page
        conn = store.connect()
        sessions = seed.every_state()
        for session in sessions:
            session.host = os.uname().nodename
        seed.write(conn, sessions)
        arrangement.pin(conn, "claude:a5")
        arrangement.hide(conn, "claude:b5")
        conn.close()
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            shots = [
                ("web-phone.png", 360, 740, "light"),
                ("web-phone-dark.png", 360, 740, "dark"),
                ("web-desktop.png", 1100, 640, "light"),
            ]
            for name, width, height, scheme in shots:
                context = browser.new_context(
                    viewport={"width": width, "height": height}, color_scheme=scheme, device_scale_factor=2
                )
                page = context.new_page()
                page.goto(served.control)
                page.wait_for_selector("body[data-loaded='1']")
                page.wait_for_selector("li.row")
                page.evaluate("document.querySelector('#message').hidden = true")
                page.wait_for_timeout(1200)
                page.screenshot(path=str(HERE / name))
                context.close()
            browser.close()
    finally:
        served.stop()
        stop_collector(env)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
