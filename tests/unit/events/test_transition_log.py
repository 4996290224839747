"""The stored stream of state changes (`lunavect.events.log`): recorded once per change, numbered for good
(a number is never reused once the oldest are pruned), read back after a number or from a time, bounded; and
its contract (the JSON Schema in the package, the table of docs/events.md) names every field it prints."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from docs_support import page
from unit_support import a_session

from lunavect import store
from lunavect.core.model import State
from lunavect.events import log


def test_a_change_is_recorded_once_with_its_state_before(iso_env):
    conn = iso_env.connect()
    working = a_session("a1", host="alpha", state=State.WORKING, activity="Bash")
    permission = a_session("a1", host="alpha", state=State.PERMISSION, waiting_for="Bash")
    with store.transaction(conn):
        assert log.record(conn, [working], 100.0) == 1
        assert log.record(conn, [working], 101.0) == 0  # the same state again (a re-read, a restart): no change
        assert log.record(conn, [permission], 102.0) == 1
    said = [c.as_dict() for c in log.read(conn)]
    assert [(c["from"], c["to"], c["reason"]) for c in said] == [
        (None, "working", "hook"),
        ("working", "permission", "Bash"),
    ]
    assert said[0]["host"] == "alpha" and said[0]["id"] == "claude:a1" and said[0]["client"] == "claude"
    assert said[1]["time"] == "1970-01-01T00:01:42.000Z"
    assert said[0]["seq"] < said[1]["seq"]


def test_reading_after_a_number_from_a_time_and_of_one_host(iso_env):
    conn = iso_env.connect()
    with store.transaction(conn):
        for n, (host, state) in enumerate([("alpha", State.WORKING), ("beta", State.WORKING), ("alpha", State.READY)]):
            log.record(conn, [a_session("s", host=host, state=state)], 1000.0 + n)
    first, second, third = log.read(conn)
    assert log.read(conn, log.Since(seq=first.seq)) == [second, third]
    assert log.read(conn, log.parse_since("1970-01-01T00:16:41Z")) == [second, third]
    assert log.read(conn, host="alpha") == [first, third]
    assert log.read(conn, log.Since(seq=third.seq)) == []
    assert log.latest(conn) == third.seq


def test_the_stream_is_bounded_and_a_number_is_never_reused(iso_env, monkeypatch):
    monkeypatch.setattr(log, "KEEP_COUNT", 3)
    conn = iso_env.connect()
    states = [State.WORKING, State.READY] * 3
    with store.transaction(conn):
        for n, state in enumerate(states):
            log.record(conn, [a_session("s", state=state)], 1_000_000.0 + n)
    kept = log.read(conn)
    assert [c.seq for c in kept] == [4, 5, 6]
    with store.transaction(conn):
        conn.execute("DELETE FROM transition")  # every change pruned: the next number still follows the last
        log.record(conn, [a_session("t", state=State.WORKING)], 1_000_010.0)
    assert [c.seq for c in log.read(conn)] == [7]
    with store.transaction(conn):  # a week later the old ones are gone
        log.record(conn, [a_session("u", state=State.WORKING)], 1_000_010.0 + log.KEEP_S + 1)
    assert [c.id for c in log.read(conn)] == ["claude:u"]


@pytest.mark.parametrize("text", ["yesterday", "-3", "12abc", "9" * 40])
def test_since_takes_a_number_or_a_time_and_says_why_not(text):
    with pytest.raises(ValueError, match="takes a change's number or an ISO-8601 time"):
        log.parse_since(text)


def test_a_reason_never_carries_more_than_the_row_shows():
    long = a_session("s", state=State.ERROR, error="x" * 500)
    assert len(log.reason_of(long) or "") == log.REASON_CHARS
    assert log.reason_of(a_session("s", basis=[])) is None


def _schema() -> dict[str, object]:
    return json.loads(resources.files("lunavect.events").joinpath("transition.schema.json").read_text())


def _readme_fields() -> list[str]:
    table = page("events.md").split("| field | what it is |")[1].split("\n\n")[0]
    return [m.group(1) for m in re.finditer(r"^\| `([a-z_]+)` \|", table, re.MULTILINE)]


def test_the_schema_and_the_readme_describe_every_field_printed(iso_env):
    conn = iso_env.connect()
    with store.transaction(conn):
        log.record(conn, [a_session("s", state=State.WORKING)], 1000.0)
    printed = list(log.read(conn)[0].as_dict())
    schema = _schema()
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert list(properties) == printed and schema["required"] == printed
    assert all(properties[name].get("description") for name in printed)
    assert schema["additionalProperties"] is False
    assert _readme_fields() == printed
    states = {s.value for s in State}
    assert set(properties["to"]["enum"]) == states and set(properties["from"]["enum"]) == states | {None}
