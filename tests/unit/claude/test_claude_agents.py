"""Claude Code's task notifications and background-agent fold, from transcript lines as the client writes
them (shapes observed with Claude Code 2.1.328 and in real 2.1.3x transcripts)."""

from __future__ import annotations

import itertools
import json
import random

from lunavect.clients.claude import agents
from lunavect.clients.claude.records import read_record
from lunavect.shim.notifications import ended_state, only_notifications, task_notifications

# -- the notification parser --------------------------------------------------------------------------------


def note(task_ids, tool_use_id=None, status="completed", extra=""):
    ids = "".join(f"<task-id>{t}</task-id>\n" for t in task_ids)
    use = f"<tool-use-id>{tool_use_id}</tool-use-id>\n" if tool_use_id else ""
    return (
        f"<task-notification>\n{ids}{use}<output-file>/tmp/x.output</output-file>\n<status>{status}</status>\n"
        f'<summary>Agent "secret words" finished</summary>\n<result>private result</result>{extra}\n'
        "</task-notification>"
    )


def test_several_notifications_in_one_text_and_several_tasks_in_one():
    text = note(["a1"], "toolu_1") + "\n" + note(["b1", "b2"], None, "killed")
    found = task_notifications(text)
    assert [(n.task_ids, n.tool_use_id, n.status) for n in found] == [
        (("a1",), "toolu_1", "completed"),
        (("b1", "b2"), None, "killed"),
    ]


def test_only_the_ids_and_status_are_read():
    (found,) = task_notifications(note(["a1"], "toolu_1"))
    assert "secret" not in repr(found) and "private" not in repr(found)


def test_only_notifications_allows_the_runtimes_output_pointer_and_nothing_else():
    assert only_notifications(note(["b1"]) + "\nRead the output file to retrieve the result: /tmp/b1.output")
    assert not only_notifications("please look: " + note(["b1"]))
    assert not only_notifications(note(["b1"]) + " and also fix the tests")
    assert not only_notifications("no notification here")


def test_malformed_and_non_text_are_nothing():
    assert task_notifications("<task-notification><task-id>a</task-id>") == []  # never closed
    assert task_notifications(None) == [] and task_notifications(["x"]) == []
    (found,) = task_notifications("<task-notification><task-id>" + "x" * 500 + "</task-id></task-notification>")
    assert found.task_ids == ()  # not an id the runtime writes


def test_statuses():
    assert [ended_state(s) for s in ("completed", "failed", "error", "killed", "stopped", None)] == [
        "completed",
        "failed",
        "failed",
        "stopped",
        "stopped",
        "stopped",
    ]


# -- transcript lines ---------------------------------------------------------------------------------------

SESSION = "11111111-2222-3333-4444-555555555555"


def stamp(n: int) -> str:
    return f"2026-11-29T14:{n // 60:02d}:{n % 60:02d}.000Z"


def call(n, tool_use_id, name="Agent", background=True, sidechain=False, **inputs):
    tool_input = {"description": "private description", "prompt": "private prompt", "subagent_type": "general-purpose"}
    if name == "Agent" and background:
        tool_input["run_in_background"] = True
    tool_input.update(inputs)
    return {
        "type": "assistant",
        "uuid": f"u{n}",
        "timestamp": stamp(n),
        "isSidechain": sidechain,
        "sessionId": SESSION,
        "message": {
            "role": "assistant",
            "stop_reason": "tool_use",
            "content": [{"type": "tool_use", "id": tool_use_id, "name": name, "input": tool_input}],
        },
    }


def result(n, tool_use_id, native, is_error=False, text="Async agent launched successfully."):
    return {
        "type": "user",
        "uuid": f"u{n}",
        "timestamp": stamp(n),
        "isSidechain": False,
        "sessionId": SESSION,
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": text, "is_error": is_error}],
        },
        "toolUseResult": native,
    }


def delivered(n, text, origin="task-notification"):
    record = {
        "type": "user",
        "uuid": f"u{n}",
        "timestamp": stamp(n),
        "isSidechain": False,
        "sessionId": SESSION,
        "message": {"role": "user", "content": text},
        "promptSource": "system",
    }
    if origin:
        record["origin"] = {"kind": origin}
    return record


def queued(n, text):
    return {
        "type": "queue-operation",
        "operation": "enqueue",
        "timestamp": stamp(n),
        "sessionId": SESSION,
        "content": text,
    }


