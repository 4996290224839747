"""The hook shim: silent, always exit 0, robust to any stdin and any data folder, keeps only what it needs.

Subprocess tests run the real installed command form (`python -I -S <path>/lunavect/shim/entry.py claude`) and the
`lunavect hook claude` console script; unit tests call the extraction directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest
from unit_support import HOOK_FILE, HOOK_FORMS, LUNAVECT_BIN, installed_hook_command

from lunavect.host.processes import is_alive
from lunavect.shim import entry, procfacts, spoolfile
from lunavect.shim import payload as shim_payload

SRC_DIR = str(Path(HOOK_FILE).parent.parent.parent)

BASE = {
    "session_id": "0d6e5c1e-2b7f-4d33-9a57-1f0c2a3b4c5d",
    "transcript_path": "/home/u/.claude/projects/-home-u-proj/0d6e5c1e.jsonl",
    "cwd": "/home/u/proj",
    "permission_mode": "default",
}


def event(name: str, **fields) -> dict:
    return {**BASE, "hook_event_name": name, **fields}


def assert_silent(proc: subprocess.CompletedProcess) -> None:
    assert proc.returncode == 0
    assert proc.stdout == b""
    assert proc.stderr == b""


VIA = pytest.mark.parametrize("via", sorted(HOOK_FORMS))


# ---------------------------------------------------------------------------------------------------------
# Bad stdin: exit 0, print nothing, spool a counted rejection (or the event, when it still is one).


@pytest.mark.process
@VIA
@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty"),
        (b"  \n\t \n", "not-json"),
        (b"this is not json", "not-json"),
        (b'{"hook_event_name": "Stop", "session_id": ', "not-json"),
        (b"[1, 2, 3]", "not-an-object"),
        (b'"Stop"', "not-an-object"),
        (b"null", "not-an-object"),
        (b"[" * 200_000 + b"]" * 200_000, "not-json"),  # nesting deep enough for a RecursionError
        (json.dumps({"session_id": "s1", "prompt": "hi"}).encode(), "no-event-name"),
        (json.dumps({"hook_event_name": 5, "session_id": "s1"}).encode(), "no-event-name"),
        (json.dumps({"hook_event_name": "rm -rf /", "session_id": "s1"}).encode(), "no-event-name"),
    ],
    ids=[
        "empty",
        "whitespace",
        "not-json",
        "truncated",
        "array",
        "string",
        "null",
        "deep",
        "no-name",
        "name-not-str",
        "name-not-a-name",
    ],
)
def test_bad_stdin_is_a_counted_rejection(iso_env, via, raw, reason):
    proc = iso_env.hook(raw, via=via)
    assert_silent(proc)
    records = iso_env.spool_records()
    assert len(records) == 1
    (record,) = records
    assert record["rejected"] == reason
    assert record["client"] == "claude"
    assert isinstance(record["id"], str) and len(record["id"]) == 24
    assert abs(record["t"] - time.time()) < 60
    assert "event" not in record


@pytest.mark.process
def test_rejections_are_counted_by_the_collector(iso_env):
    from lunavect import store
    from lunavect.collector.tick import Collector

    for raw in (b"", b"not json", b"not json either", b"[]", b'{"session_id": "s"}'):
        assert iso_env.hook(raw).returncode == 0
    assert iso_env.hook(None).returncode == 0
    assert iso_env.hook(event("Stop")).returncode == 0
    conn = iso_env.connect()
    Collector(conn).tick()
    assert store.counters(conn) == {
        "hook.rejected.empty": 2,
        "hook.rejected.not-json": 2,
        "hook.rejected.not-an-object": 1,
        "hook.rejected.no-event-name": 1,
    }
    assert conn.execute("SELECT kind FROM events").fetchall() == [("Stop",)]


@pytest.mark.process
@VIA
def test_stdin_dev_null_is_empty(iso_env, via):
    proc = iso_env.hook(None, via=via)
    assert_silent(proc)
    assert [r["rejected"] for r in iso_env.spool_records()] == ["empty"]


@pytest.mark.process
@VIA
def test_stdin_a_terminal_is_not_read(iso_env, via):
    """Run by hand in a terminal, the shim does not wait for typing: it returns at once."""
    master, slave = os.openpty()
    try:
        started = time.monotonic()
        proc = iso_env.hook(None, via=via, stdin=slave)
        assert time.monotonic() - started < 3
    finally:
        os.close(slave)
        os.close(master)
    assert_silent(proc)
    assert [r["rejected"] for r in iso_env.spool_records()] == ["stdin-is-a-terminal"]


@pytest.mark.process
def test_stdin_closed_is_a_rejection(iso_env):
    proc = subprocess.run(
        installed_hook_command(),
        env=iso_env.env,
        capture_output=True,
        timeout=20,
        preexec_fn=lambda: os.close(0),  # noqa: PLW1509 - the child starts with no fd 0 at all
    )
    assert_silent(proc)
    records = iso_env.spool_records()
    assert len(records) == 1 and "rejected" in records[0]


@pytest.mark.process
@VIA
def test_invalid_utf8_inside_an_event_keeps_the_event(iso_env, via):
    raw = (
        json.dumps(event("UserPromptSubmit", prompt="PLACEHOLDER"))
        .encode()
        .replace(b"PLACEHOLDER", b"caf\xc3\xa9 \xff\xfe\xc3 broken \xed\xa0\x80 bytes")
    )
    proc = iso_env.hook(raw, via=via)
    assert_silent(proc)
    (record,) = iso_env.spool_records()
    assert record["event"] == "UserPromptSubmit"
    assert record["session"] == BASE["session_id"]
    assert "rejected" not in record
    assert b"broken" not in iso_env.spool.read_bytes()


@pytest.mark.process
@VIA
def test_huge_reply_is_kept_as_an_event_without_its_text(iso_env, via):
    reply = ("The quick brown fox. " * 10_000)[:200_000] + "\n\nShall I apply these changes?"
    proc = iso_env.hook(event("Stop", last_assistant_message=reply, stop_hook_active=False), via=via)
    assert_silent(proc)
    (record,) = iso_env.spool_records()
    assert record["event"] == "Stop"
    assert record["question"] is True
    raw = iso_env.spool.read_bytes()
    assert b"quick brown fox" not in raw
    assert len(raw) < 2000


@pytest.mark.process
def test_50_mb_payload_is_still_an_event(iso_env):
    payload = event(
        "PostToolUse",
        tool_name="Read",
        tool_use_id="toolu_big",
        tool_input={"file_path": "/x"},
        tool_response={"content": "A" * (50 * 1024 * 1024)},
    )
    started = time.monotonic()
    proc = iso_env.hook(payload)
    assert_silent(proc)
    assert time.monotonic() - started < 10
    (record,) = iso_env.spool_records()
    assert record["event"] == "PostToolUse" and record["tool"] == "Read"
    assert iso_env.spool.stat().st_size < 2000


@pytest.mark.process
def test_payload_over_the_limit_is_drained_and_rejected(iso_env):
    raw = b'{"hook_event_name":"Stop","x":"' + b"B" * (entry.MAX_PAYLOAD_BYTES + 1024) + b'"}'
    proc = iso_env.hook(raw)  # no BrokenPipeError here: the shim reads it all
    assert_silent(proc)
    assert [r["rejected"] for r in iso_env.spool_records()] == ["payload-too-large"]


# ---------------------------------------------------------------------------------------------------------
# A data folder that cannot be written, or a full disk: still exit 0 at once, silent.


def _timed_hook(iso_env, via: str, env: dict | None = None) -> float:
    started = time.monotonic()
    proc = iso_env.hook(event("Stop", last_assistant_message="Done."), via=via, env=env)
    elapsed = time.monotonic() - started
    assert_silent(proc)
    return elapsed


@pytest.mark.process
@VIA
def test_data_folder_under_a_regular_file(iso_env, via):
    blocker = iso_env.root / "a-file"
    blocker.write_text("not a folder")
    env = dict(iso_env.env, LUNAVECT_HOME=str(blocker / "lunavect"))
    assert _timed_hook(iso_env, via, env) < 2
    assert blocker.read_text() == "not a folder"


@pytest.mark.process
@VIA
def test_full_disk(iso_env, via):
    iso_env.spool_dir.mkdir(parents=True)
    iso_env.spool.symlink_to("/dev/full")
    assert _timed_hook(iso_env, via) < 2
    assert iso_env.spool.is_symlink()


@pytest.mark.process
@VIA
def test_spool_path_is_a_folder(iso_env, via):
    iso_env.spool.mkdir(parents=True)
    assert _timed_hook(iso_env, via) < 2
    assert iso_env.spool.is_dir() and not any(iso_env.spool.iterdir())


@pytest.mark.process
def test_no_collector_needed(iso_env):
    """The shim never waits for a collector: none runs here, and a stale lock file changes nothing."""
    iso_env.data.mkdir(parents=True)
    (iso_env.data / "collector.lock").write_text("999999999\n")
    assert _timed_hook(iso_env, "installed") < 2
    assert iso_env.spool_records()[0]["event"] == "Stop"


@pytest.mark.process
def test_stdin_never_closed_gives_up_at_the_deadline(iso_env):
    proc = subprocess.Popen(
        installed_hook_command(),
        env=iso_env.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        proc.stdin.write(b'{"hook_event_name": "Stop", ')
        proc.stdin.flush()
        started = time.monotonic()
        assert proc.wait(timeout=entry.STDIN_DEADLINE_S + 3) == 0
        assert time.monotonic() - started < entry.STDIN_DEADLINE_S + 2
        assert proc.stdout.read() == b"" and proc.stderr.read() == b""
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
        proc.stdout.close()
        proc.stderr.close()
    assert [r["rejected"] for r in iso_env.spool_records()] == ["stdin-timeout"]


# ---------------------------------------------------------------------------------------------------------
# The agent's process facts: pid and start time of the nearest `claude` ancestor, and its tty.


@pytest.mark.process
def test_agent_pid_start_time_and_tty(iso_env):
    bin_dir = iso_env.root / "bin"
    bin_dir.mkdir()
    fake_claude = bin_dir / "claude"
    fake_claude.symlink_to(sys.executable)  # the kernel names the process after the path it ran: "claude"
    # The agent runs its hooks through a shell: the shim's parent is `sh`, its grandparent the agent.
    script = textwrap.dedent(
        f"""
        import os, shlex, subprocess, sys
        cmd = " ".join(shlex.quote(w) for w in {installed_hook_command()!r})
        payload = {json.dumps(json.dumps(event("PreToolUse", tool_name="Bash", tool_use_id="toolu_1")))}
        subprocess.run(["/bin/sh", "-c", cmd], input=payload.encode(), check=True)
        print(os.getpid(), flush=True)
        """
    )
    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [str(fake_claude), "-I", "-S", "-c", script],
            env=iso_env.env,
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=slave,
            timeout=30,
        )
        tty_name = os.ttyname(slave)
    finally:
        os.close(slave)
        os.close(master)
    assert proc.returncode == 0
    claude_pid = int(proc.stdout.decode().split()[-1])
    (record,) = iso_env.spool_records()
    assert record["pid"] == claude_pid
    assert record["tty"] == tty_name
    assert isinstance(record["pstart"], float)
    assert abs(record["pstart"] - time.time()) < 60


@pytest.mark.process
def test_start_time_agrees_with_liveness_check(iso_env):
    """The start time the shim records is the one `is_alive` compares with (pid reuse guard)."""
    bin_dir = iso_env.root / "bin"
    bin_dir.mkdir()
    fake_claude = bin_dir / "claude"
    fake_claude.symlink_to(sys.executable)
    agent = subprocess.Popen([str(fake_claude), "-I", "-S", "-c", "import time; time.sleep(30)"])
    try:
        facts = procfacts.agent_process("claude", start_pid=agent.pid)
        assert facts["pid"] == agent.pid
        assert abs(facts["pstart"] - psutil.Process(agent.pid).create_time()) < 0.5
        assert is_alive(facts["pid"], facts["pstart"]) is True
        assert is_alive(facts["pid"], facts["pstart"] - 3600) is False  # a reused pid
    finally:
        agent.kill()
        agent.wait()
    assert is_alive(facts["pid"], facts["pstart"]) is False


@pytest.mark.process
def test_no_agent_ancestor_records_no_pid(iso_env):
    me = psutil.Process()
    if any(p.name() == "claude" for p in [me, *me.parents()]):
        pytest.skip("these tests run under a process named claude")
    assert procfacts.agent_process("claude", start_pid=os.getpid()) == {}
    proc = iso_env.hook(event("Stop"))
    assert_silent(proc)
    (record,) = iso_env.spool_records()
    assert "pid" not in record and "pstart" not in record and "tty" not in record


# ---------------------------------------------------------------------------------------------------------
# The shim imports only the standard library and lunavect's two pure classifiers.

ALLOWED_LUNAVECT = {
    "lunavect",
    "lunavect.core",
    "lunavect.core.closing_question",
    "lunavect.core.closing_phrases",
    "lunavect.core.services",
    "lunavect.core.ids",  # the session-id rule: string methods, no import
    "lunavect.core.clients",  # the client descriptors (their process names): no import
    "lunavect.core.bounds",  # the ranges of numbers (a turn's end: the model's window): no import
    "lunavect.hook",
    "lunavect.shim",
    "lunavect.shim.entry",
    "lunavect.shim.jsoncodec",
    "lunavect.shim.payload",
    "lunavect.shim.notifications",
    "lunavect.shim.procfacts",
    "lunavect.shim.spoolfile",
}


def _third_party(modules: list[str]) -> list[str]:
    stdlib = sys.stdlib_module_names
    return sorted(m for m in modules if m != "__main__" and m.split(".")[0] not in stdlib and m not in ALLOWED_LUNAVECT)


RECORD_MODULES_AT_EXIT = """
import json as _j, os as _o, posix as _p, sys as _s
_real_exit = _o._exit
def _recording_exit(code):
    with open({out!r}, "w") as f:
        _j.dump(sorted(_s.modules), f)
    _real_exit(code)
