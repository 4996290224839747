"""Property (hypothesis): no key or value another machine can put raises where it enters or where any front end
reads it (issue 25, the trust boundary).

A host may put any key under any name a server lets it and any bytes as its value: raw bytes, JSON of any
shape, a row whose every field holds any JSON type, huge strings, ids with newlines, times in the future or
beyond any calendar. Each batch goes through the real intake (`remote.apply`, in one transaction with the
revision reached), and then through every reader of other machines' rows: the list as every front end reads
it, the panel's cells, the table, the bars and their popup, the web document, the tmux options, the notifier's
feed of other hosts' changes and the choice of the notifying machine. Nothing may raise; every row kept is
within the README's bounds and names no local terminal.
"""

from __future__ import annotations

import base64
import itertools
import math
import time

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_support import fields_of, json_values
from unit_support import a_session, seed_snapshot

from lunavect import store
from lunavect.collector.notify_feed import RemoteTransitions
from lunavect.core.model import State
from lunavect.frontends import rows, table
from lunavect.frontends.bar import formats, popup
from lunavect.frontends.tui import columns
from lunavect.frontends.watch import frame
from lunavect.frontends.web import document
from lunavect.listing import attention
from lunavect.listing import hosts as listing_hosts
from lunavect.listing.sessions import counts, own_ids, read_hidden, read_rows, read_sessions
from lunavect.sync import arrange, config, remote, remote_row
from lunavect.tmux_status.options import global_values, pane_states

PROPERTY = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
LOCAL = "aaaaaaaa-1111-2222-3333-444444444444"
HUGE = "x" * 20_000  # a row holding it stays under the 64 KB a row may be; HUGER does not
HUGER = "y" * 100_000
FIELD_NAMES = [field.name for field in msgspec.structs.fields(a_session("s"))]


