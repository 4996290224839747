"""The collector's notifier with a real store and a real `notify.command` program: transitions in, the
command's stdin out, once; a restarted notifier (a new collector) sends nothing again."""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from notify_support import row
from unit_support import delivering_to, wait_until

from lunavect import store
from lunavect.core.model import Session, State
from lunavect.listing import sessions
from lunavect.notify import settings
from lunavect.notify.command import run_command
from lunavect.notify.decide import Transition, compose, item_of
from lunavect.notify.kinds import BY_NAME
from lunavect.notify.notifier import Notifier


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    return tmp_path


@pytest.mark.process
def test_the_command_gets_each_notification_once_and_a_restart_sends_nothing_again(db: Path) -> None:
    out = db / "received.jsonl"
    conn = store.connect()
    delivering_to(conn, out, focus=False, coalesce_s=0.0)
    moved = [Transition(State.WORKING, row(1, at=time.time()))]

    first = Notifier(stored=sessions)
    first(moved)
    wait_until(lambda: out.exists() and out.read_text().count("\n") == 1)
    first.close()
    [payload] = [json.loads(line) for line in out.read_text().splitlines()]
    assert payload["open"] == "claude:s1" and payload["sessions"][0]["needs"] == "response ready"

    again = Notifier(stored=sessions)  # the collector restarted and committed the same transition again (a replay)
    again(moved)
    again([Transition(State.WORKING, row(2, at=time.time()))])  # something new, to know it got this far
    wait_until(lambda: out.read_text().count("\n") == 2)
    again.close()
    assert [json.loads(line)["open"] for line in out.read_text().splitlines()] == ["claude:s1", "claude:s2"]
    conn.close()


@pytest.mark.process
def test_a_failing_command_is_one_line_never_an_exception(tmp_path: Path) -> None:
    note = compose([item_of(BY_NAME["ready"], row())])
    assert run_command("", note) == "notify.command is empty"
    assert "not found" in (run_command(str(tmp_path / "missing"), note) or "")
    assert "exited with 3" in (run_command(shlex.join([sys.executable, "-c", "raise SystemExit(3)"]), note) or "")
    slow = shlex.join([sys.executable, "-c", "import time; time.sleep(5)"])
    assert "did not finish" in (run_command(slow, note, timeout=0.2) or "")
    assert "cannot be split" in (run_command("'unclosed", note) or "")


class _FailsOnce:
    """A desktop that raises what no delivery expects on its first notification, then shows the rest."""

    def __init__(self, _on_open) -> None:
        self.shown: list[str] = []
        self.calls = 0

    def send(self, note, sound: str) -> str:
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("a notification server's odd answer")
        self.shown.append(note.title)
        return str(self.calls)

    def close(self) -> None:
        pass


def test_a_batch_that_raises_costs_that_batch_and_the_next_one_is_delivered(db: Path) -> None:
    from lunavect import faults

    conn = store.connect()
    chosen = settings.load(conn)
    chosen.focus = False
    chosen.coalesce_s = 0.0
    chosen.usage_percent = None
    settings.save(conn, chosen)
    made: list[_FailsOnce] = []

    def desktop(on_open) -> _FailsOnce:
        made.append(_FailsOnce(on_open))
        return made[0]

    notifier = Notifier(stored=sessions, desktop=desktop)
    try:
        notifier([Transition(State.WORKING, row(1, at=time.time()))])
        wait_until(lambda: bool(made) and made[0].calls == 1)
        notifier([Transition(State.WORKING, row(2, at=time.time()))])
        wait_until(lambda: made[0].shown == ["task 2"])
    finally:
        notifier.close()
    [failure] = faults.loop_failures(conn)
    conn.close()
    assert (failure.loop, failure.count) == ("notifier", 1) and "odd answer" in failure.error


@pytest.mark.process
def test_outside_text_reaches_the_command_as_data_never_as_shell(tmp_path: Path) -> None:
    """`notify.command` is split once, from the person's own setting, and run without a shell: a title or a
    folder holding shell syntax arrives in the JSON on stdin, written as it was, and runs nothing."""
    marker = tmp_path / "ran"
    out = tmp_path / "got.json"
    hostile = f"$(touch {marker}) `touch {marker}`; touch {marker} | x && y\n<b>&amp;"
    note = compose([item_of(BY_NAME["ready"], row(title=hostile, project=hostile))])
    script = f"import sys, json; open({str(out)!r}, 'w').write(json.dumps([sys.argv[1:], sys.stdin.read()]))"
    assert run_command(shlex.join([sys.executable, "-c", script, "plain"]), note) is None
    argv, stdin = json.loads(out.read_text())
    assert argv == ["plain"] and not marker.exists()
    payload = json.loads(stdin)
    assert payload["title"] == hostile and payload["sessions"][0]["project"] == hostile


class _NoBus:
    """A desktop whose notification server cannot be reached: what desktop-notifier raises without a session bus."""

    REASON = "InvalidAddressError: DBUS_SESSION_BUS_ADDRESS not set and could not get DISPLAY"

    def __init__(self, _on_open) -> None:
        self.calls = 0

    def send(self, note, sound: str) -> str:
        from lunavect.notify.desktop import DesktopUnavailable

        self.calls += 1
        raise DesktopUnavailable(self.REASON)

    def close(self) -> None:
        pass


def _quiet_settings(conn, **changes) -> None:
    chosen = settings.load(conn)
    chosen.focus = False
    chosen.coalesce_s = 0.0
    chosen.usage_percent = None
    for name, value in changes.items():
        setattr(chosen, name, value)
    settings.save(conn, chosen)