_o._exit = _p._exit = _recording_exit
"""


def _modules_of_a_shim_run(iso_env, form: str, payload: dict) -> set[str]:
    """Run the shim the way `form` says, with -I -S; every module loaded when it exits (os._exit)."""
    out = iso_env.root / f"modules-{form}.json"
    recorder = RECORD_MODULES_AT_EXIT.format(out=str(out))
    if form == "installed":
        argv = installed_hook_command()
        assert argv[:4] == [sys.executable, "-I", "-S", "-c"], argv
        argv = [*argv[:4], recorder + "\n" + argv[4], *argv[5:]]
    else:
        argv = [
            sys.executable,
            "-I",
            "-S",
            "-c",
            recorder + f"\nimport runpy, sys\nsys.argv = [{HOOK_FILE!r}, 'claude']\n"
            f"runpy.run_path({HOOK_FILE!r}, run_name='__main__')",
        ]
    proc = subprocess.run(argv, input=json.dumps(payload).encode(), env=iso_env.env, capture_output=True, timeout=20)
    assert_silent(proc)
    return set(json.loads(out.read_text()))


@pytest.mark.process
@pytest.mark.parametrize("form", ["installed", "file"])
def test_shim_imports_only_the_stdlib(iso_env, form):
    stop = event(
        "Stop",
        last_assistant_message="Shall I apply these changes?",
        background_tasks=[{"id": "b1", "type": "shell", "command": "npm run dev"}],
    )
    modules = _modules_of_a_shim_run(iso_env, form, stop)
    assert _third_party(modules) == []
    assert {"lunavect.core.closing_question", "lunavect.core.services"} <= modules  # this event needed both
    for heavy in (
        "msgspec",
        "psutil",
        "platformdirs",
        "click",
        "watchfiles",
        "sqlite3",
        "subprocess",
        "lunavect.core.model",
        "lunavect.core.rules",
        "lunavect.store",
        "lunavect.paths",
    ):
        assert heavy not in modules
    (record,) = iso_env.spool_records()
    assert record["question"] is True and record["bg"] == [{"kind": "shell", "id": "b1", "service": True}]


@pytest.mark.process
def test_plain_events_do_not_load_the_classifiers(iso_env):
    modules = _modules_of_a_shim_run(iso_env, "installed", event("PreToolUse", tool_name="Bash", tool_use_id="t"))
    assert _third_party(modules) == []
    assert "lunavect.core.closing_question" not in modules and "lunavect.core.services" not in modules
    assert iso_env.spool_records()[0]["tool"] == "Bash"


@pytest.mark.process
def test_cli_hook_path_does_not_import_the_cli(iso_env):
    out = iso_env.root / "modules.json"
    script = textwrap.dedent(
        f"""
        import json, os, posix, sys
        real_exit = os._exit
        def recording_exit(code):
            with open({str(out)!r}, "w") as f:
                json.dump(sorted(sys.modules), f)
            real_exit(code)
        os._exit = posix._exit = recording_exit
        sys.argv = ["lunavect", "hook", "claude"]
        from lunavect.cli import main
        main()
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        input=json.dumps(event("Stop")).encode(),
        env=iso_env.env,
        capture_output=True,
        timeout=20,
    )
    assert_silent(proc)
    modules = set(json.loads(out.read_text()))
    for heavy in (
        "click",
        "msgspec",
        "psutil",
        "platformdirs",
        "watchfiles",
        "sqlite3",
        "lunavect.cli.root",
        "lunavect.store",
        "lunavect.collector.tick",
    ):
        assert heavy not in modules
    assert iso_env.spool_records()[0]["event"] == "Stop"


