"""A line nested deeper than any client writes (a structured tool result an MCP server shaped) costs that one
line, never its file (issue 25, item 3). Before, at ~1,100 levels `show` and the peeks ended in a
RecursionError, and at 2,000 the collector set the whole transcript aside, so the session left the list.

Each reader gets real transcripts and rollouts (../shared/data, never edited) with one line 1,100, 2,000 or
100,000 levels deep put among their lines: the session keeps the facts of every other line, the conversation
readers show every other message and count one line skipped, and `show` says so in one line.

A decoder of any JSON value refuses a value deeper than bounded_json.MAX_DEPTH on every interpreter. A decoder
of a declared type (the transcript, usage and spool records) is bounded by its type and refuses only what it
cannot skip: past some 1,000 levels on Python 3.11 (its recursion limit, less the stack); later versions count
C recursion apart and skip deeper, and then read the line as any other. The tests of those readers run where
the interpreter refuses the depth (all three on 3.11).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest
from codex_source_support import Home
from unit_support import a_session, seed_snapshot, shared_data_dir, transcript_summary

from lunavect import store
from lunavect.clients import conversation_at
from lunavect.clients.claude.catalog import Unusable, entry_of
from lunavect.clients.claude.files_source import ClaudeFilesSource, background_tasks
from lunavect.clients.claude.records import Unreadable, read_plain, read_record
from lunavect.collector.tick import Collector
from lunavect.conversation.follow import Follower
from lunavect.conversation.window import read_window
from lunavect.core import bounded_json, lenient_json
from lunavect.core.rules import decide
from lunavect.core.times import epoch
from lunavect.evidence import spool
from lunavect.evidence.spool_record import decode
from lunavect.files import quarantine

DATA = shared_data_dir()
SPOTTER = DATA / "claude" / "spotter"
ROLLOUTS = sorted((DATA / "codex" / "localpush").glob("rollout-*.jsonl"))
pytestmark = pytest.mark.skipif(not SPOTTER.is_dir() or not ROLLOUTS, reason=f"the shared real files are not at {DATA}")

DEPTHS = [1100, 2000, 100_000]
NOW = 2_000_000_000.0


def nested(depth: int) -> str:
    """A value `depth` levels deep, objects and arrays in turn, as an MCP server's structured result may be."""
    opens, closes = [], []
    for level in range(depth):
        opens.append('{"a":' if level % 2 else "[")
        closes.append("}" if level % 2 else "]")
    return "".join(opens) + "1" + "".join(reversed(closes))


def with_deep(record: dict, depth: int) -> bytes:
    """`record` as a line, its "DEEP" value nested `depth` levels."""
    return (json.dumps(record).replace('"DEEP"', nested(depth)) + "\n").encode()


def claude_line(session: str, depth: int) -> bytes:
    """A tool result whose structured content nests `depth` levels (the line itself a few more)."""
    result = {"type": "tool_result", "tool_use_id": "toolu_deep", "content": [{"type": "text", "text": "DEEP RESULT"}]}
    record = {
        "parentUuid": None, "isSidechain": False, "userType": "external", "cwd": "/home/USER/deep",
        "sessionId": session, "version": "9.9.9", "gitBranch": "deep", "type": "user",
        "message": {"role": "user", "content": [result]}, "uuid": "0eeb0000-0000-4000-8000-000000000001",
        "timestamp": "2026-02-11T20:00:00.000Z", "toolUseResult": {"structuredContent": "DEEP"},
    }  # fmt: skip
    return with_deep(record, depth)


def agent_line(session: str, depth: int) -> bytes:
    """A sub-agent's reply with its usage (the line the agents' usage reader decodes) and a deep block."""
    message = {
        "id": "msg_deep", "model": "claude-opus-4-6", "role": "assistant", "stop_reason": "end_turn",
        "usage": {"input_tokens": 1_000_000, "output_tokens": 1_000_000}, "content": [{"type": "text", "text": "DEEP"}],
    }  # fmt: skip
    record = {
        "isSidechain": True, "sessionId": session, "type": "assistant", "message": message,
        "uuid": "0eeb0000-0000-4000-8000-000000000002", "timestamp": "2026-02-11T20:00:00.000Z",
    }  # fmt: skip
    return (json.dumps(record).replace('"text": "DEEP"', '"text": ' + nested(depth)) + "\n").encode()


def codex_lines(depth: int) -> list[bytes]:
    """A deep tool output, and a token count whose info holds a deep field (the usage reader's line)."""
    at = "2026-02-23T12:00:00.000Z"
    output = {"type": "function_call_output", "call_id": "call_deep", "output": "DEEP"}
    count = {"type": "token_count", "info": {"total_token_usage": {"input_tokens": 7}, "extra": "DEEP"}}
    return [
        with_deep({"timestamp": at, "type": "response_item", "payload": output}, depth),
        with_deep({"timestamp": at, "type": "event_msg", "payload": count}, depth),
    ]