def test_a_notification_that_fails_is_recorded_as_failed_with_its_reason(db: Path) -> None:
    """With no session bus every notification fails: it was listed as sent and doctor found no problem (issue
    48, item 3). Now each one records how its delivery went, and doctor names the failures and why."""
    from click.testing import CliRunner

    from lunavect.cli.notifications import notifications
    from lunavect.collector import doctor
    from lunavect.notify import sent

    conn = store.connect()
    _quiet_settings(conn)
    made: list[_NoBus] = []
    notifier = Notifier(stored=sessions, desktop=lambda on_open: made.append(_NoBus(on_open)) or made[-1])
    try:
        notifier([Transition(State.WORKING, row(1, at=time.time()))])
        notifier([Transition(State.WORKING, row(2, at=time.time() + 1))])
        wait_until(lambda: [d.outcome for d in sent.recent(conn)] == ["failed", "failed"])
    finally:
        notifier.close()
    assert {d.reason for d in sent.recent(conn)} == {f"desktop: {_NoBus.REASON}"}

    shown = CliRunner().invoke(notifications, ["status"])
    lines = [line for line in shown.output.splitlines() if "claude:s" in line]
    assert len(lines) == 2 and all(line.startswith("failed ") and _NoBus.REASON in line for line in lines), lines
    assert not [line for line in shown.output.splitlines() if line.startswith("sent ")]

    report = doctor.examine()
    problems = [p.what for p in report.problems if p.what.startswith("notifications")]
    assert problems == [f"notifications: the last 2 failed (desktop: {_NoBus.REASON})"], report.problems
    assert "notifications: the last 2 failed" in "\n".join(doctor.lines(report))

    # A notification that goes through ends the problem; the earlier failures stay listed as failed.
    out = db / "received.jsonl"
    delivering_to(conn, out, focus=False, coalesce_s=0.0)
    _quiet_settings(conn, desktop=False)
    again = Notifier(stored=sessions)
    try:
        again([Transition(State.WORKING, row(3, at=time.time() + 2))])
        wait_until(lambda: [d.outcome for d in sent.recent(conn)][:1] == ["sent"])
    finally:
        again.close()
    assert [d.outcome for d in sent.recent(conn)] == ["sent", "failed", "failed"]
    assert not [p for p in doctor.examine().problems if p.what.startswith("notifications")]
    conn.close()


def test_with_every_way_off_a_notification_is_not_shown_and_says_so(db: Path) -> None:
    from lunavect.notify import sent

    conn = store.connect()
    _quiet_settings(conn, desktop=False, command=None)
    notifier = Notifier(stored=sessions)
    try:
        notifier([Transition(State.WORKING, row(1, at=time.time()))])
        wait_until(lambda: [d.outcome for d in sent.recent(conn)] == ["not shown"])
    finally:
        notifier.close()
    conn.close()


class _Screen:
    """A desktop that shows each notification under an identifier of its own and records what is withdrawn."""

    def __init__(self, _on_open) -> None:
        self.shown: dict[str, str] = {}
        self.withdrawn: list[str] = []

    def send(self, note, sound: str) -> str:
        identifier = f"n{len(self.shown) + 1}"
        self.shown[identifier] = note.title
        return identifier

    def withdraw(self, identifier: str) -> None:
        self.withdrawn.append(identifier)

    def close(self) -> None:
        pass


def test_a_notification_is_withdrawn_once_its_reason_is_gone_for_every_session_it_names(db: Path) -> None:
    """A permission or input notification never expires: left on the desktop after the prompt was answered, it
    opens a session that needs nothing (issue 48, item 5)."""
    conn = store.connect()
    _quiet_settings(conn, quiet_s=0.0)
    screen = _Screen(None)
    notifier = Notifier(stored=sessions, desktop=lambda _on_open: screen)
    now = time.time()

    def asking(n: int, tool: str = "Bash", at: float = now) -> Session:
        return row(n, state=State.PERMISSION, at=at, waiting_for=tool)

    try:
        notifier([Transition(State.WORKING, asking(1))])
        wait_until(lambda: screen.shown == {"n1": "task 1"})
        notifier([Transition(State.PERMISSION, asking(1, at=now + 1))])  # the same wait, read again
        notifier([Transition(State.PERMISSION, row(1, state=State.WORKING, at=now + 2, activity="Bash"))])
        wait_until(lambda: screen.withdrawn == ["n1"])

        # Two sessions in one notification: it stays while one of them still waits.
        notifier([Transition(State.WORKING, asking(2, at=now + 3)), Transition(State.WORKING, asking(3, at=now + 3))])
        wait_until(lambda: "n2" in screen.shown)
        notifier([Transition(State.PERMISSION, row(2, state=State.READY, at=now + 4))])
        notifier([Transition(State.PERMISSION, asking(3, tool="Write", at=now + 5))])  # another prompt: news
        wait_until(lambda: screen.withdrawn == ["n1", "n2"])
    finally:
        notifier.close()
    conn.close()


def test_what_a_notification_said_holds_while_the_session_needs_the_same() -> None:
    from lunavect.notify.kinds import still_holds

    asking = row(1, state=State.PERMISSION, waiting_for="Bash")
    assert still_holds("permission", "permission for Bash", asking)
    assert not still_holds("permission", "permission for Bash", row(1, state=State.PERMISSION, waiting_for="Edit"))
    assert not still_holds("permission", "permission for Bash", row(1, state=State.WORKING))
    assert not still_holds("permission", "permission for Bash", None)  # it left the list
    assert still_holds("ready", "response ready", row(1)) and not still_holds("ready", "response ready", asking)
    assert not still_holds("no such kind", "x", asking)