@pytest.mark.process
@pytest.mark.parametrize("form", ["launcher", "file"])
def test_commands_installed_by_earlier_versions_still_work(iso_env, form):
    """Hook commands written before the shim became a package name `lunavect.hook`; they keep working (silent,
    exit 0, one record) until `lunavect hooks install` rewrites them."""
    src = str(Path(HOOK_FILE).parent.parent.parent)
    legacy = str(Path(src) / "lunavect" / "hook.py")
    launcher = "import sys;sys.path.insert(0,sys.argv.pop(1));import lunavect.hook as h;h.main()"
    argv = (
        [sys.executable, "-I", "-S", "-c", launcher, src, "claude"]
        if form == "launcher"
        else [sys.executable, "-I", "-S", legacy, "claude"]
    )
    proc = subprocess.run(
        argv, input=json.dumps(event("Stop")).encode(), env=iso_env.env, capture_output=True, timeout=20
    )
    assert_silent(proc)
    (record,) = iso_env.spool_records()
    assert record["event"] == "Stop" and record["client"] == "claude"


def test_console_script_exists():
    assert os.access(LUNAVECT_BIN, os.X_OK)


# ---------------------------------------------------------------------------------------------------------
# Extraction, unit level: ids, names, kinds and verdicts; never text.


def test_tool_events_keep_name_and_ids_only():
    record = shim_payload.extract(
        "claude",
        event(
            "PreToolUse",
            tool_name="Bash",
            tool_use_id="toolu_01",
            prompt_id="p1",
            tool_input={"command": "rm -rf /secret"},
        ),
    )
    assert record == {
        "event": "PreToolUse",
        "session": BASE["session_id"],
        "prompt_id": "p1",
        "tool_use_id": "toolu_01",
        "cwd": BASE["cwd"],
        "transcript": BASE["transcript_path"],
        "tool": "Bash",
        "mode": "default",
    }