def session_of(path: Path) -> str:
    with open(path, "rb") as f:
        return next(json.loads(line)["sessionId"] for line in f if b'"sessionId"' in line)


def with_line(data: bytes, line: bytes, at: int) -> bytes:
    """`data` with `line` put before its line number `at` (negative: from the end)."""
    lines = data.splitlines(keepends=True)
    return b"".join(lines[:at] + [line] + lines[at:])


class _Skipping(msgspec.Struct):
    a: int = 0


def typed_refuses(depth: int) -> None:
    """Skip where this interpreter's typed decoders read a line `depth` levels deep (see the module's note)."""
    try:
        msgspec.json.Decoder(_Skipping).decode(b'{"a":1,"b":' + nested(depth).encode() + b"}")  # "b": skipped
    except RecursionError:
        return
    pytest.skip(f"this interpreter skips {depth} levels in a typed decode: such a line is read, not refused")


# -- the bound itself --------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [0, 1, 9, 127, 128, 129, 1100, 100_000])
def test_the_bound_is_the_nesting_whatever_the_strings_hold(depth):
    value = nested(depth).encode()
    assert bounded_json.within(value) == (depth <= bounded_json.MAX_DEPTH)
    # Brackets inside strings, escaped quotes included, are text: they nest nothing.
    text = json.dumps({"t": "[{" * 5000 + '\\"[[' * 300, "v": json.loads(value) if depth < 500 else 1}).encode()
    assert bounded_json.within(text) == (depth + 1 <= bounded_json.MAX_DEPTH or depth >= 500)


@pytest.mark.parametrize("depth", DEPTHS)
def test_every_decoder_path_refuses_a_deep_value_as_not_json(depth):
    line = nested(depth).encode()
    with pytest.raises(bounded_json.TooDeep):
        bounded_json.decode_any(line)
    with pytest.raises(ValueError):  # the json path: what every Codex reader catches
        lenient_json.loads(line)
    with pytest.raises(ValueError):
        lenient_json.loads(line.replace(b"1", b"\xe9"))  # the retry after a stray byte is bounded too
    typed_refuses(depth)
    with pytest.raises(bounded_json.TooDeep):  # never RecursionError
        bounded_json.decode(msgspec.json.Decoder(), line)
    with pytest.raises(msgspec.DecodeError):  # the hook spool: counted malformed
        decode(b'{"v":1,"id":"r1","event":"Stop","extra":' + line + b"}")
    with pytest.raises(Unusable):  # a catalog file sessions/<pid>.json
        entry_of(7, b'{"pid":7,"sessionId":"5e55e55e-0000-4000-8000-000000000001","x":' + line + b"}")
    session = "5e55e55e-0000-4000-8000-000000000001"
    for read in (read_record, read_plain):
        with pytest.raises(Unreadable):
            read(claude_line(session, depth).rstrip(b"\n"))


# -- Claude Code: the collector keeps the session and every other line's facts -------------------------------


class Installation:
    """One isolated Claude folder with a collector reading it, as the collector's loop does (several polls:
    a glance lists the session first, the whole read follows)."""

    def __init__(self, root: Path, session: str) -> None:
        self.session = session
        self.config = root / "claude"
        self.folder = self.config / "projects" / "-home-USER-project"
        self.folder.mkdir(parents=True)
        self.path = self.folder / f"{session}.jsonl"
        self.conn = store.connect(root / "lunavect" / "store.sqlite3")
        self.collector = Collector(self.conn, sources=[ClaudeFilesSource(config_dir=self.config)])

    def answer(self):
        for _ in range(3):
            self.collector.poll_sources(now=NOW)
        self.collector.snapshot(now=NOW)
        summary = transcript_summary(self.conn, self.session)
        assert summary is not None
        facts = self.collector._facts[f"claude:{self.session}"]
        listed = [row[0] for row in self.conn.execute("SELECT id FROM snapshot WHERE listed = 1")]
        tasks = sorted((t.id, t.kind, t.state, t.background) for t in background_tasks(self.conn, self.session))
        put_aside = [e.path for e in quarantine.entries(self.conn)]
        return summary, tasks, decide(facts, NOW), (facts.title, facts.cwd, facts.branch), listed, put_aside

    def close(self) -> None:
        self.conn.close()


