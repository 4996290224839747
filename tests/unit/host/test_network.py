"""No network: the OS's own view of routes and interfaces, and the state it gives a working session."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lunavect.host.network import NetworkWatch, has_network

ROUTE_HEADER = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
DEFAULT_ROUTE = "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n"
LINK_ROUTE = "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
IPV6_DEFAULT = (
    "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
    "fd000000000000000000000000000001 00000400 00000002 00000000 00000003     eth0\n"
)
IPV6_LOOPBACK = (
    "00000000000000000000000000000001 80 00000000000000000000000000000000 00 "
    "00000000000000000000000000000000 00000000 00000002 00000000 80200001       lo\n"
)


def fake_host(tmp_path: Path, route: str = "", ipv6: str = "", eth0: str = "up") -> tuple[Path, Path]:
    proc, sysfs = tmp_path / "proc", tmp_path / "sys"
    (proc / "net").mkdir(parents=True)
    (proc / "net" / "route").write_text(ROUTE_HEADER + route)
    (proc / "net" / "ipv6_route").write_text(ipv6)
    (sysfs / "class" / "net" / "eth0").mkdir(parents=True)
    (sysfs / "class" / "net" / "eth0" / "operstate").write_text(eth0 + "\n")
    return proc, sysfs


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
class TestLinuxRoutes:
    def test_a_default_route_on_an_up_interface_is_a_connection(self, tmp_path):
        assert has_network(*fake_host(tmp_path, DEFAULT_ROUTE + LINK_ROUTE)) is True

    def test_only_a_link_route_is_no_connection(self, tmp_path):
        assert has_network(*fake_host(tmp_path, LINK_ROUTE)) is False

    def test_a_default_route_on_a_down_interface_is_no_connection(self, tmp_path):
        assert has_network(*fake_host(tmp_path, DEFAULT_ROUTE, eth0="down")) is False

    def test_an_ipv6_default_route_alone_is_a_connection(self, tmp_path):
        assert has_network(*fake_host(tmp_path, "", IPV6_DEFAULT)) is True

    def test_loopback_is_never_a_connection(self, tmp_path):
        assert has_network(*fake_host(tmp_path, "", IPV6_LOOPBACK)) is False

    def test_no_routing_tables_is_unknown(self, tmp_path):
        assert has_network(tmp_path / "nothing", tmp_path / "nothing") is None

    def test_this_machine_has_its_default_route(self):
        # The machine these tests run on reaches its package registries through a default route.
        assert has_network() is True


def test_network_watch_remembers_since_when_it_is_offline():
    watch = NetworkWatch()
    assert watch.sample(100.0, True) is None
    assert watch.sample(101.0, False) == 101.0
    assert watch.sample(105.0, False) == 101.0
    assert watch.sample(106.0, None) is None  # unknown is not offline
    assert watch.sample(107.0, False) == 107.0
    assert watch.sample(108.0, True) is None


@pytest.mark.process
@pytest.mark.skipif(shutil.which("unshare") is None, reason="needs unshare(1)")
def test_a_working_session_shows_no_network_when_the_collector_sees_none_and_returns_after(iso_env):
    """The collector runs in a network namespace with no route at all: the OS itself says "no network"."""
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot create a network namespace here")
    payload = {"session_id": "net-1", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}
    assert iso_env.hook(payload).returncode == 0
    offline_collector = subprocess.Popen(
        ["unshare", "-n", sys.executable, "-m", "lunavect", "daemon", "--quiet"],
        env=iso_env.env,
        stdin=subprocess.DEVNULL,
    )
    try:
        from lunavect.collector import process as collector

        started = time.monotonic() + 20
        while not collector.is_running():  # else `list` would start a collector of its own, with network
            assert time.monotonic() < started, "the collector in the namespace did not start"
            time.sleep(0.05)
        deadline = time.monotonic() + 40
        states = []
        while time.monotonic() < deadline:
            done = iso_env.cli("list", "--json")
            assert done.returncode == 0, done.stderr
            session = json.loads(done.stdout)[0]
            states.append(session["state"])
            if session["state"] == "offline":
                break
            time.sleep(0.5)
        assert states[0] == "working", states  # not before ten seconds without a connection
        assert states[-1] == "offline", states
        assert session["since"] is not None  # the response's timer keeps running
    finally:
        offline_collector.terminate()
        offline_collector.wait(timeout=10)
    # A collector with the machine's own network: the earlier state returns.
    deadline = time.monotonic() + 20
    while True:
        session = json.loads(iso_env.cli("list", "--json").stdout)[0]
        if session["state"] == "working" or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert session["state"] == "working"
