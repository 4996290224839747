"""A conversation its client keeps in no file of its own (rows of one database): read from the records its
source gives, forward like a compressed rollout, and read again by a follower when their signature changed."""

from __future__ import annotations

import json
from pathlib import Path

from lunavect.conversation.follow import Follower
from lunavect.conversation.message import Kind, Message
from lunavect.conversation.parts import place
from lunavect.conversation.source import Source
from lunavect.conversation.window import read_window


def _parse(record, offset: int, *, sidechain: bool = False):
    return [Message(place(offset, 0), Kind.TEXT, record["text"])] if isinstance(record, dict) else []


def _source(tmp_path: Path, texts: list[str], state: dict) -> Source:
    held = tmp_path / "held.db"
    held.write_bytes(b"")

    def records():
        for n, text in enumerate(texts):
            yield n * 10, n * 10 + 1, json.dumps({"text": text}).encode()

    return Source(held, "any", _parse, records=records, signature=lambda: state["version"])


def test_its_records_make_the_window(tmp_path: Path) -> None:
    source = _source(tmp_path, ["one", "two", "three"], {"version": 1})
    assert source.streamed and not source.compressed
    window = read_window(source, messages=2)
    assert [m.text for m in window.messages] == ["two", "three"] and window.older


def test_a_follower_reads_them_again_when_their_signature_changed(tmp_path: Path) -> None:
    texts, state = ["one"], {"version": 1}
    follower = Follower(_source(tmp_path, texts, state))
    assert [m.text for m in follower.poll().changed] == ["one"]
    texts.append("two")
    assert follower.poll().changed == []  # the same signature: nothing read
    state["version"] = 2
    follower.poll()
    assert [m.text for m in follower.messages] == ["one", "two"]
