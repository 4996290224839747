"""Finding the Codex TUI of a thread its managed daemon runs (`lunavect.clients.codex.terminals`), on invented
process tables: one TUI and one thread in a folder match; anything else is never guessed."""

from __future__ import annotations

import json

from lunavect.clients.codex import terminals
from lunavect.host.processes import Proc

TUI = Proc(pid=269, ppid=220, name="codex", exe_name="codex", started=1.0)
DAEMON = Proc(pid=700, ppid=269, name="codex", exe_name="codex", started=2.0)
LAUNCHER = Proc(pid=220, ppid=1, name="node", exe_name="node", started=0.5)
OTHER_TUI = Proc(pid=300, ppid=1, name="codex", exe_name="codex", started=3.0)
TTYS = {269: "/dev/pts/3", 220: "/dev/pts/3", 300: "/dev/pts/4"}  # the daemon has none


def found(procs, claimed=frozenset({700}), cwds=None):
    cwds = cwds or {269: "/w", 700: "/w", 220: "/w", 300: "/elsewhere"}
    return terminals.terminals(procs, set(claimed), TTYS.get, cwds.get)


def test_the_only_tui_in_the_threads_folder_shows_it(tmp_path) -> None:
    running = found([TUI, DAEMON, LAUNCHER, OTHER_TUI])
    assert [t.pid for t in running] == [269, 300]  # no launcher, no daemon (claimed, and on no terminal)
    matched = terminals.match({"codex:a": "/w"}, running)
    assert {k: (t.pid, t.tty) for k, t in matched.items()} == {"codex:a": (269, "/dev/pts/3")}


def test_two_tuis_or_two_threads_in_one_folder_are_never_told_apart() -> None:
    twins = found([TUI, OTHER_TUI], cwds={269: "/w", 300: "/w"})
    assert terminals.match({"codex:a": "/w"}, twins) == {}
    assert terminals.match({"codex:a": "/w", "codex:b": "/w"}, found([TUI])) == {}
    assert terminals.match({"codex:a": None}, found([TUI])) == {}
    # A process another session already names is no candidate: the other TUI then stands alone.
    alone = found([TUI, OTHER_TUI], claimed={700, 269}, cwds={269: "/w", 300: "/w"})
    assert [t.pid for t in terminals.match({"codex:b": "/w"}, alone).values()] == [300]


def test_the_daemons_pid_file_is_read_strictly(tmp_path) -> None:
    path = tmp_path / terminals.DAEMON_PID
    assert terminals.daemon_pid(tmp_path) is None
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"pid": 28700, "processIdentity": {"startTicks": 305499}}))
    assert terminals.daemon_pid(tmp_path) == 28700
    for bad in ("not json", "[]", '{"pid": "28700"}', '{"pid": true}', '{"pid": 1}', "{" * 5000):
        path.write_text(bad)
        assert terminals.daemon_pid(tmp_path) is None, bad
