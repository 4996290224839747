"""Three hosts, each a real collector with its own data folder and host name, through a real nats-server:
what one machine's hooks say shows in the others' `lunavect list --json`, a killed collector's sessions turn
`offline`, a server outage loses and doubles nothing."""

from __future__ import annotations

import json
import time

import pytest
from machines import Machine, new_session_id
from nats_servers import HOSTS
from sync_support import create_bucket, wait_until

BEAT_S = 0.5
OUTAGE_S = 30.0


@pytest.fixture
def hosts(tmp_path, nats_server):
    create_bucket([nats_server.url])
    machines = {name: Machine.create(tmp_path, name) for name in HOSTS}
    try:
        for machine in machines.values():
            machine.start_collector()
            done = machine.sync_set(nats_server.url, HOSTS[machine.name], "--beat-seconds", str(BEAT_S))
            assert done.returncode == 0, done.stderr
            assert f"this machine is '{machine.name}'" in done.stdout
        yield machines
    finally:
        for machine in machines.values():
            machine.stop_collector()


def server_url(machine: Machine) -> str:
    """The server URL a machine was set up with, as its `sync status --json` says it."""
    return json.loads(machine.run("sync", "status", "--json").stdout)["servers"][0]


def state_on(machine: Machine, session_id: str) -> str | None:
    row = machine.by_id().get(f"claude:{session_id}")
    return None if row is None else f"{row['host']}:{row['state']}"


def test_a_change_on_one_host_shows_on_the_others_and_a_killed_collector_turns_offline(hosts):
    alpha, beta, gamma = hosts["alpha"], hosts["beta"], hosts["gamma"]
    sid = new_session_id()
    alpha.hook("UserPromptSubmit", sid, prompt="secret prompt text")
    assert state_on(alpha, sid) == "alpha:working"
    for other in (beta, gamma):
        wait_until(lambda other=other: state_on(other, sid) == "alpha:working", what=f"working on {other.name}")
    # Another host's session opens there: while it runs (in no tmux pane), that host's `open` focuses it; the
    # command is printed (this test runs outside tmux).
    opened = beta.run("open", sid[:8])
    assert opened.returncode == 0 and f"ssh alpha -t lunavect open claude:{sid}" in opened.stdout, opened
    alpha.hook("Stop", sid, last_assistant_message="secret reply text", stop_hook_active=False)
    for other in (beta, gamma):
        wait_until(lambda other=other: state_on(other, sid) == "alpha:ready", what=f"ready on {other.name}")
    assert [s["id"] for s in beta.sessions("--host", "alpha")] == [f"claude:{sid}"]
    assert beta.sessions("--host", "gamma") == []
    # Its client's process not running there (a hooks-only session that is ready), it is resumed there.
    opened = beta.run("open", sid[:8])
    assert opened.returncode == 0 and f"ssh alpha -t lunavect resume claude:{sid}" in opened.stdout, opened
    resumed = beta.run("resume", sid, "--print")
    assert resumed.stdout.strip() == f"ssh alpha -t lunavect resume claude:{sid}"
    assert "ssh" not in alpha.run("open", sid).stdout + alpha.run("resume", sid, "--print").stdout

    # The person's arrangement is theirs on every machine: a pin on beta shows on alpha and gamma.
    assert beta.run("pin", sid[:8]).returncode == 0
    for other in (alpha, gamma):
        wait_until(lambda other=other: other.by_id()[f"claude:{sid}"]["pinned"], what=f"pinned on {other.name}")

    alpha.kill_collector()
    for other in (beta, gamma):
        wait_until(lambda other=other: state_on(other, sid) == "alpha:offline", what=f"offline on {other.name}")
    row = beta.by_id()[f"claude:{sid}"]
    assert row["heard"] is not None and row["basis"] == ["heartbeat"]
    # Wrong credentials: one clear line, and the machine's sync stays as it was.
    refused = gamma.sync_set(server_url(beta), "not-gamma's-password")
    assert refused.returncode == 1 and refused.stderr.startswith("lunavect: the server")
    assert "refused these credentials" in refused.stderr and refused.stderr.count("\n") == 1
    assert "host gamma at" in gamma.run("sync", "status").stdout
    # Gamma renamed: its old name leaves the others (no ghost host), its new one arrives.
    secret = gamma.root / "right.password"
    secret.write_text(HOSTS["gamma"])
    renamed = gamma.run("sync", "set", server_url(gamma), "--user", "gamma", "--password-file", str(secret),
                        "--host-name", "gamma-2", "--beat-seconds", str(BEAT_S))  # fmt: skip
    assert renamed.returncode == 1 and "write the keys of host 'gamma-2'" in renamed.stderr  # only gamma's keys
    assert "host gamma at" in gamma.run("sync", "status").stdout
    status = beta.run("sync", "status")
    assert "alpha: 1 sessions, silent" in status.stdout, status.stdout
    # Nothing private crossed: the other machines' stores never saw the prompt or the reply.
    for other in (beta, gamma):
        for path in other.data.rglob("*"):
            if path.is_file():
                data = path.read_bytes()
                assert b"secret prompt" not in data and b"secret reply" not in data, path


def test_a_server_outage_keeps_local_lists_right_and_the_others_catch_up(hosts, nats_server):
    alpha, beta = hosts["alpha"], hosts["beta"]
    sids = [new_session_id() for _ in range(3)]
    for sid in sids:
        alpha.hook("UserPromptSubmit", sid, prompt="p")
    wait_until(lambda: all(state_on(beta, sid) == "alpha:working" for sid in sids), what="three working on beta")

    nats_server.stop()
    stopped = time.monotonic()
    wait_until(lambda: "not current since" in beta.run("sync", "status").stdout, what="beta says not current")
    text = beta.run("list").stdout
    assert "other hosts not current since" in text and "alpha: project" in text
    # While the server is down: one finishes, one asks permission, one new session starts.
    alpha.hook("Stop", sids[0], stop_hook_active=False)
    alpha.hook("PermissionRequest", sids[1], tool_name="Bash")
    late = new_session_id()
    alpha.hook("UserPromptSubmit", late, prompt="p")
    local = {sid: state_on(alpha, sid) for sid in [*sids, late]}
    assert local == {
        sids[0]: "alpha:ready",
        sids[1]: "alpha:permission",
        sids[2]: "alpha:working",
        late: "alpha:working",
    }
    # Beta cannot hear alpha: its rows turn offline rather than stay as they were.
    wait_until(lambda: all(state_on(beta, sid) == "alpha:offline" for sid in sids), what="alpha offline on beta")
    time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - stopped)))  # the outage lasts its full length
    nats_server.start()
    wait_until(lambda: {sid: state_on(beta, sid) for sid in local} == local, timeout=40, what="beta caught up")
    ids = [s["id"] for s in beta.sessions()]
    assert len(ids) == len(set(ids)) == 4
    wait_until(lambda: "not current" not in beta.run("sync", "status").stdout, what="beta current again")
