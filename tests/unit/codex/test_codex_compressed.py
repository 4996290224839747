"""Compressed Codex rollouts (`.jsonl.zst`): listed with their title and final state, read in bounded memory.

The compressed files are made by the real `zstd` tool from real rollouts that other people's Codex wrote
(`../shared/data/codex/`); the plain reader's answer for the same bytes is the oracle.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tracemalloc
from pathlib import Path

import pytest
from codex_cursor_support import complete, rec, started
from codex_source_support import Home
from unit_support import shared_data_dir

from lunavect.clients.codex import compressed
from lunavect.clients.codex.cursor import LifecycleCursor
from lunavect.clients.codex.rollout import discover, first_prompt_title, parse_name, read_header
from lunavect.files.zstd import zstd as zstd_module

REAL_ROLLOUTS = sorted((shared_data_dir() / "codex").rglob("rollout-*.jsonl"))
ZSTD = shutil.which("zstd")
needs_data = pytest.mark.skipif(not REAL_ROLLOUTS, reason="the shared real rollouts are not present")
needs_zstd = pytest.mark.skipif(ZSTD is None, reason="the zstd tool is not installed (scripts/test installs it)")


def zstd(source: Path, target: Path) -> Path:
    """Compress with the real zstd tool, as Codex's own compression writes a standard zstd frame."""
    assert ZSTD is not None
    subprocess.run([ZSTD, "-q", "-19", str(source), "-o", str(target)], check=True)
    return target


@pytest.fixture
def home(tmp_path: Path):
    h = Home(tmp_path)
    yield h
    h.close()


def test_compressed_names_are_rollouts_of_the_same_thread() -> None:
    name = "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
    plain, packed = parse_name(name), parse_name(name + ".zst")
    assert plain is not None and packed is not None
    assert packed.thread_id == plain.thread_id and packed.compressed and not plain.compressed
    assert parse_name(name + ".gz") is None and parse_name(name + ".zst.tmp") is None


@pytest.mark.process
@needs_data
@needs_zstd
@pytest.mark.parametrize("source", REAL_ROLLOUTS, ids=lambda p: p.name[-20:])
def test_a_real_compressed_rollout_answers_what_the_plain_one_does(source: Path, tmp_path: Path) -> None:
    packed = zstd(source, tmp_path / (source.name + ".zst"))
    assert packed.stat().st_size < source.stat().st_size
    assert compressed.lifecycle(packed) == LifecycleCursor().sample(source)
    assert read_header(packed) == read_header(source)
    assert first_prompt_title(packed) == first_prompt_title(source)


