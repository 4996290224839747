"""`lunavect events` over two real collectors and a real nats-server (issue 46, item 2): a change on beta
appears on alpha once, in order, numbered; `--follow` prints it as it comes; `--since` resumes exactly across
a restart of alpha's collector; nothing private crosses."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from machines import Machine, new_session_id
from nats_servers import HOSTS
from sync_support import create_bucket, wait_until

BEAT_S = 0.5


@pytest.fixture
def pair(tmp_path, nats_server):
    create_bucket([nats_server.url])
    machines = {name: Machine.create(tmp_path, name) for name in ("alpha", "beta")}
    try:
        for machine in machines.values():
            machine.start_collector()
            done = machine.sync_set(nats_server.url, HOSTS[machine.name], "--beat-seconds", str(BEAT_S))
            assert done.returncode == 0, done.stderr
        yield machines
    finally:
        for machine in machines.values():
            machine.stop_collector()


def changes(machine: Machine, *extra: str) -> list[dict[str, object]]:
    done = machine.run("events", "--json", *extra)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def of(machine: Machine, sid: str, *extra: str) -> list[tuple[object, object]]:
    return [(c["from"], c["to"]) for c in changes(machine, *extra) if c["id"] == f"claude:{sid}"]


def test_a_change_on_beta_appears_on_alpha_once_in_order_and_resumes_across_a_restart(pair):
    alpha, beta = pair["alpha"], pair["beta"]
    sid = new_session_id()
    beta.hook("UserPromptSubmit", sid, prompt="secret prompt text")
    wait_until(lambda: of(alpha, sid) == [(None, "working")], what="working on alpha")
    beta.hook("Stop", sid, last_assistant_message="secret reply text", stop_hook_active=False)
    wait_until(lambda: of(alpha, sid) == [(None, "working"), ("working", "ready")], what="ready on alpha")
    # Beta's own stream says the same of its own session.
    assert of(beta, sid) == [(None, "working"), ("working", "ready")]
    seen = [c for c in changes(alpha, "--host", "beta") if c["id"] == f"claude:{sid}"]
    assert [c["host"] for c in seen] == ["beta", "beta"] and seen[0]["client"] == "claude"
    assert seen[0]["seq"] < seen[1]["seq"]  # type: ignore[operator]
    last = seen[-1]["seq"]

    # A follower on alpha prints the next change as it arrives, one JSON line.
    follower = subprocess.Popen(
        [sys.executable, "-m", "lunavect", "events", "--follow", "--json", "--host", "beta"],
        env=alpha.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
    )
    try:
        time.sleep(1.0)  # it starts after the newest change
        beta.hook("UserPromptSubmit", sid, prompt="secret prompt text")
        assert follower.stdout is not None
        line = json.loads(follower.stdout.readline())
        assert (line["id"], line["from"], line["to"]) == (f"claude:{sid}", "ready", "working")
    finally:
        follower.terminate()
        follower.wait(timeout=10)

    # Alpha's collector restarts; beta moves on meanwhile: `--since` gives exactly what came after.
    alpha.stop_collector()
    beta.hook("Stop", sid, last_assistant_message="secret reply text", stop_hook_active=False)
    alpha.start_collector()
    wait_until(lambda: of(alpha, sid, "--since", str(last))[-1:] == [("working", "ready")], what="caught up")
    assert of(alpha, sid, "--since", str(last)) == [("ready", "working"), ("working", "ready")]
    assert of(alpha, sid) == [(None, "working"), ("working", "ready"), ("ready", "working"), ("working", "ready")]
    # Nothing private crossed, nor was stored by either machine's stream.
    for machine in (alpha, beta):
        assert b"secret" not in machine.run("events", "--json").stdout.encode()
    for path in alpha.data.rglob("*"):
        if path.is_file():
            assert b"secret prompt" not in path.read_bytes() and b"secret reply" not in path.read_bytes(), path


def test_a_bad_since_is_one_clear_line(tmp_path):
    done = Machine.create(tmp_path, "alpha").run("events", "--since", "last tuesday")
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "takes a change's number or an ISO-8601 time" in done.stderr