def test_mcp_tool_name_and_bad_values_are_dropped():
    record = shim_payload.extract(
        "claude", event("PreToolUse", tool_name="mcp__github__create_issue", tool_use_id="x" * 201, session_id="")
    )
    assert record["tool"] == "mcp__github__create_issue"
    assert "tool_use_id" not in record and "session" not in record
    record = shim_payload.extract("claude", event("PreToolUse", tool_name="a tool with spaces"))
    assert "tool" not in record


def test_stop_background_tasks_kinds_and_service_verdict():
    tasks = [
        {
            "id": "b1",
            "type": "shell",
            "status": "running",
            "description": "dev server SECRET",
            "command": "npm run dev",
        },
        {"id": "b2", "type": "shell", "status": "running", "description": "tests", "command": "npm test"},
        {"id": "a1", "type": "subagent", "status": "running", "description": "explore", "agent_type": "Explore"},
        {"id": "a2", "type": "local_agent", "status": "running"},
        {"id": "m1", "type": "monitor", "status": "running"},
        {"id": "w1", "type": "workflow", "status": "running", "name": "wf"},
        {"id": "x1", "type": "mcp", "status": "running", "server": "s", "tool": "t"},
        {"id": "y1", "status": "weird status!"},
        "not a task",
    ]
    record = shim_payload.extract(
        "claude",
        event(
            "Stop",
            background_tasks=tasks,
            session_crons=[{"id": "c", "prompt": "p"}],
            stop_hook_active=True,
            last_assistant_message="Done.",
        ),
    )
    assert record["bg"] == [
        {"kind": "shell", "id": "b1", "status": "running", "service": True},
        {"kind": "shell", "id": "b2", "status": "running"},
        {"kind": "agent", "id": "a1", "status": "running"},
        {"kind": "agent", "id": "a2", "status": "running"},
        {"kind": "monitor", "id": "m1", "status": "running"},
        {"kind": "workflow", "id": "w1", "status": "running"},
        {"kind": "other", "id": "x1", "status": "running"},
        {"kind": "other", "id": "y1"},
    ]
    assert record["crons"] == 1
    assert record["stop_hook_active"] is True
    assert "question" not in record
    assert "SECRET" not in json.dumps(record)


