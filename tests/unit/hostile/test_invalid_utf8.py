"""One invalid UTF-8 byte costs a title one character, never a whole record or line (issue 12, defect 10).

Real client files (shared/data) with one stray byte (0xE9, as a tool cutting `é` mid-character writes) put
where a real file carries a title or a name, or free text lunavect never keeps, and the same files pristine:
every fact read from the pristine file is read from the corrupted one, the title with one U+FFFD.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claude_files_support import S1, S2
from codex_source_support import Home
from unit_support import shared_data_dir

from lunavect.clients.codex.rollout import header_from_record
from lunavect.core import lenient_json
from lunavect.core.times import epoch

ROLLOUT = (
    shared_data_dir() / "codex" / "localpush" / "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
)
THREAD = "019c8a70-dda7-7f33-98ea-f30553347322"
BAD = "\udce9"  # one byte 0xE9 once encoded with surrogateescape


def _line(record: dict) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n"


def _codex_lines(corrupt: bool, bad: str = BAD) -> bytes:
    """The real rollout, and with `corrupt` a stray byte (or `bad`) in its header's instructions, in its prompt
    (the title) and in its last tool call's arguments (the line that says what runs)."""
    out = b""
    for raw in ROLLOUT.read_bytes().splitlines():
        record = json.loads(raw)
        payload = record.get("payload")
        if corrupt and record["type"] == "session_meta":
            payload["base_instructions"]["text"] = bad + payload["base_instructions"]["text"]
        elif corrupt and payload.get("type") == "user_message":
            payload["message"] = "Caf" + bad + " " + payload["message"]
        elif corrupt and payload.get("type") == "function_call":
            payload["arguments"] = bad + payload["arguments"]
        # A stray byte as the byte itself; half a UTF-16 pair as JSON escapes it (`\\ud83d`, as a client's
        # JSON.stringify writes a string cut inside an emoji).
        out += _line(record) if bad == BAD else (json.dumps(record) + "\n").encode()
    return out


def _codex_row(tmp_path: Path, corrupt: bool, bad: str = BAD) -> dict:
    if not ROLLOUT.is_file():
        pytest.skip(f"the real rollouts of shared/data are missing ({ROLLOUT})")
    home = Home(tmp_path / ("corrupt" if corrupt else "pristine"))
    try:
        data = _codex_lines(corrupt, bad)
        assert (b"\xe9" in data or b"\\ud83d" in data) == corrupt
        (home.day / f"rollout-2026-11-29T14-38-32-{THREAD}.jsonl").write_bytes(data)
        last = json.loads(data.splitlines()[-1].decode("utf-8", "replace"))["timestamp"]
        return home.tick(epoch(last) + 5)[f"codex:{THREAD}"]
    finally:
        home.close()


def test_a_stray_byte_in_a_codex_rollout_costs_only_a_character_of_its_title(tmp_path: Path) -> None:
    pristine = _codex_row(tmp_path, corrupt=False)
    corrupt = _codex_row(tmp_path, corrupt=True)
    assert pristine["state"] == "working"
    for field in ("state", "activity", "since", "cwd", "project", "basis"):
        assert corrupt[field] == pristine[field], field
    assert corrupt["title"] == "Caf\ufffd " + pristine["title"]


def test_half_a_utf16_pair_in_a_codex_rollout_costs_only_a_character_of_its_title(tmp_path: Path) -> None:
    """Issue 25: the json module reads an escaped lone surrogate into a string no UTF-8 output holds; the
    title holding one could not be stored."""
    pristine = _codex_row(tmp_path, corrupt=False)
    corrupt = _codex_row(tmp_path, corrupt=True, bad="\ud83d")
    for field in ("state", "activity", "since", "cwd", "project", "basis"):
        assert corrupt[field] == pristine[field], field
    assert corrupt["title"] == "Caf\ufffd " + pristine["title"]


def test_a_stray_byte_in_a_codex_folder_drops_the_folder_not_the_header() -> None:
    meta = {"type": "session_meta", "payload": {"id": THREAD, "cwd": "/w/caf" + BAD, "originator": "codex_exec"}}
    line = _line(meta).rstrip(b"\n")
    header = header_from_record(*lenient_json.loads(line))
    assert header is not None and header.thread_id == THREAD and header.cwd is None
    assert header.originator == "codex_exec"
    meta["payload"]["cwd"] = "/w/caf\ud83d"  # half a UTF-16 pair, escaped: no folder either
    header = header_from_record(*lenient_json.loads(json.dumps(meta).encode()))
    assert header is not None and header.thread_id == THREAD and header.cwd is None


