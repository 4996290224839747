"""Gemini CLI's chat files read as lunavect needs them, on files the real 0.61.0 wrote (samples/, the iso paths
replaced): what each line says, read incrementally, the last line of a message id winning, tokens counted once,
titles from the first prompt or the client's own summary, and no text kept but that title."""

from __future__ import annotations

import json
from pathlib import Path

from lunavect.clients.gemini import records
from lunavect.clients.gemini.chat_read import Cursor, Summary, read_chat

SAMPLES = Path(__file__).resolve().parent / "samples"
NOW = 2_000_000_000.0


def sample(name: str) -> list[str]:
    return (SAMPLES / f"{name}.jsonl").read_text().splitlines(keepends=True)


def write(path: Path, lines: list[str]) -> str:
    path.write_text("".join(lines))
    return str(path)


def kinds(read) -> list[str]:
    return [e.kind for _id, e in read.evidence]


def test_each_line_of_a_permission_session_says_what_it_is() -> None:
    said = [records.read_line(line.encode()) for line in sample("permission-main")]
    assert [line.kind for line in said if line] == [
        "meta",
        "summary",  # the rebuild holding the client's own context only
        "prompt",
        "summary",
        "pending",  # the model's answer before its tool call finished
        "summary",
        "tools",  # the same message again, with its finished call
        "results",  # the tool's result sent back, a `user` message
        "summary",
        "reply",
        "summary",
    ]
    tools = next(line for line in said if line and line.kind == "tools")
    (call,) = tools.calls
    assert (call.name, call.status) == ("run_shell_command", "success")
    assert tools.message_id == next(line for line in said if line and line.kind == "pending").message_id


def test_a_chat_read_from_its_start_says_prompt_tool_and_reply_with_the_title(tmp_path: Path) -> None:
    path = write(tmp_path / "session-2026-12-01T17-04-a1b2c3d4.jsonl", sample("permission-main"))
    read = read_chat(path, None, 1 << 20, "/home/u/x/work", NOW)
    assert kinds(read) == [
        "TranscriptMeta",
        "TranscriptPrompt",
        "TranscriptToolUse",
        "TranscriptToolResult",
        "TranscriptResponse",
    ]
    meta = read.evidence[0][1]
    assert (meta.title, meta.cwd, meta.transcript) == ("make the marker", "/home/u/x/work", path)
    assert read.summary.session_id == json.loads(sample("permission-main")[0])["sessionId"]
    assert not read.restarted or read.cursor.offset == Path(path).stat().st_size


def test_a_message_written_again_counts_its_tokens_once(tmp_path: Path) -> None:
    path = write(tmp_path / "session-2026-12-01T17-04-a1b2c3d4.jsonl", sample("permission-main"))
    read = read_chat(path, None, 1 << 20, None, NOW)
    (delta,) = list(read.deltas)
    # Two model requests (12758 and the follow-up), each counted once although the first is written twice.
    lines = [json.loads(line) for line in sample("permission-main")]
    requests = {m["id"]: m["tokens"] for m in lines if m.get("type") == "gemini"}
    assert len(requests) == 2
    assert delta.tokens.input == sum(t["input"] - t["cached"] for t in requests.values())
    assert delta.model == "gemini-2.5-flash"
    assert read.summary.context == list(requests.values())[-1]["input"] + list(requests.values())[-1]["output"]


def test_appended_lines_are_read_from_the_cursor_and_nothing_before_them_again(tmp_path: Path) -> None:
    lines = sample("two-turns-main")
    second = next(i for i, line in enumerate(lines) if "second question" in line)
    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", lines[:second])
    first = read_chat(path, None, 1 << 20, None, NOW)
    assert kinds(first)[1:] == ["TranscriptPrompt", "TranscriptResponse"]
    write(Path(path), lines)
    later = read_chat(path, (first.cursor, first.summary), 1 << 20, None, NOW)
    assert not later.restarted
    assert kinds(later) == ["TranscriptPrompt", "TranscriptResponse"]  # no metadata again: it did not change
    assert later.summary.title == "first question"
    assert later.bytes_read < Path(path).stat().st_size


def test_a_read_hands_over_only_the_activity_from_its_last_prompt(tmp_path: Path) -> None:
    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", sample("two-turns-main"))
    read = read_chat(path, None, 1 << 20, None, NOW)
    assert kinds(read) == ["TranscriptMeta", "TranscriptPrompt", "TranscriptResponse"]
    prompt = read.evidence[1][1]
    assert prompt.at == max(e.at for _i, e in read.evidence if e.kind == "TranscriptPrompt")
    assert read.summary.title == "first question"  # the title is the first prompt's, whatever the read hands over