def test_stop_without_background_tasks_has_no_bg_key_and_empty_list_is_kept():
    assert "bg" not in shim_payload.extract("claude", event("Stop"))
    assert shim_payload.extract("claude", event("Stop", background_tasks=[]))["bg"] == []
    assert shim_payload.extract("claude", event("SubagentStop", agent_id="a1", background_tasks=[]))["bg"] == []


def test_stop_question_verdict():
    assert (
        shim_payload.extract(
            "claude", event("Stop", last_assistant_message="I changed 3 files.\n\nShall I apply these changes?")
        )["question"]
        is True
    )
    assert "question" not in shim_payload.extract(
        "claude", event("Stop", last_assistant_message="Done. All tests pass.")
    )
    assert "question" not in shim_payload.extract("claude", event("Stop", last_assistant_message=None))
    # Only Stop carries the verdict: a subagent's closing question is not addressed to the person.
    assert "question" not in shim_payload.extract(
        "claude", event("SubagentStop", last_assistant_message="Shall I apply these changes?")
    )


def test_post_tool_use_background_bash_starts_a_shell():
    payload = event(
        "PostToolUse",
        tool_name="Bash",
        tool_use_id="toolu_2",
        tool_input={"command": "sleep 30", "run_in_background": True},
        tool_response={"stdout": "", "stderr": "", "interrupted": False, "backgroundTaskId": "b0be39e"},
    )
    assert shim_payload.extract("claude", payload)["bg_start"] == {"kind": "shell", "id": "b0be39e"}
    payload["tool_input"]["command"] = "cd web && npm run dev"
    assert shim_payload.extract("claude", payload)["bg_start"] == {"kind": "shell", "id": "b0be39e", "service": True}