def claude_answer(root: Path, source: Path, deep: bytes | None, at: int, agent_deep: bytes | None = None):
    """The session's answer from `source`, with `deep` put before its line `at` and `agent_deep` among the
    lines of each of its sub-agents' files."""
    session = session_of(source)
    home = Installation(root, session)
    try:
        data = source.read_bytes()
        home.path.write_bytes(data if deep is None else with_line(data, deep, at))
        agents = source.with_suffix("") / "subagents"
        if agents.is_dir():
            shutil.copytree(agents, home.path.with_suffix("") / "subagents")
            if agent_deep is not None:
                for agent in sorted((home.path.with_suffix("") / "subagents").glob("agent-*.jsonl")):
                    agent.write_bytes(with_line(agent.read_bytes(), agent_deep, 3))
        return home.answer()
    finally:
        home.close()


def _comparable(answer):
    summary, *rest = answer
    # Bookkeeping that a longer line moves: where the agents' files were read to, and what a glance saw first
    # (its 64 KB tail holds fewer records beside a line of 500 KB).
    agents = {name: read.last_message_id for name, read in summary.agents.items()}
    summary = msgspec.structs.replace(
        summary, unreadable=0, agents={}, sent_meta=None, sent_background=None, glanced_at=None
    )
    return (summary, agents, *rest)


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize(
    ("name", "at"),
    [("tool_heavy.jsonl", 1), ("tool_heavy.jsonl", 20), ("258c7280-ae70-4798-800f-63464d01a85d.jsonl", -3)],
    ids=["head", "middle", "tail-with-agents"],
)
def test_a_deep_line_costs_a_claude_session_nothing_but_that_line(tmp_path, name, at, depth):
    typed_refuses(depth)
    source = SPOTTER / name
    session = session_of(source)
    pristine = claude_answer(tmp_path / "pristine", source, None, at)
    found = claude_answer(tmp_path / "deep", source, claude_line(session, depth), at, agent_line(session, depth))
    summary, _tasks, _decision, _meta, listed, put_aside = found
    assert put_aside == []  # doctor has no "RecursionError" to show: nothing was set aside
    assert listed == [f"claude:{session}"]
    assert summary.unreadable == 1  # counted, once
    assert _comparable(found) == _comparable(pristine)


# -- Codex: cursor, usage, headers, compressed rollouts --------------------------------------------------------


def codex_rows(root: Path, depth: int | None, compress: bool = False) -> dict[str, dict]:
    home = Home(root)
    try:
        last = 0.0
        for source in ROLLOUTS:
            data = source.read_bytes()
            last = max(last, epoch(json.loads(data.splitlines()[-1])["timestamp"]) or 0.0)
            if depth is not None:
                call, count = codex_lines(depth)
                data = with_line(with_line(data, call, 2), count, -1)  # a token count newer than every real one
            target = home.day / source.name
            target.write_bytes(data)
            if compress:
                from lunavect.files.zstd import compress

                target.with_name(source.name + ".zst").write_bytes(compress(data))
                target.unlink()
        rows = home.tick(last + 30)
        assert [e.path for e in quarantine.entries(home.conn)] == []
        return rows
    finally:
        home.close()


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "zst"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deep_line_costs_a_codex_thread_nothing_but_that_line(tmp_path, depth, compress):
    typed_refuses(depth)  # the usage reader's
    pristine = codex_rows(tmp_path / "pristine", None, compress)
    found = codex_rows(tmp_path / "deep", depth, compress)
    assert set(found) == set(pristine) and len(found) == len(ROLLOUTS)
    for key, row in pristine.items():
        for field in ("title", "state", "since", "project", "cwd", "resume", "error", "usage"):
            assert found[key].get(field) == row.get(field), (key, field)


# -- the conversation readers behind show and the peeks ------------------------------------------------------


def shown(messages) -> list[tuple[str, str | None, str | None, str | None]]:
    """What a viewer shows of each message (places move with the line put in; nothing else may)."""
    return [(m.kind.value, m.text, m.tool, m.result) for m in messages]