def queued_command(n, text):
    return {
        "type": "attachment",
        "uuid": f"u{n}",
        "timestamp": stamp(n),
        "isSidechain": False,
        "sessionId": SESSION,
        "attachment": {"type": "queued_command", "prompt": text, "commandMode": "task-notification"},
    }


def launched(n, tool_use_id, agent_id):
    return [
        call(n, tool_use_id),
        result(n + 1, tool_use_id, {"isAsync": True, "status": "async_launched", "agentId": agent_id}),
    ]


def observe(records):
    """The observations of records given in file order (each record's place is its line's byte offset)."""
    found, place = [], 0
    for record in records:
        line = json.dumps(record).encode()
        facts = read_record(line, place)
        if facts is not None:
            found.extend(facts.observations)
        place += len(line) + 1
    return found


def fold(records, **kwargs):
    return agents.finish(observe(records), **kwargs)


def states(tasks):
    return {t.id: t.state for t in tasks}


def test_background_agent_runs_until_its_stamped_notification():
    records = launched(1, "toolu_1", "a1")
    assert states(fold(records)) == {"a1": "running"}
    (task,) = fold(records)
    assert (task.kind, task.tool_use_id, task.agent_type, task.background) == (
        "agent",
        "toolu_1",
        "general-purpose",
        True,
    )
    records.append(delivered(9, note(["a1"], "toolu_1")))
    (task,) = fold(records)
    assert task.state == "completed" and task.finished_at is not None
    assert "private" not in repr(task) and "secret" not in repr(task)


def test_async_result_alone_makes_a_background_agent():
    records = [call(1, "toolu_1", background=False), result(2, "toolu_1", {"isAsync": True, "agentId": "a1"})]
    assert states(fold(records)) == {"a1": "running"}


def test_foreground_agent_ends_with_its_own_result():
    records = [
        call(1, "toolu_1", background=False),
        result(2, "toolu_1", {"status": "completed", "agentId": "a1", "content": []}),
    ]
    (task,) = fold(records)
    assert (task.state, task.background) == ("completed", False)
    assert agents.running_background(fold(records)) == ()


def test_failed_launch_is_no_agent():
    records = [call(1, "toolu_1"), result(2, "toolu_1", {"isAsync": True, "agentId": "a1"}, is_error=True)]
    assert fold(records) == []


def test_notification_quoted_in_a_tool_result_or_a_persons_message_is_text():
    records = launched(1, "toolu_1", "a1")
    records.append(result(5, "toolu_9", {"stdout": ""}, text=note(["a1"], "toolu_1")))
    records.append(delivered(6, "look at this: " + note(["a1"], "toolu_1"), origin="human"))
    records.append(delivered(7, note(["a1"], "toolu_1"), origin="human"))
    assert states(fold(records)) == {"a1": "running"}


def test_queued_command_of_notification_mode_ends_the_run():
    records = launched(1, "toolu_1", "a1") + [queued_command(5, note(["a1"], "toolu_1", "failed"))]
    assert states(fold(records)) == {"a1": "failed"}


def test_unstamped_queue_entry_counts_only_when_it_names_the_run():
    base = launched(1, "toolu_1", "a1")
    assert states(fold(base + [queued(5, note(["a1"]))])) == {"a1": "running"}  # names no run
    assert states(fold(base + [queued(5, "hello " + note(["a1"], "toolu_1"))])) == {"a1": "running"}  # not only
    assert states(fold(base + [queued(5, note(["a1"], "toolu_9"))])) == {"a1": "running"}  # another run
    assert states(fold(base + [queued(5, note(["a1"], "toolu_1"))])) == {"a1": "completed"}


def test_legacy_prompt_that_is_only_notifications_is_the_runtimes():
    records = launched(1, "toolu_1", "a1") + [delivered(5, note(["a1"]), origin=None) | {"promptSource": None}]
    records[-1].pop("promptSource")
    assert states(fold(records)) == {"a1": "completed"}


def test_send_message_resumes_and_the_next_notification_ends_the_new_run():
    records = launched(1, "toolu_1", "a1") + [delivered(5, note(["a1"], "toolu_1"))]
    records += [
        call(10, "toolu_2", name="SendMessage", to="a1"),
        result(11, "toolu_2", {"success": True, "resumedAgentId": "a1"}),
    ]
    (task,) = fold(records)
    assert task.state == "running" and task.tool_use_id == "toolu_1" and task.started_at > task.launched_at
    records.append(delivered(20, note(["a1"], "toolu_2", "stopped")))
    assert states(fold(records)) == {"a1": "stopped"}