def test_post_tool_use_async_agent_starts_an_agent():
    payload = event(
        "PostToolUse",
        tool_name="Agent",
        tool_use_id="toolu_3",
        tool_input={"prompt": "look around", "run_in_background": True},
        tool_response={
            "isAsync": True,
            "status": "async_launched",
            "agentId": "a881341",
            "description": "d",
            "prompt": "look around",
            "outputFile": "/tmp/x.output",
        },
    )
    assert shim_payload.extract("claude", payload)["bg_start"] == {"kind": "agent", "id": "a881341"}
    payload["tool_response"] = {"status": "completed", "agentId": "a1", "content": [{"type": "text", "text": "x"}]}
    assert "bg_start" not in shim_payload.extract("claude", payload)


def test_post_tool_use_monitor_and_plain_tools():
    assert shim_payload.extract("claude", event("PostToolUse", tool_name="Monitor", tool_response={"taskId": "m9"}))[
        "bg_start"
    ] == {"kind": "monitor", "id": "m9"}
    assert shim_payload.extract("claude", event("PostToolUse", tool_name="Monitor", tool_response="started"))[
        "bg_start"
    ] == {"kind": "monitor"}
    assert "bg_start" not in shim_payload.extract(
        "claude", event("PostToolUse", tool_name="Read", tool_response={"file": {}})
    )
    assert "bg_start" not in shim_payload.extract(
        "claude", event("PostToolUse", tool_name="Bash", tool_response="text")
    )


NOTIFICATION = (
    "<task-notification>\n<task-id>b0be39e</task-id>\n<tool-use-id>toolu_2</tool-use-id>\n"
    "<output-file>/tmp/claude-0/tasks/b0be39e.output</output-file>\n<status>completed</status>\n"
    '<summary>Background command "SECRET build" completed (exit code 0)</summary>\n</task-notification>\n'
    "Read the output file to retrieve the result: /tmp/claude-0/tasks/b0be39e.output"
)