def conversation_file(tmp_path: Path, provider: str, depth: int | None, name: str) -> Path:
    if provider == "claude":
        source = SPOTTER / "tool_heavy.jsonl"
        data = source.read_bytes()
        if depth is not None:
            data = with_line(data, claude_line(session_of(source), depth), 20)
    else:
        data = ROLLOUTS[-1].read_bytes()
        if depth is not None:
            for line in codex_lines(depth):
                data = with_line(data, line, 5)
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("provider", ["claude", "codex"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_the_window_shows_every_other_message_and_counts_the_line(tmp_path, provider, depth):
    pristine = read_window(
        conversation_at(conversation_file(tmp_path, provider, None, "a.jsonl"), provider), messages=500
    )
    path = conversation_file(tmp_path, provider, depth, "b.jsonl")
    window = read_window(conversation_at(path, provider), messages=500)
    assert pristine.skipped == 0 and window.skipped == 1 if provider == "claude" else window.skipped == 2
    assert shown(window.messages) == shown(pristine.messages) and len(window.messages) > 5
    # Paging back over it, and following it, show the same.
    older = read_window(conversation_at(path, provider), messages=3)
    assert older.older and older.start is not None
    back = read_window(conversation_at(path, provider), before=older.start, messages=500)
    assert shown(back.messages + older.messages) == shown(window.messages)
    follower = Follower(conversation_at(path, provider), messages=500)
    assert shown(follower.poll().changed) == shown(pristine.messages)


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deep_line_appended_while_followed_is_skipped_and_said(tmp_path, depth):
    path = conversation_file(tmp_path, "claude", None, "live.jsonl")
    follower = Follower(conversation_at(path, "claude"))
    follower.poll()
    with path.open("ab") as out:
        out.write(claude_line("5e55e55e-0000-4000-8000-000000000001", depth))
        out.write(
            b'{"type":"assistant","isSidechain":false,"timestamp":"2026-11-12T09:30:00Z","message":{"role":'
            b'"assistant","content":[{"type":"text","text":"AFTER THE DEEP LINE"}]}}\n'
        )
    update = follower.poll()
    assert update.skipped == 1
    assert [m.text for m in update.changed] == ["AFTER THE DEEP LINE"]


def test_a_deep_line_in_a_compressed_rollout_is_skipped_and_said(tmp_path):
    from lunavect.files.zstd import compress

    plain = conversation_file(tmp_path, "codex", 2000, "c.jsonl")
    packed = tmp_path / "c.jsonl.zst"
    packed.write_bytes(compress(plain.read_bytes()))
    window = read_window(conversation_at(packed, "codex"), messages=500)
    assert window.skipped == 2
    assert shown(window.messages) == shown(read_window(conversation_at(plain, "codex"), messages=500).messages)


# -- show: the other messages, and one line saying one was skipped --------------------------------------------


@pytest.mark.process
@pytest.mark.parametrize("depth", DEPTHS)
def test_show_prints_the_other_messages_and_says_one_line_was_skipped(iso_env, depth):
    conn = iso_env.connect()
    folder = iso_env.claude / "projects" / "-home-USER-project"
    folder.mkdir(parents=True)
    source = SPOTTER / "tool_heavy.jsonl"
    pristine, deep = "5e55e55e-0000-4000-8000-00000000000a", "5e55e55e-0000-4000-8000-00000000000b"
    (folder / f"{pristine}.jsonl").write_bytes(source.read_bytes())
    (folder / f"{deep}.jsonl").write_bytes(with_line(source.read_bytes(), claude_line(deep, depth), 20))
    seed_snapshot(conn, a_session(pristine), a_session(deep))
    expected = iso_env.cli("show", f"claude:{pristine}", "--last", "200")
    result = iso_env.cli("show", f"claude:{deep}", "--last", "200")
    assert result.returncode == 0, result.stderr
    assert result.stdout == expected.stdout and len(expected.stdout.splitlines()) > 10
    notes = [line for line in result.stderr.splitlines() if "skipped" in line]
    assert notes == ["lunavect: 1 line of this conversation was skipped: too long, nested too deep or not JSON"]
    assert "Traceback" not in result.stderr
    as_json = json.loads(iso_env.cli("show", f"claude:{deep}", "--last", "200", "--json").stdout)
    assert as_json["skipped"] == 1


# -- the hook spool: a deep record is counted malformed, the next one is read -------------------------------


def test_a_deep_spool_line_is_counted_and_the_next_event_is_read(tmp_path):
    typed_refuses(2000)
    folder = tmp_path / "spool"
    folder.mkdir()
    good = {"v": 1, "client": "claude", "t": 1_795_000_000.0, "event": "Stop"}
    lines = [
        json.dumps({**good, "id": "e1", "session": "5e55e55e-0000-4000-8000-000000000001"}),
        with_deep({"v": 1, "id": "e2", "event": "Stop", "extra": "DEEP"}, 2000).decode().rstrip("\n"),
        json.dumps({**good, "id": "e3", "session": "5e55e55e-0000-4000-8000-000000000002"}),
    ]
    (folder / spool.SPOOL_FILE_NAME).write_text("\n".join(lines) + "\n")
    conn = store.connect(tmp_path / "store.sqlite3")
    try:
        collector = Collector(conn, spool_dir=folder, sources=[])
        assert collector.ingest(now=1_795_000_001.0) == 2
        assert store.counters(conn).get("spool.malformed") == 1
    finally:
        conn.close()
