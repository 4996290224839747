"""A terminal opened after lunavect's process first named one still has its name: psutil reads its map of
terminal devices once per process, and a long-running process (the collector, whose notifier opens a session on
a click) would otherwise place a session started since in no terminal at all."""

from __future__ import annotations

import os

import psutil
import pytest
from tmux_server import tmux_server

from lunavect.host.processes import LiveProcesses

pytestmark = pytest.mark.process


def test_a_terminal_opened_after_the_first_lookup_is_named(iso_env) -> None:
    psutil.Process(os.getpid()).terminal()  # psutil's map of terminals is read now, before the pane exists
    with tmux_server(dict(os.environ)) as server:
        server("respawn-pane", "-k", "-t", "main", "exec sleep 300")
        pid, tty = server("display-message", "-p", "-t", "main", "#{pane_pid} #{pane_tty}").split()
        proc = LiveProcesses().get(int(pid))
        assert proc is not None and proc.tty == tty