def test_a_file_rewritten_in_place_is_read_again_from_its_start(tmp_path: Path) -> None:
    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", sample("two-turns-main"))
    first = read_chat(path, None, 1 << 20, None, NOW)
    write(Path(path), sample("error-main"))
    again = read_chat(path, (first.cursor, first.summary), 1 << 20, None, NOW)
    assert again.restarted
    assert again.summary.session_id == json.loads(sample("error-main")[0])["sessionId"]


def test_an_api_error_a_cancel_and_a_compression_are_told(tmp_path: Path) -> None:
    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", sample("error-main"))
    read = read_chat(path, None, 1 << 20, None, NOW)
    error = next(e for _i, e in read.evidence if e.kind == "TranscriptApiError")
    assert error.http_status == 401
    deny = read_chat(
        write(tmp_path / "session-2026-12-01T17-05-b1b2c3d4.jsonl", sample("deny-main")), None, 1 << 20, None, NOW
    )
    assert kinds(deny)[-1] == "TranscriptInterrupt"
    line = records.read_line(b'{"id":"c1","timestamp":"2026-12-01T16:46:53.655Z","type":"info","content":""}')
    assert line is not None and line.kind == "compacted"
    refused = b'{"id":"e1","timestamp":"2026-12-01T16:46:53.655Z","type":"error","content":"[API Error: fetch failed]"}'
    line = records.read_line(refused)
    assert line is not None and (line.kind, line.error_detail) == ("api_error", "ECONNREFUSED")


def test_a_ui_error_that_is_no_api_error_is_no_failed_turn() -> None:
    line = records.read_line(
        b'{"id":"e2","timestamp":"2026-12-01T16:46:53.655Z","type":"error","content":"Unknown command: /x"}'
    )
    assert line is not None and line.kind == "other"


def test_the_clients_own_summary_becomes_the_title(tmp_path: Path) -> None:
    lines = [*sample("two-turns-main"), json.dumps({"$set": {"summary": "Answering two questions\nmore"}}) + "\n"]
    read = read_chat(write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", lines), None, 1 << 20, None, NOW)
    assert read.evidence[0][1].title == "Answering two questions"


def test_a_sub_agents_own_file_says_it_is_one(tmp_path: Path) -> None:
    read = read_chat(write(tmp_path / "sub.jsonl", sample("subagent-sub")), None, 1 << 20, None, NOW)
    assert read.summary.subagent is True


def test_a_line_too_long_is_passed_over_and_a_line_being_written_waits(tmp_path: Path, monkeypatch) -> None:
    from lunavect.chats import lines as chat_lines

    monkeypatch.setattr(chat_lines, "MAX_LINE_BYTES", 1000)
    lines = sample("two-turns-main")
    huge = json.dumps({"id": "big", "timestamp": "2026-12-01T17:05:30.000Z", "type": "info", "content": "x" * 5000})
    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", [*lines, huge + "\n", '{"id":"half'])
    read = read_chat(path, None, 1 << 20, None, NOW)
    assert read.skipped == 1
    assert read.cursor.offset == Path(path).stat().st_size - len('{"id":"half')
    assert not read.cursor.unchanged(Path(path).stat())  # the line being written is looked at again


def test_a_small_budget_reads_on_at_the_next_poll(tmp_path: Path) -> None:
    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", sample("two-turns-main"))
    read = read_chat(path, None, 10, None, NOW)
    assert read.partial and read.cursor.offset < Path(path).stat().st_size
    rest = read_chat(path, (read.cursor, read.summary), 1 << 20, None, NOW)
    assert not rest.partial and rest.cursor.offset == Path(path).stat().st_size
    assert rest.summary.title == "first question"


def test_no_text_but_the_first_prompts_title_is_kept(tmp_path: Path) -> None:
    import msgspec

    path = write(tmp_path / "session-2026-12-01T17-05-a1b2c3d4.jsonl", sample("two-turns-main"))
    read = read_chat(path, None, 1 << 20, None, NOW)
    # What the collector stores of a read: its summary and cursor (file_cursors.save_read), its evidence.
    kept = msgspec.json.encode([read.summary, read.cursor, [e for _i, e in read.evidence]]).decode()
    for private in ("second question", "Answer one", "Answer two", "session_context"):
        assert private not in kept
    assert "first question" in kept
    assert isinstance(read.cursor, Cursor) and isinstance(read.summary, Summary)
