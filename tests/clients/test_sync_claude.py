"""Sync with a real Claude Code session: the host running it (the iso HOME, its collector started on
demand) and two other hosts (their own collectors and data folders) share one list through a real
nats-server. The session's state change shows in the other hosts' `lunavect list --json`; when the
running host's collector is killed, the others show the session `offline` within the heartbeat bound."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from anthropic_server import text, tool_use
from lunavect_probe import wait_for
from machines import Machine
from nats_servers import HOSTS
from sync_support import wait_until

BEAT_S = 1.0


def test_a_real_sessions_change_shows_on_other_hosts_and_turns_offline_when_its_collector_dies(
    claude_tmux, model_server, iso_home, nats, alpha_synced, tmp_path
):
    others = [Machine.create(tmp_path / "hosts", name) for name in ("beta", "gamma")]
    try:
        for other in others:
            other.start_collector()
            assert other.sync_set(nats.url, HOSTS[other.name], "--beat-seconds", str(BEAT_S)).returncode == 0

        command = "python3 -c 'import time; time.sleep(6)'"
        model_server.script(tool_use("Bash", {"command": command, "description": "wait"}), text("Finished"))
        claude = claude_tmux("--allowedTools", "Bash", "--permission-mode", "acceptEdits")
        claude.send_text("run the wait")
        local = wait_for(iso_home.env, lambda s: s["state"] == "working" and s["activity"] == "Bash", timeout=40)
        assert local["host"] == "alpha"
        key = local["id"]

        def seen(other: Machine, state: str) -> bool:
            row = other.by_id().get(key)
            return row is not None and row["host"] == "alpha" and row["state"] == state

        for other in others:
            wait_until(lambda other=other: seen(other, "working"), timeout=30, what=f"working on {other.name}")
        # The title may change while it works (lunavect's own until the transcript names it): compare the
        # rows as they stand once both say ready.
        local = wait_for(iso_home.env, lambda s: s["state"] == "ready" and s["title"] == "run the wait", timeout=40)
        for other in others:
            wait_until(lambda other=other: seen(other, "ready"), timeout=30, what=f"ready on {other.name}")
        wait_until(
            lambda: others[0].by_id()[key]["title"] == local["title"], timeout=30, what="the title on another host"
        )
        assert others[0].by_id()[key]["session_id"] == local["session_id"]

        # Kill alpha's collector (by the pid in its lock file): its session turns offline elsewhere.
        data = Path(iso_home.env["LUNAVECT_HOME"])
        pid = int((data / "collector.lock").read_text().strip())
        os.kill(pid, signal.SIGKILL)
        for other in others:
            wait_until(lambda other=other: seen(other, "offline"), timeout=30, what=f"offline on {other.name}")
        assert others[0].by_id()[key]["heard"] is not None
    finally:
        for other in others:
            other.stop_collector()
