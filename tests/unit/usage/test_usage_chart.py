"""The usage screen's days: every one of the last days (empty ones too), each client's tokens on the reader's
local day, exact in a time zone with a half-hour offset."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest

from lunavect import store
from lunavect.core.tokens import Tokens
from lunavect.usage import chart, ledger


@pytest.fixture
def kolkata(monkeypatch):
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+5:30
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_days_by_client_on_local_days_in_a_half_hour_zone(tmp_path: Path, kolkata) -> None:
    conn = store.connect(tmp_path / "s.sqlite3")
    now = dt.datetime(2026, 11, 12, 12, 0, tzinfo=dt.UTC).timestamp()  # 17:30 on the 12th in Kolkata
    early = dt.datetime(2026, 11, 11, 18, 40, tzinfo=dt.UTC).timestamp()  # 00:10 on the 12th there
    late = dt.datetime(2026, 11, 11, 18, 20, tzinfo=dt.UTC).timestamp()  # 23:50 on the 11th there
    for key, at, tokens in (
        ("codex:a", early, Tokens(100, 0, 0, 0)),
        ("claude:b", early, Tokens(0, 7, 0, 0)),
        ("claude:b", late, Tokens(0, 0, 30, 0)),
        ("pi:c", now - 3 * 86400, Tokens(0, 0, 0, 5)),
    ):
        with conn:
            ledger.record(conn, f"/{key}", key, [ledger.Delta(ledger.quarter_of(at, at), "m", False, tokens)])
    days = chart.days_by_client(conn, now, days=5)
    assert [d.day for d in days] == ["2026-11-08", "2026-11-09", "2026-11-10", "2026-11-11", "2026-11-12"]
    by_day = {d.day: d.by_client for d in days}
    assert by_day["2026-11-12"] == {"claude": 7, "codex": 100}  # the clients' order, Claude Code first
    assert list(by_day["2026-11-12"]) == ["claude", "codex"]
    assert by_day["2026-11-11"] == {"claude": 30} and by_day["2026-11-09"] == {"pi": 5}
    assert by_day["2026-11-08"] == {} and days[0].total == 0
    conn.close()
