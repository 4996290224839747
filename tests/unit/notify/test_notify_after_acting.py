"""The person's act reaches the decider from the hooks: the real shim's records, a collector's committed
transitions, the decider at the collector's own clock. A permission notifies; the person's approval (the asked
tool's PostToolUse) ends the quiet period, so the reply ready seconds later notifies again; a reply the person
did not ask for stays quiet."""

from __future__ import annotations

import time

import pytest

from lunavect.collector.tick import Collector
from lunavect.notify.decide import COALESCE_S, Decider, Transition

SESSION = "acted-1"


class Heard:
    """What a notifier would hear: each committed transition offered to one decider, as the notifier does."""

    def __init__(self) -> None:
        self.decider = Decider()
        self.outcomes: list[tuple[str, str]] = []
        self.notes: list[str] = []

    def __call__(self, moved: list[Transition]) -> None:
        now = time.time()
        for transition in moved:
            self.outcomes.append((transition.session.state, self.decider.offer(transition, now)))
        self.notes += [note.body for note in self.decider.due(now + COALESCE_S)]


def event(iso_env, name: str, **fields) -> None:
    payload = {"session_id": SESSION, "hook_event_name": name, "cwd": "/tmp/acted", **fields}
    assert iso_env.hook(payload).returncode == 0


@pytest.mark.process
def test_an_approval_ends_the_quiet_period_and_the_reply_notifies(iso_env):
    conn = iso_env.connect()
    collector = Collector(conn, sources=[])
    heard = Heard()
    collector.transitions = heard
    bash = {"tool_name": "Bash", "tool_input": {"command": "touch x"}}
    event(iso_env, "UserPromptSubmit", prompt="write the marker")
    event(iso_env, "PreToolUse", tool_use_id="t1", **bash)
    event(iso_env, "PermissionRequest", **bash)
    collector.tick()
    assert heard.outcomes[-1] == ("permission", "pending") and len(heard.notes) == 1
    event(iso_env, "PostToolUse", tool_use_id="t1", tool_response={"stdout": ""}, **bash)  # the person approved
    collector.tick()
    event(iso_env, "Stop", stop_hook_active=False, last_assistant_message="Done.")
    collector.tick()
    assert heard.outcomes[-1] == ("ready", "pending")
    assert len(heard.notes) == 2 and "response ready" in heard.notes[-1]


@pytest.mark.process
def test_a_reply_the_person_did_not_ask_for_stays_quiet(iso_env):
    conn = iso_env.connect()
    collector = Collector(conn, sources=[])
    heard = Heard()
    collector.transitions = heard
    event(iso_env, "UserPromptSubmit", prompt="start the job")
    collector.tick()
    event(iso_env, "Stop", stop_hook_active=False, last_assistant_message="Started.")
    collector.tick()
    assert len(heard.notes) == 1
    # The session works again without its person prompting it (its own tool call, no prompt of theirs).
    event(iso_env, "PreToolUse", tool_use_id="t2", tool_name="Read", tool_input={"file_path": "/tmp/acted/x"})
    collector.tick()
    event(iso_env, "Stop", stop_hook_active=False, last_assistant_message="Read it.")
    collector.tick()
    assert heard.outcomes[-1] == ("ready", "quiet") and len(heard.notes) == 1