def test_task_notification_prompt_ends_background_work():
    record = shim_payload.extract("claude", event("UserPromptSubmit", prompt=NOTIFICATION))
    assert record["bg_end"] == [{"id": "b0be39e", "tool_use_id": "toolu_2", "status": "completed"}]
    assert record["notification_only"] is True
    assert "SECRET" not in json.dumps(record)


def test_task_notifications_several_and_mixed_with_a_person():
    second = NOTIFICATION.replace("b0be39e", "a881341").replace("toolu_2", "toolu_3").replace("completed", "failed")
    ended, only = shim_payload.ended_background(NOTIFICATION + "\n" + second)
    assert ended == [
        {"id": "b0be39e", "tool_use_id": "toolu_2", "status": "completed"},
        {"id": "a881341", "tool_use_id": "toolu_3", "status": "failed"},
    ]
    assert only is True
    ended, only = shim_payload.ended_background(NOTIFICATION + "\nalso, please fix the README")
    assert len(ended) == 1 and only is False
    assert shim_payload.ended_background("no notification here") == ([], False)
    record = shim_payload.extract("claude", event("UserPromptSubmit", prompt="fix the bug"))
    assert "bg_end" not in record and "notification_only" not in record


def test_stop_failure_error_and_unreachable_detail():
    record = shim_payload.extract(
        "claude", event("StopFailure", error="rate_limit", last_assistant_message="API Error: Rate limit reached")
    )
    assert record["error"] == "rate_limit" and "error_detail" not in record
    record = shim_payload.extract(
        "claude",
        event(
            "StopFailure",
            error="server_error",
            last_assistant_message="API Error: Unable to connect to API (ECONNREFUSED)",
        ),
    )
    assert record["error"] == "server_error" and record["error_detail"] == "ECONNREFUSED"
    assert "API Error" not in json.dumps(record)
    assert shim_payload.extract("claude", event("StopFailure"))["error"] == "unknown"
    assert shim_payload.extract("claude", event("StopFailure", error="not an error code"))["error"] == "unknown"


def test_other_events_fields():
    record = shim_payload.extract(
        "claude",
        event(
            "Notification", notification_type="permission_prompt", message="Claude needs your permission to use SECRET"
        ),
    )
    assert record["ntype"] == "permission_prompt" and "SECRET" not in json.dumps(record)
    assert shim_payload.extract("claude", event("SessionStart", source="startup", model="m"))["source"] == "startup"
    assert (
        shim_payload.extract("claude", event("SessionEnd", reason="prompt_input_exit"))["reason"] == "prompt_input_exit"
    )
    assert shim_payload.extract("claude", event("PreCompact", trigger="auto"))["trigger"] == "auto"
    assert (
        shim_payload.extract("claude", event("PostToolUseFailure", tool_name="Bash", is_interrupt=True))["interrupt"]
        is True
    )
    assert "interrupt" not in shim_payload.extract(
        "claude", event("PostToolUseFailure", tool_name="Bash", is_interrupt=False)
    )
    record = shim_payload.extract("claude", event("SubagentStart", agent_id="a1", agent_type="Explore"))
    assert record["agent_id"] == "a1" and record["agent_type"] == "Explore"
    assert shim_payload.extract("claude", {"session_id": "s"}) is None


def test_handle_appends_one_line_with_receipt_time(iso_env):
    environ = {"LUNAVECT_HOME": str(iso_env.data)}
    record = entry.handle("claude", json.dumps(event("Stop")).encode(), None, environ=environ, now=1234.5)
    assert record["t"] == 1234.5 and record["v"] == spoolfile.SPOOL_FORMAT and record["client"] == "claude"
    rejected = entry.handle("codex", None, "stdin-timeout", environ=environ, now=1235.0)
    assert rejected["rejected"] == "stdin-timeout" and rejected["client"] == "codex"
    lines = iso_env.spool.read_bytes().splitlines()
    assert [json.loads(line) for line in lines] == [record, rejected]
    assert record["id"] != rejected["id"]
    assert (iso_env.spool.stat().st_mode & 0o777) == 0o600
    assert (iso_env.spool_dir.stat().st_mode & 0o777) == 0o700
