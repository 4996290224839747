"""Record windows (lunavect.conversation) on the real transcripts and rollouts of `../shared/data`, whole and
cut at random byte offsets: windows bounded by messages and bytes, marks stable while a message stands,
only changed marks listed against known ones, a follow that reads only appended bytes and ends where a whole
read of the same bytes ends, older windows that page back without a gap or a repeat."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from unit_support import shared_data_dir

from lunavect.clients import conversation_at
from lunavect.conversation.follow import Follower
from lunavect.conversation.message import Kind
from lunavect.conversation.source import Source
from lunavect.conversation.window import BLOCK_BYTES, read_window
from lunavect.conversation.window_parts import compare

DATA = shared_data_dir()
FILES = sorted(DATA.glob("claude/*/*.jsonl")) + sorted(DATA.glob("codex/*/*.jsonl"))
AGENT_FILES = sorted(DATA.glob("claude/*/*/subagents/agent-*.jsonl"))

pytestmark = pytest.mark.skipif(not FILES, reason="shared/data is not beside this checkout")


def _source(path: Path, into: Path | None = None) -> Source:
    provider = "codex" if path.parent.parent.name == "codex" else "claude"
    return conversation_at(into or path, provider)


def _cut(path: Path, tmp: Path, size: int) -> Path:
    target = tmp / path.name
    with path.open("rb") as src, target.open("wb") as dst:
        dst.write(src.read(size))
    return target


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:24])
def test_whole_files_give_bounded_windows(path: Path) -> None:
    source = _source(path)
    for limit in (1, 5, 50):
        window = read_window(source, messages=limit)
        assert 1 <= len(window.messages) <= limit
        assert window.end == path.stat().st_size
        assert len({m.place for m in window.messages}) == len(window.messages)
        assert all(m.mark for m in window.messages)
    # A byte budget smaller than one message still gives one message, and stops the backward read early.
    small = read_window(source, messages=1000, max_bytes=1)
    assert len(small.messages) >= 1 and small.bytes_read < 4 * BLOCK_BYTES + 1024


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:24])
def test_bytes_bound_the_read(path: Path) -> None:
    window = read_window(_source(path), messages=10_000, max_bytes=200_000)
    assert window.bytes_read <= 200_000 + 3 * BLOCK_BYTES + 2 * 64
    if path.stat().st_size > 200_000 + 2 * BLOCK_BYTES:
        assert window.older


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:24])
def test_cut_files_read_and_marks_stand(path: Path, tmp_path: Path) -> None:
    size = path.stat().st_size
    rnd = random.Random(size)
    whole = {m.place: m for m in read_window(_source(path), messages=100_000).messages}
    for cut in sorted(rnd.randrange(size) for _ in range(6)):
        part = read_window(_source(path, _cut(path, tmp_path, cut)), messages=100_000)
        assert part.end <= cut
        for message in part.messages:
            later = whole.get(message.place)
            assert later is not None, message  # every message of the cut still stands at its place
            if message.kind == Kind.TOOL and message.result is None and later.result is not None:
                assert later.mark != message.mark  # its result arrived: it changed
            else:
                assert later.mark == message.mark, (message, later)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:24])
def test_follow_reads_only_what_was_appended(path: Path, tmp_path: Path) -> None:
    data = path.read_bytes()
    rnd = random.Random(len(data))
    target = tmp_path / path.name
    cut = rnd.randrange(len(data))
    target.write_bytes(data[:cut])
    follower = Follower(_source(path, target), messages=20)
    first = follower.poll()
    assert first.reset
    held = {m.place: m.mark for m in follower.messages}
    at, read = cut, 0
    while at < len(data):
        step = rnd.randrange(1, 40_000)
        with target.open("ab") as out:
            out.write(data[at : at + step])
        at += step
        update = follower.poll()
        assert not update.reset
        read += update.bytes_read
        for message in update.changed:  # only what is new or changed is reported
            assert held.get(message.place) != message.mark
            held[message.place] = message.mark
    # What was read is what was appended, plus the two short rewrite checks of each poll.
    assert read <= (len(data) - cut) + 2_000_000
    whole = read_window(_source(path, target), messages=20)
    assert [(m.place, m.mark) for m in follower.messages] == [(m.place, m.mark) for m in whole.messages]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name[:24])
def test_older_windows_page_back_without_gap_or_repeat(path: Path) -> None:
    source = _source(path)
    every = [m.place for m in read_window(source, messages=1_000_000).messages]
    pages: list[str] = []
    window = read_window(source, messages=7)
    while True:
        pages = [m.place for m in window.messages] + pages
        if not window.older:
            break
        assert window.start is not None
        window = read_window(source, messages=7, before=window.start)
    kept = [p for p in pages if p in set(every)]
    assert kept == every and len(set(pages)) == len(pages)


def test_only_changed_marks_are_listed_against_known_ones() -> None:
    path = FILES[0]
    window = read_window(_source(path), messages=10)
    known = {m.place: m.mark for m in window.messages}
    again = read_window(_source(path), messages=10, known=known)
    assert again.changed == [] and again.gone == [] and again.marks_from == len(again.messages)
    stale = dict(known)
    third = window.messages[3]
    stale[third.place] = "0" * 16
    stale["1:0"] = "f" * 16
    listed = read_window(_source(path), messages=10, known=stale)
    assert listed.changed == [third] and listed.marks_from == 3 and listed.gone == ["1:0"]
    assert compare(window.messages, None)[1] == window.messages


def test_a_replaced_file_is_read_again(tmp_path: Path) -> None:
    path = FILES[0]
    target = tmp_path / "t.jsonl"
    shutil.copy(path, target)
    follower = Follower(_source(path, target), messages=5)
    follower.poll()
    other = FILES[1].read_bytes()
    replacement = tmp_path / "r.jsonl"
    replacement.write_bytes(other)
    replacement.replace(target)
    update = follower.poll()
    assert update.reset and follower.messages == read_window(_source(path, target), messages=5).messages


@pytest.mark.parametrize("path", AGENT_FILES, ids=lambda p: p.name)
def test_sub_agents_are_kept_apart(path: Path) -> None:
    session = conversation_at(path.parent.parent.with_suffix(".jsonl"), "claude")
    agent_id = path.name[len("agent-") : -len(".jsonl")]
    assert agent_id in session.agents()
    agent = read_window(session.agent_source(agent_id), messages=50)
    assert agent.messages  # the agent's own records, all sidechain, read as its conversation
    # ...and none of them is read as the session's.
    assert read_window(conversation_at(path, "claude"), messages=50).messages == []


@pytest.mark.parametrize("path", sorted(DATA.glob("codex/*/*.jsonl")), ids=lambda p: p.name[:24])
def test_a_compressed_rollout_shows_what_its_plain_one_shows(path: Path, tmp_path: Path) -> None:
    from lunavect.files.zstd import compress

    packed = tmp_path / (path.name + ".zst")
    packed.write_bytes(compress(path.read_bytes()))
    plain, compressed = _source(path), conversation_at(packed, "codex")
    assert compressed.compressed
    for limit in (1, 7, 10_000):
        want, got = read_window(plain, messages=limit), read_window(compressed, messages=limit)
        assert got.messages == want.messages
        if want.start is not None and want.older:
            older = read_window(plain, messages=limit, before=want.start)
            assert read_window(compressed, messages=limit, before=want.start).messages == older.messages
            # The backward read says "older" when records lie before it; the stream knows whether messages do.
            assert got.older or older.messages == []
    follower = Follower(compressed, messages=5)
    assert follower.poll().reset and follower.messages == read_window(plain, messages=5).messages
    assert follower.poll().changed == []  # a finished thread: nothing is read again
