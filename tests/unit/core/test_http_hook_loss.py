"""What losing Claude Code's HTTP hooks costs (issue 21): the rules, replayed with and without them.

`hooks install --http` sends only PreToolUse, PostToolUse and PostToolUseFailure as HTTP hooks
(claude/http_hooks.py); Claude Code does not fall back, so while no collector listens they are lost. For any
realistic turn (tool calls, permission prompts answered late, the client's own dialogs, an Esc during a tool,
background commands, a reply or none), a collector that ticks at random moments (each tick folds the spool's
hook events, then the transcript's records, as the collector does) decides the same state with every event
as with the HTTP ones lost, at every tick: the transcript's tool records say what the tool hooks said.
What differs is listed exactly by the second property: a background command started by a tool is counted
only from the reply's end, and a sub-agent's tool calls no longer keep its session fresh.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lunavect.clients.claude.http_hooks import HTTP_EVENTS
from lunavect.core.model import BackgroundTask, Evidence, State
from lunavect.core.rules import EVENT_AUTHORITY_S, Facts, decide, fold

PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SID = "3fd75c2e-f60a-47a1-9b70-087f2037adbf"


@dataclass
class Turn:
    """One turn as the client writes it: hook events and transcript records, each with its time."""

    hooks: list[Evidence] = field(default_factory=list)
    records: list[Evidence] = field(default_factory=list)
    ticks: list[float] = field(default_factory=list)

    def hook(self, kind: str, at: float, **fields: object) -> None:
        self.hooks.append(Evidence("claude", SID, kind, at, source="hook", **fields))  # type: ignore[arg-type]

    def record(self, kind: str, at: float, **fields: object) -> None:
        self.records.append(Evidence("claude", SID, kind, at, source="transcript", **fields))  # type: ignore[arg-type]


# How the client orders a hook and the transcript record that tells the same: the record a little before, at
# the same moment, or a little after (ticks fall on half seconds, so a pair is never split by a tick).
OFFSETS = st.sampled_from([-0.25, 0.0, 0.25])
# Seconds between the steps of a turn: quick tool calls, and long ones past the ten-minute authority.
GAPS = st.sampled_from([1, 2, 5, 30, 200, 599, 601, 900])

step_kinds = st.sampled_from(["tool", "tool", "tool", "permission", "dialog", "background", "subagent"])


@st.composite
def turns(draw: st.DrawFn, with_subagents: bool = False) -> Turn:
    turn = Turn()
    t = 1000.0
    turn.hook("SessionStart", t, start_source="startup")
    t += draw(GAPS)
    turn.hook("UserPromptSubmit", t)
    turn.record("TranscriptPrompt", t + draw(OFFSETS))
    kinds = draw(st.lists(step_kinds, min_size=0, max_size=6))
    ending = draw(st.sampled_from(["stop", "stop", "interrupt", "running", "error"]))
    for n, kind in enumerate(kinds):
        if kind == "subagent" and not with_subagents:
            kind = "tool"
        call = f"toolu_{n}"
        tool = {"permission": "Bash", "background": "Bash", "subagent": "Agent"}.get(
            kind, draw(st.sampled_from(["Read", "Edit"]))
        )
        t += draw(GAPS)
        turn.record("TranscriptToolUse", t, tool=tool, tool_use_id=call)
        turn.hook("PreToolUse", t + draw(OFFSETS), tool=tool, tool_use_id=call)
        if kind == "permission":
            t += draw(GAPS)
            turn.hook("PermissionRequest", t, tool=tool)
            turn.hook("Notification", t + 6, notification="permission_prompt")  # may come after the answer
        elif kind == "dialog":
            t += draw(GAPS)
            turn.hook("Notification", t, notification="agent_needs_input")
        elif kind == "subagent":
            for k in range(draw(st.integers(0, 3))):
                t += draw(GAPS)
                turn.hook("PreToolUse", t, tool="Read", tool_use_id=f"sub_{n}_{k}", agent_id="a1")
                turn.hook("PostToolUse", t + 1, tool="Read", tool_use_id=f"sub_{n}_{k}", agent_id="a1")
        t += draw(GAPS)
        last = n == len(kinds) - 1
        if last and ending == "interrupt":  # Esc while the tool runs: no Stop
            turn.record("TranscriptToolResult", t, tool_use_id=call)
            turn.hook("PostToolUseFailure", t + draw(OFFSETS), tool=tool, tool_use_id=call, interrupt=True)
            turn.record("TranscriptInterrupt", t + 0.1)
            break
        turn.record("TranscriptToolResult", t, tool_use_id=call)
        started = BackgroundTask(kind="shell", id=f"bg{n}") if kind == "background" else None
        turn.hook("PostToolUse", t + draw(OFFSETS), tool=tool, tool_use_id=call, background_started=started)
    else:
        t += draw(GAPS)
        if ending == "interrupt":
            turn.record("TranscriptInterrupt", t)
        elif ending == "stop":
            turn.record("TranscriptResponse", t)
            turn.hook("Stop", t + draw(OFFSETS), background=())
        elif ending == "error":
            turn.hook("StopFailure", t, error="rate_limit")
    end = max(e.at for e in [*turn.hooks, *turn.records])
    moments = sorted({e.at for e in [*turn.hooks, *turn.records]} | {end + 300, end + 700})
    # The collector ticks half a second after some of the moments, and always after the last.
    chosen = draw(st.lists(st.sampled_from(moments), unique=True, max_size=12))
    turn.ticks = sorted({round(m) + 0.5 for m in [*chosen, end]})
    return turn


def replay(turn: Turn, lose_http: bool) -> list[tuple[float, Facts]]:
    """The facts at each tick of a collector that folds the spool's new lines, then the transcript's."""
    hooks = [e for e in turn.hooks if not (lose_http and e.kind in HTTP_EVENTS)]
    hooks.sort(key=lambda e: e.at)
    records = sorted(turn.records, key=lambda e: e.at)
    facts = Facts("claude", SID)
    seen_hooks = seen_records = 0
    out = []
    for tick in turn.ticks:
        while seen_hooks < len(hooks) and hooks[seen_hooks].at <= tick:
            facts = fold(facts, hooks[seen_hooks])
            seen_hooks += 1
        while seen_records < len(records) and records[seen_records].at <= tick:
            facts = fold(facts, records[seen_records])
            seen_records += 1
        out.append((tick, facts))
    return out


def shown(facts: Facts, now: float) -> tuple:
    """What a row shows: state, timer, activity, error, what it waits for (the process alive throughout)."""
    d = decide(facts, now, alive=True)
    return (d.state, d.since, d.activity, d.error, d.waiting_for, d.listed)


@PROPERTY
@given(turns())
def test_losing_the_http_hooks_changes_no_state(turn: Turn):
    full, lost = replay(turn, lose_http=False), replay(turn, lose_http=True)
    for (tick, a), (_, b) in zip(full, lost, strict=True):
        assert shown(a, tick) == shown(b, tick), (tick, a, b)
    # Past the reply's end, even the background count is the same (the Stop's own list).
    tick, a = full[-1]
    if a.phase != State.WORKING:
        assert decide(a, tick).background == decide(lost[-1][1], tick).background


@PROPERTY
@given(turns(with_subagents=True))
def test_what_losing_them_costs_is_exactly_the_background_count_and_subagent_freshness(turn: Turn):
    full, lost = replay(turn, lose_http=False), replay(turn, lose_http=True)
    for (tick, a), (_, b) in zip(full, lost, strict=True):
        da, db = decide(a, tick, alive=True), decide(b, tick, alive=True)
        if shown(a, tick) != shown(b, tick):
            # Only freshness: a sub-agent's lost tool calls left the session's last evidence past its authority.
            assert db.state == State.UNKNOWN and da.state != State.UNKNOWN, (tick, a, b)
            assert tick - (b.confirmed_at or 0.0) > EVENT_AUTHORITY_S
            assert any(e.agent_id and e.kind in HTTP_EVENTS and b.confirmed_at < e.at <= tick for e in turn.hooks)
        elif da.background != db.background:
            # Only the count: background work a tool started shows from the reply's end (Stop lists it).
            assert da.state == State.WORKING and db.background == {}, (tick, a, b)
