"""A real desktop for notification tests: Xvfb, a private D-Bus session bus and dunst, all started by the test
and stopped at its end. Notifications are read back with `dunstctl` on that bus.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from x_server import start_xvfb

NEEDED = ("Xvfb", "dbus-daemon", "dunst", "dunstctl")

DUNSTRC = """
[global]
    history_length = 100
    sticky_history = yes
    idle_threshold = 0
    show_age_threshold = -1
[urgency_low]
    timeout = 0
[urgency_normal]
    timeout = 0
[urgency_critical]
    timeout = 0
"""


def missing() -> list[str]:
    return [name for name in NEEDED if shutil.which(name) is None]


@dataclass
class DesktopBus:
    folder: Path
    env: dict[str, str] = field(default_factory=dict)
    procs: list[subprocess.Popen] = field(default_factory=list)

    @classmethod
    def start(cls) -> DesktopBus:
        bus = cls(Path(tempfile.mkdtemp(prefix="lv-bus-")))
        try:
            bus._start()
        except BaseException:
            bus.stop()
            raise
        return bus

    def _start(self) -> None:
        xvfb, display = start_xvfb(
            "800x600x24", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self.procs.append(xvfb)
        address = f"unix:path={self.folder / 'bus'}"
        dbus = subprocess.Popen(
            ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}", "--print-address"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
        self.procs.append(dbus)
        assert dbus.stdout is not None
        printed = dbus.stdout.readline().strip()
        if not printed:
            raise RuntimeError("dbus-daemon did not start")
        self.env = {"DISPLAY": display, "DBUS_SESSION_BUS_ADDRESS": printed}
        config = self.folder / "dunstrc"
        config.write_text(DUNSTRC)
        env = {**os.environ, **self.env, "HOME": str(self.folder)}
        self.procs.append(
            subprocess.Popen(
                ["dunst", "-config", str(config)],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        )
        self.wait(lambda: self.ctl("is-paused").returncode == 0, what="dunst on the bus")

    def ctl(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["dunstctl", *args],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=10,
        )

    def wait(self, predicate: Callable[[], bool], *, timeout: float = 20, what: str = "a condition") -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")
            time.sleep(0.05)

    def displayed(self) -> int:
        done = self.ctl("count", "displayed")
        return int(done.stdout.strip() or 0) if done.returncode == 0 else 0

    def shown(self) -> list[dict[str, str]]:
        """Every notification dunst received so far (summary, body, appname, and `message`: the markup dunst
        draws, its format with the summary escaped and the body as received), oldest first: the displayed
        ones are moved to the history (closed) first, so that the history holds them all."""
        self.ctl("close-all")
        return self.history()

    def history(self) -> list[dict[str, str]]:
        """The notifications closed so far (by their sender, or by `shown`), as `shown` describes them, oldest
        first; the displayed ones are left on screen."""
        done = self.ctl("history")
        if done.returncode != 0:
            raise AssertionError(done.stderr)
        data = json.loads(done.stdout)["data"][0]
        out = [
            {key: str(entry[key]["data"]) for key in ("summary", "body", "message", "appname", "id") if key in entry}
            for entry in data
        ]
        return sorted(out, key=lambda e: int(e.get("id", 0)))

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except OSError:
                    pass
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait(timeout=5)
        shutil.rmtree(self.folder, ignore_errors=True)
