"""The HTTP hook listener's walls against other local users and odd requests: another user's connections
never take a slot, a head is bounded to the byte, deep JSON is stored safely, and whatever fails in the accept
loop or in one connection is counted (`lunavect doctor`) while the next hook is stored."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time

import pytest
from hook_listener_support import EVENT, NEEDS_NOBODY, SECRET, post, request, status_or_reset, wait_lines
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lunavect import faults
from lunavect.listener import request as hook_request
from lunavect.listener import server as hook_listener

FLOOD = """
import socket, sys, time
port, seconds = int(sys.argv[1]), float(sys.argv[2])
held, end = [], time.monotonic() + seconds
print("flooding", flush=True)
while time.monotonic() < end:
    for _ in range(40):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=1)
            s.setblocking(False)
            s.send(b"POST /hook HTTP/1.1\\r\\n")
            held.append(s)
        except OSError:
            pass
    time.sleep(0.45)
print(len(held))
"""


@pytest.mark.process
@NEEDS_NOBODY
def test_another_users_flood_never_costs_a_real_hook_its_answer(listener):
    """As probed: 40 connections as `nobody` every 0.45 s once held every slot, and every real hook got 503."""
    server, spool = listener
    flood = subprocess.Popen(
        ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]
        + [sys.executable, "-I", "-c", FLOOD, str(server.port), "4"],
        stdout=subprocess.PIPE,
    )
    try:
        assert flood.stdout is not None and flood.stdout.readline().strip() == b"flooding"
        time.sleep(1.0)  # the flood is well under way
        answers = []
        for _ in range(20):
            answers.append(status_or_reset(server.port, post()))
            time.sleep(0.1)
    finally:
        flood.wait(timeout=30)
    assert answers == ["200"] * 20
    assert len(wait_lines(spool, 20)) == 20
    assert server.refused.get("other-user", 0) >= 40 and "busy" not in server.refused


def test_a_head_over_the_limit_is_refused_even_in_one_segment(listener):
    server, spool = listener
    padded = post().replace(b"Host:", b"X-Pad: " + b"p" * (20 * 1024) + b"\r\nHost:", 1)
    assert request(server.port, padded).split(" ")[1] == "413"
    base = post().index(b"\r\n\r\n")
    at_limit = post().replace(b"Host:", b"X-Pad: " + b"p" * (hook_request.MAX_HEAD_BYTES - base - 9) + b"\r\nHost:", 1)
    assert at_limit.index(b"\r\n\r\n") == hook_request.MAX_HEAD_BYTES
    assert request(server.port, at_limit) == "HTTP/1.1 200 OK"
    assert len(wait_lines(spool, 1)) == 1


@pytest.mark.parametrize("depth", [900, 2_000, 100_000])
def test_deep_json_is_stored_safely(listener, depth):
    server, spool = listener
    event = json.dumps(dict(EVENT, hook_event_name="PostToolUse")).encode()
    deep = event[:-1] + b', "tool_response": ' + b"[" * depth + b"]" * depth + b"}"
    assert request(server.port, post(body=deep)) == "HTTP/1.1 200 OK"
    (line,) = wait_lines(spool, 1)
    assert line.get("event") == "PostToolUse" or line.get("rejected")
    assert faults.loop_failures(faults.store.connect()) == []


def test_a_fault_in_the_accept_loop_is_counted_and_the_next_hook_is_stored(listener, monkeypatch):
    """A thread that cannot start (RuntimeError, as under memory pressure) once ended the accept loop."""
    server, spool = listener
    real = threading.Thread
    failures = [RuntimeError("can't start new thread")]

    class Flaky(real):
        def start(self) -> None:
            if failures and getattr(self, "_target", None) == server._connection:
                raise failures.pop()
            super().start()

    monkeypatch.setattr(hook_listener.threading, "Thread", Flaky)
    assert status_or_reset(server.port, post()) == "reset"  # closed unanswered: that thread never ran
    monkeypatch.setattr(hook_listener.threading, "Thread", real)
    assert request(server.port, post()) == "HTTP/1.1 200 OK"
    assert len(wait_lines(spool, 1)) == 1
    (failure,) = faults.loop_failures(faults.store.connect())
    assert (failure.loop, failure.count) == ("hook listener", 1) and "can't start" in failure.error


def test_a_fault_in_one_connection_is_counted_and_the_next_hook_is_stored(listener, monkeypatch):
    server, spool = listener
    real = hook_listener.append_record
    failures = [ValueError("injected")]

    def flaky(path: str, record: dict) -> bool:
        if failures:
            raise failures.pop()
        return real(path, record)

    monkeypatch.setattr(hook_listener, "append_record", flaky)
    assert request(server.port, post()) == "HTTP/1.1 200 OK"  # answered before storing: the agent goes on
    assert request(server.port, post()) == "HTTP/1.1 200 OK"
    assert len(wait_lines(spool, 1)) == 1
    deadline = time.monotonic() + 5
    while not faults.loop_failures(faults.store.connect()) and time.monotonic() < deadline:
        time.sleep(0.02)
    (failure,) = faults.loop_failures(faults.store.connect())
    assert (failure.loop, failure.error) == ("hook listener", "ValueError: injected")


def test_no_user_takes_more_than_its_share_of_the_slots():
    slots = hook_listener.Slots(total=4, per_user=2)
    assert [slots.take(None) for _ in range(3)] == [True, True, False]
    assert [slots.take(1000) for _ in range(3)] == [True, True, False]
    assert slots.take(1001) is False  # all four are held
    slots.give(None)
    assert slots.take(1001) is True and slots.take(None) is False


# -- any bytes at all -----------------------------------------------------------------------------------------

TOKENS = st.sampled_from(
    [b"POST", b"GET", b" ", b"/hook", b"/", b"HTTP/1.1", b"\r\n", b"\r\n\r\n", b":", b"Content-Length: ", b"-1"]
    + [b"X-Lunavect-Secret: " + SECRET.encode(), b"99999999999999", b"5", b"\x00", b"\xff", b"{}", b"+5", b"5_0"]
)
REQUESTS = st.one_of(st.binary(max_size=300), st.lists(TOKENS, max_size=30).map(b"".join))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(REQUESTS)
def test_no_bytes_make_the_request_rules_raise(raw):
    found = hook_request.head_end(raw)
    assert found is None or isinstance(found, (int, hook_request.Refusal))
    if isinstance(found, int):
        length = hook_request.body_length(raw[: found - len(hook_request.END)], SECRET.encode())
        assert isinstance(length, hook_request.Refusal) or 0 <= length <= hook_request.MAX_BODY_BYTES
    assert hook_listener._record(raw, 0.0)["client"] == "claude"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(REQUESTS)
def test_no_bytes_on_a_connection_cost_the_listener_anything(listener, raw):
    server, _ = listener
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(raw)
        sock.shutdown(socket.SHUT_WR)
        try:
            while sock.recv(4096):
                pass
        except ConnectionResetError:
            pass
    assert server._guard.count == 0
    assert request(server.port, post()) == "HTTP/1.1 200 OK"
