"""Other machines' keys and rows are checked where they enter (issue 12, defect 3).

What the sync client takes from the bucket becomes a SQL key, a `ssh` argument, a terminal line and a NATS
subject: a host name or a session id with a newline (which `$` in a pattern let through), a `../`, an escape
sequence or 128 KB is refused, counted and logged at a bounded rate, never a traceback, and never stored.
Every entry here goes through the same decode path as one the watch delivers (`remote.apply`).
"""

from __future__ import annotations

import base64
import logging
import socket
import time

import msgspec
import pytest
from hostile_support import acts_on_a_terminal
from sync_intake_support import GOOD, Bucket, beat, row

from lunavect.sync import arrange, config, keys, remote

HOSTILE_IDS = [GOOD + "\n", "../../../../x", "id\x1b]0;pwned\x07x", "z" * 131072, "", ".hidden", "a b", "x;rm -rf ~"]
HOSTILE_HOSTS = ["beta\n", "..", "be\x1b]0;pwned\x07", "h" * 131072, "", "-oProxyCommand", "_beta", "be ta"]
HOSTILE_TITLE = "T\x1b]0;pwned\x07\x1b[2J\nforged row"


def token(session_id: str) -> str:
    return "=" + base64.urlsafe_b64encode(session_id.encode()).decode().rstrip("=")


@pytest.fixture
def bucket(iso_env) -> Bucket:
    return Bucket(iso_env.connect())


def stored(conn) -> tuple[set[str], set[str], set[str]]:
    return (
        {h for (h,) in conn.execute("SELECT host FROM remote_host")},
        {f"{h}/{i}" for h, i in conn.execute("SELECT host, id FROM remote_session")},
        {f"{h}/{i}" for h, i in conn.execute("SELECT host, id FROM sync_arrangement")},
    )


@pytest.mark.parametrize("bad", HOSTILE_IDS, ids=lambda value: repr(value)[:24])
def test_a_session_id_that_is_no_id_is_refused_in_every_key(bucket, bad):
    record = arrange.encode(arrange.Record(pinned=arrange.Change(True)))
    for kind, value in ((keys.SESSION, row()), (keys.ARRANGEMENT, record)):
        for last in (token(bad), bad):  # base64 as lunavect writes it, and raw as another writer might
            key = f"beta.{kind}.claude.{last}"
            assert keys.parse(key) is None
            assert bucket.put(("beta.beat", beat()), (key, value)) == 1  # the beat only
    assert stored(bucket.conn) == ({"beta"}, set(), set())
    assert bucket.drops.count == 4


@pytest.mark.parametrize("bad", HOSTILE_HOSTS, ids=lambda value: repr(value)[:24])
def test_a_host_name_that_is_no_name_is_refused(bucket, bad):
    for key in (f"{bad}.beat", f"{bad}.s.claude.{GOOD}", f"{bad}.arr.claude.{GOOD}"):
        assert keys.parse(key) is None
    bucket.put(
        (f"{bad}.beat", beat()),
        (f"{bad}.s.claude.{GOOD}", row()),
        (f"{bad}.arr.claude.{GOOD}", arrange.encode(arrange.Record(pinned=arrange.Change(True)))),
    )
    assert stored(bucket.conn) == (set(), set(), set())
    assert bucket.drops.count == 3


def test_another_machine_may_not_call_itself_this_one(bucket, monkeypatch):
    # A row named as this machine would be opened here with its pid, tty and folder as if it were local.
    monkeypatch.setattr(socket, "gethostname", lambda: "here")
    bucket.put(("here.beat", beat()), (f"here.s.claude.{GOOD}", row(host="here")), ("beta.beat", beat()))
    assert stored(bucket.conn) == ({"beta"}, set(), set())
    assert bucket.drops.count == 2


def test_the_provider_part_is_checked_too(bucket):
    for provider in ("Claude", "cl\naude", "x" * 40, ""):
        assert keys.parse(f"beta.s.{provider}.{GOOD}") is None
    assert keys.parse(f"beta.s.codex.{GOOD}") == keys.Key("beta", keys.SESSION, f"codex:{GOOD}")


def test_valid_keys_still_round_trip():
    for session_id in (GOOD, "agent-1.2_x", "A" * 128):
        key = keys.session_key("beta", f"claude:{session_id}")
        assert keys.parse(key) == keys.Key("beta", keys.SESSION, f"claude:{session_id}")
    assert keys.valid_host("h" * 64) and not keys.valid_host("h" * 65)


