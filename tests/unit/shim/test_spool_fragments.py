"""A fragment a cut-short write left in the spool never costs the record appended after it.

The shim blanks its own fragment out; one may stay anyway (a shim killed between the write and the blanking,
a file system where overwriting needs space), and then the next record stands glued to it on one line. The
reader cuts every fragment off: a record begins with RECORD_START and holds those bytes nowhere else.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lunavect import store
from lunavect.collector.tick import Collector
from lunavect.evidence import spool, spool_record
from lunavect.shim.jsoncodec import json_dumps
from lunavect.shim.spoolfile import RECORD_START, SPOOL_FORMAT, append_record

SESSION = "3fd75c2e-f60a-47a1-9b70-087f2037adbf"
# Text a folder or title may hold that looks like the mark or breaks a naive scan.
HOSTILE = ['{"v":1,"id":"x"}', '{"v":', "{", '"', "\\", '\\"', "}{", "\n", "\u2028", "日本", "\x00"]


def record(i: int, **fields: object) -> dict:
    return {
        "event": "PreToolUse",
        "session": SESSION,
        "tool": "Bash",
        "cwd": f"/home/u/p{i}",
        "bg": [{"kind": "shell", "id": f"b{i}"}],
        "id": f"id-{i}",
        "client": "claude",
        "t": 1_790_000_000.0 + i,
        **fields,
    }


def line(rec: dict) -> bytes:
    """The line the shim writes for one record (append_record's own serialisation)."""
    return json_dumps({"v": SPOOL_FORMAT, **rec}).encode("ascii") + b"\n"


def test_every_record_begins_with_the_mark_and_holds_it_nowhere_else(tmp_path):
    path = tmp_path / "events.jsonl"
    for i, text in enumerate(HOSTILE):
        assert append_record(str(path), record(i, cwd=text, title=text * 3, v=SPOOL_FORMAT))
    mark = RECORD_START.encode()
    for written in path.read_bytes().splitlines():
        assert written.startswith(mark) and written.count(mark) == 1
        assert spool_record.decode(written).session == SESSION


def test_a_fragment_of_any_length_is_cut_off_the_record_after_it():
    whole = line(record(2))[:-1]
    fragment_of = line(record(1, cwd='/p/{"v":1}'))[:-1]
    for length in range(len(fragment_of)):
        glued = fragment_of[:length] + whole
        assert spool.cut_fragments(glued) == (whole, 1 if length else 0), length


def test_several_fragments_in_a_row_are_all_cut_off():
    whole = line(record(3))[:-1]
    first, second = line(record(1))[:-1], line(record(2))[:-1]
    glued = first[:40] + second[: len(RECORD_START)] + first[:7] + whole
    assert spool.cut_fragments(glued) == (whole, 3)
    assert spool.cut_fragments(first[:3] + second[:30] + whole) == (whole, 2)  # `{"v` is too short to count


def test_a_whole_line_and_a_line_from_before_the_mark_are_kept_whole():
    whole = line(record(1))[:-1]
    assert spool.cut_fragments(whole) == (whole, 0)
    old = b'{"event":"Stop","session":"' + SESSION.encode() + b'","v":1,"id":"o","client":"claude","t":1.0}'
    assert spool.cut_fragments(old) == (old, 0)
    assert spool.cut_fragments(b"garbage") == (b"garbage", 0)
    assert spool.cut_fragments(b"") == (b"", 0)


def test_the_collector_stores_the_record_after_a_fragment_and_counts_the_fragment(tmp_path):
    conn = store.connect(tmp_path / "store.sqlite")
    spool_dir = tmp_path / "spool"
    spool_dir.mkdir()
    live = spool_dir / "events.jsonl"
    # A fragment cut short, the next record glued to it; a blanked-out fragment (what the shim leaves).
    live.write_bytes(line(record(1)) + line(record(2))[:57] + line(record(3)) + b" " * 40 + b"\n" + line(record(4)))
    col = Collector(conn, spool_dir)
    assert col.ingest() == 3
    stored = [row[0] for row in conn.execute("SELECT event_id FROM events ORDER BY seq")]
    assert stored == ["id-1", "id-3", "id-4"]
    assert store.counters(conn) == {"spool.fragment": 1}
    conn.close()


# ---------------------------------------------------------------------------------------------------------
# The property: whole records with arbitrary fragments between them yield every whole record exactly once.

TEXT = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=60))
RECORDS = st.lists(st.tuples(TEXT, TEXT), min_size=1, max_size=12)


def _read_all(conn, path: Path, max_bytes: int) -> list[bytes]:
    lines: list[bytes] = []
    while (chunk := spool.read_new(conn, path, max_bytes)) is not None:
        lines.extend(chunk.lines)
        spool.commit_cursor(conn, chunk, 0.0)
    return lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(RECORDS, st.data())
def test_property_every_whole_record_is_read_exactly_once(drafts, data):
    records = [record(i, cwd=cwd, title=title) for i, (cwd, title) in enumerate(drafts)]
    spooled = bytearray()
    for i, rec in enumerate(records):
        if data.draw(st.booleans(), label=f"fragment before {i}"):
            victim = line(record(10_000 + i, cwd=drafts[i][1]))
            spooled += victim[: data.draw(st.integers(0, len(victim) - 1), label="fragment length")]
        spooled += line(rec)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.jsonl"
        path.write_bytes(bytes(spooled))
        conn = store.connect(Path(folder) / "store.sqlite")
        try:
            lines = _read_all(conn, path, max_bytes=data.draw(st.integers(4096, 1 << 20), label="read size"))
        finally:
            conn.close()
    assert [json.loads(x) for x in lines] == [json.loads(line(rec)) for rec in records]
