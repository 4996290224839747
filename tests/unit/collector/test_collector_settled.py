"""A session at rest is decided once, until new evidence changes it; a clock that goes back decides it again.

The collector skips settled sessions at every snapshot, so an idle tick's work does not grow with a person's
history; these tests prove the skipped rows stay right."""

from __future__ import annotations

import json

from unit_support import Feed

from lunavect import store
from lunavect.collector.tick import Collector
from lunavect.core.model import Evidence
from lunavect.core.rules import Facts, settled
from lunavect.core.rules.decide import decide

NOW = 2_000_000_000.0


def ev(kind: str, at: float, n: int) -> tuple[str, Evidence]:
    return f"e{n}", Evidence(provider="claude", session_id="s1", kind=kind, at=at, source="transcript", cwd="/p")


def row(conn) -> dict:
    return json.loads(conn.execute("SELECT data FROM snapshot").fetchone()[0])


def test_a_settled_row_is_not_decided_again_until_its_facts_change(tmp_path, monkeypatch):
    conn = store.connect(tmp_path / "store.sqlite3")
    feed = Feed()
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[feed])
    feed.queued = [ev("TranscriptPrompt", NOW - 10, 1), ev("TranscriptResponse", NOW - 5, 2)]
    collector.poll_sources(NOW)
    collector.snapshot(NOW)
    assert row(conn)["state"] == "ready"

    decided: list[str] = []
    from lunavect.collector import tick as collector_module

    def counting(facts, *args, **kwargs):
        decided.append(facts.session_id)
        return decide(facts, *args, **kwargs)

    monkeypatch.setattr(collector_module, "decide", counting)
    for step in range(1, 4):
        collector.snapshot(NOW + step * 3600)
    assert decided == []  # ready rests: nothing to decide, however late

    feed.queued = [ev("TranscriptPrompt", NOW + 4 * 3600, 3)]
    collector.poll_sources(NOW + 4 * 3600)
    collector.snapshot(NOW + 4 * 3600)
    assert decided == ["s1"] and row(conn)["state"] == "working"  # new evidence: decided again
    conn.close()


def test_a_live_phase_past_its_authority_rests_only_forwards_in_time(tmp_path):
    conn = store.connect(tmp_path / "store.sqlite3")
    feed = Feed()
    collector = Collector(conn, spool_dir=tmp_path / "spool", sources=[feed])
    feed.queued = [ev("TranscriptPrompt", NOW, 1)]
    collector.poll_sources(NOW)
    facts = collector._facts["claude:s1"]
    assert isinstance(facts, Facts) and not settled(facts, NOW + 1)  # working, still fresh: decided each tick
    assert settled(facts, NOW + 86400)  # aged past its authority, no process to ask: unknown from now on
    collector.snapshot(NOW + 86400)
    assert row(conn)["state"] == "unknown"
    collector.snapshot(NOW + 1)  # the clock went back: decided again, fresh again
    assert row(conn)["state"] == "working"
    conn.close()
