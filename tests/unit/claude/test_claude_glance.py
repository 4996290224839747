"""A glance lists a session from its head and tail while decoding only what it uses, and hands over what a
glance that decoded every line would; an old small transcript is listed by a glance before its whole read,
unless the glance would read all of it: then it is read whole at once.

The transcripts are the real ones of shared/data.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest
from unit_support import shared_data_dir

from lunavect import store
from lunavect.clients.claude import glance as glance_module
from lunavect.clients.claude.files_source import ClaudeFilesSource
from lunavect.clients.claude.latest import Latest
from lunavect.clients.claude.records import Unreadable, might_matter, read_record
from lunavect.clients.claude.summary import TranscriptSummary, take
from lunavect.collector.tick import Collector

DATA = shared_data_dir()
pytestmark = pytest.mark.skipif(not (DATA / "claude").is_dir(), reason=f"the shared real files are not at {DATA}")
TRANSCRIPTS = sorted(p for p in (DATA / "claude").glob("*/*.jsonl"))


def _every_record(path) -> tuple[TranscriptSummary, list]:
    """What a glance that decoded every line of the head and the tail would find."""
    data = path.read_bytes()
    head = data[: glance_module.HEAD_BYTES]
    tail_at = max(0, len(data) - glance_module.TAIL_BYTES)
    summary = TranscriptSummary(session_id="s")
    tail = []
    for is_tail, part, at in ((False, head, 0), (True, data[tail_at:], tail_at)):
        for place, line in glance_module._lines(part, at):
            try:
                facts = read_record(line, place)
            except Unreadable:
                continue
            if facts is not None:
                take(summary, facts)
                if is_tail:
                    tail.append(facts)
    return summary, tail


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_a_glance_hands_over_what_decoding_every_line_would(path):
    seen = glance_module.glance(str(path), "s")
    summary, tail = _every_record(path)
    for name in ("title", "cwd", "branch", "version", "entrypoint", "first_at", "last_at"):
        assert getattr(seen.summary, name) == getattr(summary, name), name
    fast, full = Latest("s"), Latest("s")
    for facts in seen.tail:
        fast.add(facts)
    for facts in tail:
        full.add(facts)
    assert fast.evidence() == full.evidence()


def test_a_glance_at_a_large_transcript_decodes_a_fraction_of_what_it_reads(monkeypatch):
    decoded: list[int] = []

    def counting(line: bytes, place: int = 0):
        decoded.append(int(might_matter(line)))
        return read_record(line, place)

    monkeypatch.setattr(glance_module, "read_record", counting)
    read = 0
    large = [p for p in TRANSCRIPTS if p.stat().st_size > glance_module.WHOLE_BYTES]
    assert len(large) >= 3
    for path in large:
        data = path.read_bytes()
        tail_at = len(data) - glance_module.TAIL_BYTES
        lines = glance_module._lines(data[: glance_module.HEAD_BYTES], 0)
        lines += glance_module._lines(data[tail_at:], tail_at)
        read += sum(might_matter(line) for _, line in lines)  # what a glance decoding every line decodes
        glance_module.glance(str(path), "s")
    assert sum(decoded) < read / 2


def _lines_within(data: bytes, size: int) -> bytes:
    """The complete lines of `data` in its first `size` bytes."""
    return data[: data.rindex(b"\n", 0, size) + 1]


def _old_session(tmp_path, text: bytes):
    session = "0b6f35a4-4f7e-4a43-9d0c-6a8f0d2b7c11"
    folder = tmp_path / "claude" / "projects" / "-home-user-p"
    folder.mkdir(parents=True)
    target = folder / f"{session}.jsonl"
    for old in {json.loads(line).get("sessionId") for line in text.splitlines() if b"sessionId" in line} - {None}:
        text = text.replace(old.encode(), session.encode())
    target.write_bytes(text)
    stamp = time.time() - 30 * 86400
    os.utime(target, (stamp, stamp))
    return session


@pytest.mark.parametrize(
    ("size", "budget", "glanced"),
    [("larger", 32 << 20, True), ("within", 32 << 20, False), ("within", 16 << 10, True)],
    ids=["larger-than-a-glance", "within-a-glance", "within-a-glance-beyond-the-budget"],
)
def test_an_old_small_transcript_is_glanced_at_only_when_a_glance_reads_less_than_all_of_it(
    tmp_path, size, budget, glanced
):
    """Between what a glance reads and WHOLE_BYTES, an old transcript is listed by a glance and read whole later;
    within what a glance reads, it is read whole at once (the fast whole read costs about what the glance did),
    unless the tick's byte budget is too small for it: a read cut by the budget would list half a file."""
    large = DATA / "claude" / "spotter" / "subagent.jsonl"
    small = DATA / "claude" / "spotter" / "tool_heavy.jsonl"
    if size == "larger":
        text = _lines_within(large.read_bytes(), (glance_module.GLANCED_BYTES + glance_module.WHOLE_BYTES) // 2)
        assert glance_module.GLANCED_BYTES < len(text) <= glance_module.WHOLE_BYTES
    else:
        text = small.read_bytes()
        assert len(text) <= glance_module.GLANCED_BYTES
    session = _old_session(tmp_path, text)
    conn = store.connect(tmp_path / "lv" / "store.sqlite3")
    source = ClaudeFilesSource(tmp_path / "claude", budget=budget, processes=dict, one_process=lambda pid: None)
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[source])
    try:
        collector.tick()
        row = conn.execute("SELECT listed, data FROM snapshot WHERE id = ?", (f"claude:{session}",)).fetchone()
        assert row is not None and row[0] == 1
        first = json.loads(row[1])
        read_whole = conn.execute("SELECT count(*) FROM claude_transcript").fetchone()[0]
        assert read_whole == (0 if glanced else 1)  # a glance first, or the whole read at once
        while collector.tick() is not None:
            pass
        assert conn.execute("SELECT count(*) FROM claude_transcript").fetchone()[0] == 1
        after = json.loads(conn.execute("SELECT data FROM snapshot WHERE id = ?", (f"claude:{session}",)).fetchone()[0])
        assert (after["state"], after["title"]) == (first["state"], first["title"])
        assert first["title"]
    finally:
        source.close()
        conn.close()
        shutil.rmtree(tmp_path / "claude", ignore_errors=True)