@pytest.mark.process
@needs_data
@needs_zstd
@pytest.mark.parametrize("source", REAL_ROLLOUTS, ids=lambda p: p.name[-20:])
def test_small_blocks_give_the_same_answer(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks far smaller than the records, so that lines are carried across many blocks."""
    packed = zstd(source, tmp_path / (source.name + ".zst"))
    monkeypatch.setattr(compressed, "BLOCK_BYTES", 4096)
    assert compressed.lifecycle(packed) == LifecycleCursor().sample(source)


@pytest.mark.process
@needs_data
@needs_zstd
def test_a_compressed_rollout_is_listed_with_its_title_and_final_state(tmp_path: Path) -> None:
    """The same real thread, plain in one CODEX_HOME and compressed in another, gives the same row."""
    rows = []
    for form in ("plain", "zst"):
        home = Home(tmp_path / form)
        try:
            for source in REAL_ROLLOUTS:
                target = home.day / source.name
                if form == "plain":
                    shutil.copyfile(source, target)
                else:
                    zstd(source, target.with_name(source.name + ".zst"))
            last = max(json.loads(line)["timestamp"] for s in REAL_ROLLOUTS for line in s.read_text().splitlines()[-1:])
            now = _epoch(last) + 30
            rows.append(home.tick(now))
        finally:
            home.close()
    plain, packed = rows
    assert set(packed) == set(plain) and len(packed) == len(REAL_ROLLOUTS)
    for key, row in plain.items():
        assert row["title"], key  # every real thread has its client's title
        for field in ("title", "state", "since", "project", "cwd", "resume", "error"):
            assert packed[key][field] == row[field], (key, field)
    assert {row["state"] for row in packed.values()} >= {"ready"}  # finished turns end ready


def _epoch(stamp: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def test_when_both_forms_exist_the_plain_one_is_current(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "11" / "29"
    day.mkdir(parents=True)
    name = "rollout-2026-11-29T14-38-32-01a227be-4cf8-7c51-8158-933e9468ff3b.jsonl"
    (day / name).write_text("")
    (day / (name + ".zst")).write_bytes(zstd_module.compress(b""))
    other = "rollout-2026-11-29T10-00-00-01a227be-5555-7c51-8158-933e9468ff3b.jsonl.zst"
    (day / other).write_bytes(zstd_module.compress(b""))
    assert [p.name for p in discover(tmp_path)] == [name, other]


def test_memory_stays_bounded_on_a_long_compressed_rollout(tmp_path: Path) -> None:
    """Tens of MB of records (and one 10 MB line, as a compacted history can be) through a few MB at most."""
    path = tmp_path / "rollout-2026-11-29T14-38-32-01a227be-4cf8-7c51-8158-933e9468ff3b.jsonl.zst"
    t = 1_795_963_000.0
    filler = rec("response_item", {"type": "message", "content": [{"text": "x" * 2000}]}, t)
    huge = rec("compacted", {"message": "y" * (10 * 1024 * 1024)}, t)
    with zstd_module.ZstdFile(path, mode="wb") as w:
        w.write(started("u1", t))
        for _ in range(8000):  # about 16 MB
            w.write(filler)
        w.write(huge)
        w.write(complete("u1", t + 60))
        w.write(started("u2", t + 61))
        for _ in range(8000):
            w.write(filler)
    tracemalloc.start()
    try:
        answer = compressed.lifecycle(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answer is not None and answer.status == "busy" and answer.turn_id == "u2"
    assert peak < 8 * 1024 * 1024, peak  # a block, a carried line and the search (about 5 MB): never the 36 MB


def test_a_line_too_long_to_hold_is_skipped_not_misread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compressed, "BLOCK_BYTES", 1024)
    monkeypatch.setattr(compressed, "MAX_LINE_BYTES", 4096)
    path = tmp_path / "r.jsonl.zst"
    t = 1_795_963_000.0
    body = started("u1", t) + rec("compacted", {"message": "z" * 20000}, t) + complete("u1", t + 5)
    path.write_bytes(zstd_module.compress(body))
    answer = compressed.lifecycle(path)
    assert answer is not None and answer.status == "idle" and answer.boundary.kind == "task_complete"


@pytest.mark.parametrize("content", [b"", b"not zstd at all\n", zstd_module.compress(b"{}\n")[:-3]])
def test_a_broken_compressed_rollout_reads_as_nothing(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "rollout-2026-11-29T14-38-32-01a227be-4cf8-7c51-8158-933e9468ff3b.jsonl.zst"
    path.write_bytes(content)
    assert read_header(path) is None and first_prompt_title(path) is None
    answer = compressed.lifecycle(path)
    assert answer is None or answer.status is None


def test_a_broken_compressed_rollout_in_a_collector_loses_nothing(home: Home) -> None:
    thread = "01a227be-4cf8-7c51-8158-933e9468ff3b"
    (home.day / f"rollout-2026-11-29T14-38-32-{thread}.jsonl.zst").write_bytes(b"\x28\xb5\x2f\xfd garbage")
    assert home.tick(1_795_963_000.0) == {}


def test_a_rollout_of_several_frames_reads_as_one_stream(tmp_path: Path) -> None:
    """Codex appends a frame per flush: the frames read on as one text, a turn across two frames included."""
    path = tmp_path / "rollout-2026-11-29T14-38-32-01a227be-4cf8-7c51-8158-933e9468ff3b.jsonl.zst"
    t = 1_795_963_000.0
    body = started("u1", t) + complete("u1", t + 5) + started("u2", t + 6)
    cut = len(started("u1", t)) + 7  # the second frame begins inside the first turn's end
    path.write_bytes(zstd_module.compress(body[:cut]) + zstd_module.compress(body[cut:]))
    answer = compressed.lifecycle(path)
    assert answer is not None and answer.status == "busy" and answer.turn_id == "u2"
