"""What the real-client notification tests share: the collector run as `lunavect daemon` on the test's D-Bus
session (desktop_bus.py), and a wait for the notifications the bus's dunst showed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from desktop_bus import DesktopBus


class Collector:
    """`lunavect daemon` on the test's bus, in the iso HOME."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.proc: subprocess.Popen | None = None

    def start(self) -> Collector:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lunavect", "daemon"],
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.env["LUNAVECT_HOME"], "daemon.log"), "ab"),  # noqa: SIM115
            start_new_session=True,
        )
        lock = os.path.join(self.env["LUNAVECT_HOME"], "collector.lock")
        deadline = time.monotonic() + 20
        while not (os.path.exists(lock) and open(lock).read().strip() == str(self.proc.pid)):
            assert time.monotonic() < deadline, "the collector did not start"
            time.sleep(0.05)
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


def wait_shown(desktop: DesktopBus, count: int, timeout: float = 60) -> list[dict[str, str]]:
    shown: list[dict[str, str]] = []

    def enough() -> bool:
        nonlocal shown
        shown = desktop.shown()
        return len(shown) >= count

    desktop.wait(enough, timeout=timeout, what=f"{count} notification(s)")
    return shown