def test_a_row_is_who_its_key_says_whatever_its_value_claims(bucket):
    claims = row("../../../../etc/x", provider="evil\x1b]0;x\x07", host="gamma")
    bucket.put(("beta.beat", beat()), (f"beta.s.claude.{GOOD}", claims))
    (data,) = bucket.conn.execute("SELECT data FROM remote_session").fetchone()
    session = msgspec.json.decode(data)
    assert (session["host"], session["id"], session["provider"], session["session_id"]) == (
        "beta",
        f"claude:{GOOD}",
        "claude",
        GOOD,
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"at": 1e300},
        {"at": -5},
        {"every": 1e300},
        {"every": 0},
        {"every": -1},
        {"machine": "m\n"},
        {"machine": "m" * 131072},
        {"person_at": 1e300},
        {"at": "now"},
    ],
)
def test_a_heartbeat_with_no_time_or_no_period_is_refused(bucket, fields):
    bucket.put(("beta.beat", beat(**fields)))
    assert stored(bucket.conn) == (set(), set(), set())
    assert bucket.drops.count == 1


def test_an_arrangement_no_reader_takes_is_refused_not_taken_for_a_delete(bucket):
    key = f"beta.arr.claude.{GOOD}"
    bucket.put((key, arrange.encode(arrange.Record(pinned=arrange.Change(True)))))
    bucket.put((key, b'{"pinned": "yes"}'))
    assert stored(bucket.conn)[2] == {f"beta/claude:{GOOD}"}
    assert bucket.drops.count == 1


def test_refusals_are_logged_at_a_bounded_rate_without_a_traceback(bucket, caplog):
    caplog.set_level(logging.WARNING, logger="lunavect.sync")
    for n in range(50):
        bucket.put((f"beta.s.claude.{token('../' * n)}", row()))
    assert bucket.drops.count == 50
    lines = [r for r in caplog.records if r.name == "lunavect.sync"]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert "\n" not in lines[0].getMessage() and not acts_on_a_terminal(lines[0].getMessage())
    bucket.drops.note("later", "a row no reader takes", now=time.time() + remote.DROP_LOG_S + 1)
    assert "ignored 50 entries" in caplog.records[-1].getMessage()  # the 49 unlogged since, and this one


@pytest.mark.process
def test_another_machines_row_reaches_no_terminal_raw(bucket, iso_env):
    bucket.put(
        ("beta.beat", beat()),
        (f"beta.s.claude.{GOOD}", row(title=HOSTILE_TITLE, project="p\x1b[2J", cwd="/x\n/forged", activity="B\x07")),
    )
    result = iso_env.cli("list")
    assert result.returncode == 0, result.stderr
    assert "beta" in result.stdout and not acts_on_a_terminal(result.stdout)
    assert len(result.stdout.strip().splitlines()) == 2  # the header and the one row: none forged


def test_sync_status_shows_what_the_server_said_harmlessly(iso_env):
    conn = iso_env.connect()
    config.save(conn, config.SyncConfig(servers=("nats://127.0.0.1:9",), host="alpha"))
    conn.execute("INSERT INTO collector (key, value) VALUES (?, ?)", (remote.ERROR, "nats: \x1b]0;pwned\x07\nforged"))
    conn.commit()
    result = iso_env.cli("sync", "status")
    assert result.returncode == 0, result.stderr
    assert "last problem" in result.stdout and not acts_on_a_terminal(result.stdout)
    assert "forged" not in result.stdout.splitlines()[-1]


def test_the_default_host_name_is_a_valid_one(monkeypatch):
    import socket

    from lunavect.host import name as host_name

    for name, expected in (("-laptop.local", "laptop"), ("_x", "x"), ("---", "host"), ("été", "t-")):
        monkeypatch.setattr(socket, "gethostname", lambda name=name: name)
        assert host_name.short_name() == expected and keys.valid_host(expected)


@pytest.mark.parametrize(
    "record",
    [
        {"hidden": [True, 0, 0, 1e300]},
        {"hidden": [True, 0, 0, -5]},
        {"shown_at": [1e300]},
        {"shown_at": [True]},
    ],
    ids=["hidden-at-1e300", "hidden-at-negative", "shown-at-1e300", "shown-at-a-boolean"],
)
def test_an_arrangement_whose_times_are_no_times_is_refused(bucket, record):
    bucket.put((f"beta.arr.claude.{GOOD}", msgspec.json.encode(record)))
    assert stored(bucket.conn)[2] == set()
    assert bucket.drops.count == 1


def test_sync_status_counts_what_was_refused(bucket, iso_env):
    config.save(bucket.conn, config.SyncConfig(servers=("nats://127.0.0.1:9",), host="alpha"))
    bucket.conn.commit()
    bucket.put(("beta.beat", beat()), (f"beta.s.claude.{token('../x')}", row()), ("beta\n.beat", beat()))
    bucket.drops = remote.Drops()  # a restarted client: the count in the store goes on
    bucket.put(("beta.beat", beat(every=-1)))
    status = msgspec.json.decode(iso_env.cli("sync", "status", "--json").stdout)
    assert status["refused"] == 3
    assert "ignored 3 entries from other machines" in iso_env.cli("sync", "status").stdout
    remote.forget_all(bucket.conn)  # sync turned off: the count starts again
    assert msgspec.json.decode(iso_env.cli("sync", "status", "--json").stdout)["refused"] == 0