TRANSCRIPT = shared_data_dir() / "claude" / "spotter" / "short.jsonl"
REAL_SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"


def _claude_lines(session: str, corrupt: bool) -> bytes:
    """The real transcript as session `session`, and with `corrupt` a stray byte in its first prompt (the
    title), in a tool call's input (free text) and in the folder of its last record."""
    records = [json.loads(raw) for raw in TRANSCRIPT.read_bytes().splitlines()]
    prompted = False
    for n, record in enumerate(records):
        if record.get("sessionId") == REAL_SESSION:
            record["sessionId"] = session
        message = record.get("message") if isinstance(record.get("message"), dict) else {}
        if corrupt and record["type"] == "user" and isinstance(message.get("content"), str) and not prompted:
            message["content"] = "Caf" + BAD + " " + message["content"]
            prompted = True
        elif corrupt and record["type"] == "assistant" and isinstance(message.get("content"), list):
            for block in message["content"]:
                if block.get("type") == "tool_use":
                    block["input"] = {key: BAD + str(value) for key, value in block["input"].items()}
        if corrupt and n == len(records) - 1:
            record["cwd"] = record["cwd"] + BAD
    return b"".join(_line(record) for record in records)


def test_a_stray_byte_in_a_claude_transcript_costs_only_a_character_of_its_title(world) -> None:
    if not TRANSCRIPT.is_file():
        pytest.skip(f"the real transcripts of shared/data are missing ({TRANSCRIPT})")
    (world.project / f"{S1}.jsonl").write_bytes(_claude_lines(S1, corrupt=False))
    (world.project / f"{S2}.jsonl").write_bytes(_claude_lines(S2, corrupt=True))
    world.tick()
    pristine, corrupt = world.sessions()[S1], world.sessions()[S2]
    for field in ("state", "since", "cwd", "project", "basis", "activity"):
        assert getattr(corrupt, field) == getattr(pristine, field), field
    assert pristine.cwd == "/home/marco/projects/spotter"  # the last record's folder, unreadable, is not taken
    assert corrupt.title == "Caf\ufffd " + pristine.title


CUT_EMOJI = "\ud83d"  # the first half of 😀 alone: what JavaScript's JSON.stringify writes for a string cut in it


def _escaped_line(record: dict) -> bytes:
    """A JSON line as a JavaScript client writes it: a lone surrogate as its `\\ud83d` escape."""
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


def test_half_a_utf16_pair_in_a_claude_transcript_costs_only_a_character_of_its_title(world) -> None:
    if not TRANSCRIPT.is_file():
        pytest.skip(f"the real transcripts of shared/data are missing ({TRANSCRIPT})")
    (world.project / f"{S1}.jsonl").write_bytes(_claude_lines(S1, corrupt=False))
    records = [json.loads(raw) for raw in _claude_lines(S2, corrupt=False).splitlines()]
    first_prompt = next(
        r for r in records if r["type"] == "user" and isinstance((r.get("message") or {}).get("content"), str)
    )
    first_prompt["message"]["content"] = "Smile " + CUT_EMOJI + " " + first_prompt["message"]["content"]
    (world.project / f"{S2}.jsonl").write_bytes(b"".join(_escaped_line(r) for r in records))
    world.tick()
    pristine, cut = world.sessions()[S1], world.sessions()[S2]
    for field in ("state", "since", "cwd", "project", "basis", "activity"):
        assert getattr(cut, field) == getattr(pristine, field), field
    assert cut.title == "Smile \ufffd " + pristine.title


@pytest.mark.process
def test_half_a_utf16_pair_in_a_hook_payload_costs_only_a_character_not_the_event(iso_env) -> None:
    """The shim writes what it keeps as JSON, a lone surrogate as its escape; the collector used to refuse the
    whole spool line for it (msgspec does), so the event of a prompt cut inside an emoji was lost."""
    session = "5f0c2a9e-3b1d-4c8e-9a7f-2d6b8e1c4a30"
    payload = {
        "hook_event_name": "UserPromptSubmit",
        "session_id": session,
        "cwd": str(iso_env.root),
        "transcript_path": str(iso_env.root / "t.jsonl"),
        "prompt": "hello",
        "session_title": "Smile " + CUT_EMOJI + " please",  # the title a person gave it, which the shim keeps
    }
    assert iso_env.hook(json.dumps(payload, ensure_ascii=True)).returncode == 0
    assert b"\\ud83d" in iso_env.spool.read_bytes()
    proc = iso_env.cli("list", "--json")
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)
    assert (row["session_id"], row["state"]) == (session, "working")
    assert row["title"] == "Smile \ufffd please"
