"""How every front end words another machine's rows: `host: project`, and a silent host's rows as offline
with the time it was last heard (never "No network", never counted as working)."""

from __future__ import annotations

import time

from unit_support import a_session

from lunavect.collector.snapshot import iso
from lunavect.core.model import Session, State
from lunavect.frontends import rows
from lunavect.listing import hosts
from lunavect.sync.state_keys import HEARTBEAT_BASIS


def session(**overrides) -> Session:
    fields: dict[str, object] = dict(
        title="t",
        project="proj",
        cwd="/p/proj",
        host="alpha",
        state=State.WORKING,
        activity="Bash",
        background={"shell": 2},
    )
    fields.update(overrides)
    return a_session("s1", **fields)


def test_this_machines_rows_keep_their_project_and_another_machines_say_its_host():
    assert rows.place(session()) == "proj"
    assert rows.place(session(heard=iso(time.time()))) == "alpha: proj"


def test_a_silent_hosts_row_says_when_it_was_last_heard_and_does_not_work():
    heard = time.time() - 600
    host = hosts.Host(heard=heard, beat_s=5.0, machine="m", person_at=None)
    shown = hosts.present(session(open=True), host, now=time.time())
    assert shown.state == State.OFFLINE and shown.basis == [HEARTBEAT_BASIS]
    assert not shown.open  # nobody can tell whether its client still runs there
    assert rows.state_label(shown) == f"Offline: alpha last heard {time.strftime('%H:%M', time.localtime(heard))}"
    assert not rows.works(shown) and rows.background_count(shown) == 0


def test_a_heard_hosts_row_is_shown_as_it_said():
    host = hosts.Host(heard=time.time(), beat_s=5.0, machine="m", person_at=None)
    shown = hosts.present(session(open=True), host, now=time.time())
    assert shown.state == State.WORKING and rows.state_label(shown) == "Working: Bash" and rows.works(shown)
    assert shown.open  # as its host said
