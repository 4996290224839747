"""Which process shows a session and whether its client still runs (`lunavect.core.rules.presence`), with a clock
the test controls: a Codex thread runs under the managed daemon (its hooks record it) and is shown by a TUI."""

from __future__ import annotations

from lunavect.core.model import Evidence, State
from lunavect.core.rules import Facts, decide, fold
from lunavect.core.rules.presence import is_open, shown_by

T = 1_800_000_000.0
DAEMON = {"pid": 700, "pstart": T - 3600.0}


def hook(kind: str, at: float, **fields) -> Evidence:
    return Evidence(provider="codex", session_id="t1", kind=kind, at=T + at, source="hook", **DAEMON, **fields)


def terminal(at: float, pid: int = 269, tty: str = "/dev/pts/3") -> Evidence:
    return Evidence(
        provider="codex",
        session_id="t1",
        kind="TerminalClient",
        at=T + at,
        source="terminal",
        pid=pid,
        pstart=T,
        tty=tty,
    )


def play(*events: Evidence) -> Facts:
    facts = Facts("codex", "t1")
    for event in events:
        facts = fold(facts, event)
    return facts


TURN = (hook("SessionStart", 0, start_source="startup"), hook("UserPromptSubmit", 1, turn_id="u"), hook("Stop", 2))


def test_the_terminal_shows_the_session_while_the_runner_decides_its_turn() -> None:
    facts = play(*TURN, terminal(3))
    assert (facts.pid, facts.pstart) == (700, T - 3600.0)  # the runner stays what the hooks recorded
    assert shown_by(facts) == (269, T, "/dev/pts/3")
    assert (facts.last_event, facts.last_event_at, facts.phase_at) == ("Stop", T + 2, T + 2)  # no activity
    decision = decide(facts, T + 10, alive=True)
    assert decision.state is State.READY
    assert is_open(facts, decision, alive=True) and not is_open(facts, decision, alive=False)


def test_a_new_client_or_another_runner_forgets_the_terminal_found_before() -> None:
    resumed = play(*TURN, terminal(3), hook("SessionStart", 20, start_source="resume"))
    assert shown_by(resumed) == (700, T - 3600.0, None)
    compacted = play(*TURN, terminal(3), hook("SessionStart", 20, start_source="compact"))
    assert shown_by(compacted)[0] == 269  # a compaction is the same client going on
    other = Evidence(provider="codex", session_id="t1", kind="Stop", at=T + 30, source="hook", pid=900, pstart=T)
    assert shown_by(play(*TURN, terminal(3), other)) == (900, T, None)
    again = play(*TURN, terminal(3), hook("UserPromptSubmit", 40, turn_id="v"))
    assert shown_by(again)[0] == 269  # the same runner's next turn keeps it


def test_session_end_ends_it_whatever_runs() -> None:
    facts = play(*TURN, terminal(3), hook("SessionEnd", 9, reason="other"))
    assert not is_open(facts, decide(facts, T + 10), alive=True)