def test_notification_without_tool_use_id_ends_the_latest_run_before_it():
    records = launched(1, "toolu_1", "a1") + [delivered(5, note(["a1"]))]
    records += [call(10, "toolu_2", name="SendMessage"), result(11, "toolu_2", {"resumedAgentId": "a1"})]
    assert states(fold(records)) == {"a1": "running"}  # the first run ended; the resumed one runs


def test_the_first_notice_of_a_run_ends_it_and_a_repeat_changes_nothing():
    records = launched(1, "toolu_1", "a1")
    records += [queued(5, note(["a1"], "toolu_1", "completed")), delivered(6, note(["a1"], "toolu_1", "failed"))]
    (task,) = fold(records)
    assert task.state == "completed"


def test_one_notification_ends_several_tasks():
    records = launched(1, "toolu_1", "a1") + launched(3, "toolu_2", "a2")
    records.append(delivered(9, note(["a1", "a2"], None, "stopped")))
    assert states(fold(records)) == {"a1": "stopped", "a2": "stopped"}


def test_background_shell_runs_until_notified_and_a_server_is_a_service():
    bash = call(1, "toolu_b", name="Bash", command="sleep 100", run_in_background=True)
    server = call(3, "toolu_s", name="Bash", command="npm run dev", run_in_background=True)
    records = [
        bash,
        result(2, "toolu_b", {"stdout": "", "backgroundTaskId": "b1"}),
        server,
        result(4, "toolu_s", {"stdout": "", "backgroundTaskId": "b2"}),
    ]
    tasks = fold(records)
    assert states(tasks) == {"b1": "running", "b2": "running"}
    assert {t.id: t.service for t in tasks} == {"b1": False, "b2": True}
    assert [(t.kind, t.id) for t in agents.running_background(tasks) if not t.service] == [("shell", "b1")]
    records.append(delivered(9, note(["b1"], "toolu_b")))
    assert states(fold(records)) == {"b1": "completed", "b2": "running"}


def test_sidechain_records_are_not_the_sessions():
    records = [
        call(1, "toolu_1", sidechain=True),
        result(2, "toolu_1", {"isAsync": True, "agentId": "a1"}) | {"isSidechain": True},
    ]
    assert fold(records) == []


def test_every_running_then_at_most_twenty_ended_latest_first():
    records = []
    for n in range(30):
        records += launched(10 * n, f"toolu_{n}", f"a{n}")
    for n in range(25):
        records.append(delivered(1000 + n, note([f"a{n}"], f"toolu_{n}")))
    tasks = fold(records)
    assert [t.id for t in tasks[:5]] == ["a29", "a28", "a27", "a26", "a25"]
    assert all(t.state == "running" for t in tasks[:5])
    assert [t.id for t in tasks[5:]] == [f"a{n}" for n in range(24, 4, -1)]
    assert len(fold(records, settled=3)) == 8


def test_the_answer_is_the_same_whatever_order_the_records_arrive_in():
    records = (
        launched(1, "toolu_1", "a1")
        + launched(3, "toolu_2", "a2")
        + [
            queued(5, note(["a1"], "toolu_1")),
            delivered(6, note(["a1"], "toolu_1", "failed")),
            call(10, "toolu_3", name="SendMessage"),
            result(11, "toolu_3", {"resumedAgentId": "a1"}),
            call(12, "toolu_b", name="Bash", command="make", run_in_background=True),
            result(13, "toolu_b", {"backgroundTaskId": "b1"}),
            delivered(20, note(["a2", "b1"], None, "killed")),
        ]
    )
    observations = observe(records)  # each keeps its place in the file
    expected = agents.finish(observations)
    assert states(expected) == {"a1": "running", "a2": "stopped", "b1": "stopped"}
    rnd = random.Random(7)
    for _ in range(200):
        shuffled = observations[:]
        rnd.shuffle(shuffled)
        assert agents.finish(shuffled) == expected
    for permutation in itertools.islice(itertools.permutations(observations), 500):
        assert agents.finish(list(permutation)) == expected


def test_observations_round_trip_through_their_stored_form():
    observations = observe(launched(1, "toolu_1", "a1") + [delivered(5, note(["a1"], "toolu_1"))])
    stored = [agents.observation_decoder.decode(agents.observation_encoder.encode(o)) for o in observations]
    assert stored == observations