def finite(value: object) -> object:
    """JSON has no NaN or infinity: what a host can put instead is any other number."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


hosts = st.sampled_from(["beta", "gamma", "rogue", "alpha", "h" * 64, "beta\n", "..", "-oX", ""]) | st.text(max_size=8)
ids = st.sampled_from([LOCAL, "s1", "s2", "s1\nforged", "../x", "\x1b]0;x\x07", "a" * 129]) | st.text(max_size=12)
tokens = ids.map(lambda i: "=" + base64.urlsafe_b64encode(i.encode("utf-8", "surrogatepass")).decode().rstrip("="))
any_keys = (
    st.tuples(hosts, st.sampled_from(["s", "arr"]), st.sampled_from(["claude", "codex", "x" * 40]), tokens | ids).map(
        ".".join
    )
    | hosts.map(lambda host: f"{host}.beat")
    | st.text(max_size=40)
)
valid_hosts = st.sampled_from(["beta", "gamma", "rogue", "alpha", "h" * 64])
valid_ids = st.sampled_from([LOCAL, "s1", "s2", "s3", "A" * 128])
session_keys = st.tuples(valid_hosts, valid_ids).map(lambda p: f"{p[0]}.s.claude.{p[1]}")
arrangement_keys = st.tuples(valid_hosts, valid_ids).map(lambda p: f"{p[0]}.arr.claude.{p[1]}")
beat_keys = valid_hosts.map(lambda host: f"{host}.beat")

times_ = (
    st.sampled_from([0.0, -1.0, 1e300, float("inf"), float("nan"), 4_102_444_801.0])
    | st.floats(1.6e9, 1.9e9)
    | st.floats()
)
iso_times = st.sampled_from(["2099-12-31T00:00:00Z", "9999-12-31T23:59:59", "0001-01-01T00:00:00+14:00", "", "now"])
texts = st.sampled_from([HUGE, HUGER, "t\x1b[2J\nforged", "<b>x</b>&amp;", "#(touch x)", "$(id)`id`;"]) | st.text(
    max_size=20
)
good_row = st.fixed_dictionaries(
    {"state": st.sampled_from(list(State))},
    optional={
        "title": texts,
        "project": texts,
        "cwd": texts,
        "since": iso_times | st.text(max_size=30),
        "updated": iso_times,
        "tty": st.sampled_from(["/dev/pts/0", "pts/0", HUGE[:5000]]),
        "pid": st.integers(min_value=-(2**63), max_value=2**63 - 1),
        "pstart": times_.map(finite),
        "resume": texts,
        "background": st.dictionaries(st.text(max_size=70), st.integers(-(2**63), 2**63 - 1), max_size=20),
        "basis": st.lists(st.text(max_size=70), max_size=20),
        "heard": iso_times,
        "error": texts,
        "activity": texts,
        "waiting_for": texts,
        "client": texts,
        "entrypoint": texts,
    },
)


def row_bytes(fields: dict) -> bytes:
    return msgspec.json.encode({**msgspec.to_builtins(a_session("s", host="beta")), **fields})


beats = st.fixed_dictionaries(
    {"at": times_, "every": st.floats(0.1, 10) | times_, "machine": st.sampled_from(["m", "m\n", ""])},
    optional={"person_at": times_},
).map(lambda beat: msgspec.json.encode({k: finite(v) for k, v in beat.items()}))
records = st.lists(
    st.tuples(st.booleans() | st.floats(1.6e9, 1.9e9) | st.none(), st.integers(-(2**70), 2**70), st.integers(), times_),
    max_size=4,
).map(
    lambda changes: msgspec.json.encode(
        {name: [finite(v) for v in c] for name, c in zip(arrange.FIELDS, changes, strict=False)}
    )
)
values = st.one_of(
    st.none(),
    st.binary(max_size=200),
    json_values.map(msgspec.json.encode),
    fields_of(FIELD_NAMES).map(msgspec.json.encode),
    good_row.map(row_bytes),
    fields_of(["at", "every", "machine", "person_at"]).map(msgspec.json.encode),
    beats,
    fields_of(list(arrange.FIELDS)).map(msgspec.json.encode),
    records,
)
entry = st.one_of(
    st.tuples(any_keys, values, times_),
    st.tuples(session_keys, good_row.map(row_bytes) | st.none() | values, times_),
    st.tuples(beat_keys, beats | st.none(), times_),
    st.tuples(arrangement_keys, records | st.none(), times_),
)
entries = st.lists(entry, min_size=1, max_size=10)


class Remote:
    """One store that receives batch after batch, with increasing revisions, as the watch delivers them."""

    def __init__(self, conn) -> None:
        self.conn = conn
        self.revisions = itertools.count(1)
        self.drops = remote.Drops()
        self.feed = RemoteTransitions()


@pytest.fixture
def receiver(iso_env) -> Remote:
    conn = iso_env.connect()
    config.save(conn, config.SyncConfig(servers=("nats://127.0.0.1:9",), host="alpha"))
    conn.commit()
    seed_snapshot(conn, a_session(LOCAL, host="alpha", tty="/dev/pts/0", pid=1, state=State.WORKING))
    return Remote(conn)


def read_everything(conn, feed: RemoteTransitions) -> None:
    now = time.time()
    listed = read_sessions(conn, include_hidden=True)
    read_rows(conn)
    read_hidden(conn)
    counts(conn)
    summary = attention.summarize(conn)
    table.render(listed, width=120)
    for session in listed:
        rows.place(session)
        rows.state_label(session)
        rows.works(session)
        rows.background_detail(session)
        rows.timer(session, now)
        rows.ago(session.updated, now)
        rows.tooltip(session, now)
        formats.label(session)
        formats.waited(session, now)
        for column in columns.layout(160, usage=True):
            columns.cell(session, column, now)
    for render in (formats.plain, formats.as_json, formats.tooltip, formats.waybar, formats.i3blocks, formats.polybar):
        render(summary)
    if listed:
        popup.draw(listed, 0)
    frame(conn, True, lambda: "")
    document.read(conn)
    global_values(summary)
    states = pane_states(listed)
    assert set(states) <= {"/dev/pts/0"}  # only this machine's own session names a terminal here
    feed.collect(conn, "alpha")
    listing_hosts.notifying_host(conn)
    for records in arrange.records(conn).values():
        arrange.merge(records)
    msgspec.json.encode(listed)  # list --json


@PROPERTY
@given(batch=entries)
def test_no_entry_another_machine_can_put_raises_in_intake_or_in_any_reader(receiver, batch):
    delivered = [
        remote.Entry(key=key, revision=next(receiver.revisions), value=value, created=created)
        for key, value, created in batch
    ]
    remote.apply(receiver.conn, "alpha", delivered, receiver.drops, own_ids=own_ids)
    read_everything(receiver.conn, receiver.feed)
    for host, data in receiver.conn.execute("SELECT host, data FROM remote_session"):
        session = msgspec.json.decode(data)
        assert session["tty"] is None and session["pid"] is None
        assert session["resume"] in (None, f"ssh {host} -t lunavect resume {session['id']}")
        assert len(session["title"] or "") <= remote_row.TEXT_CHARS["title"]
        assert session["id"] != f"claude:{LOCAL}"
    (local,) = [s for s in read_sessions(receiver.conn, include_hidden=True) if s.session_id == LOCAL]
    assert local.host == "alpha"
    assert store.collector_values(receiver.conn).get(remote.REVISION) is not None
