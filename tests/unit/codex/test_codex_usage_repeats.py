"""Codex writes the same `token_count` figures again (about half its events): a repeat adds nothing and moves
nothing but the time and the rate limits, while a request counted only by its own `last_token_usage` adds each
time it is written, however alike two of them are."""

from __future__ import annotations

import datetime as dt
import json

from lunavect.clients.codex.usage import UsageRead
from lunavect.core.tokens import Tokens

NOW = 1_780_000_000.0


def _count(second: int, info: dict | None, used: float = 10.0) -> bytes:
    record = {
        "timestamp": f"2026-06-01T10:00:{second:02d}.000Z",
        "type": "event_msg",
        "payload": {
            "type": "token_count",
            "info": info,
            "rate_limits": {"primary": {"used_percent": used, "window_minutes": 300, "resets_at": 1_780_010_000}},
        },
    }
    return json.dumps(record, separators=(",", ":")).encode()


def _at(second: int) -> float:
    return dt.datetime(2026, 6, 1, 10, 0, second, tzinfo=dt.UTC).timestamp()


def _counts(inp: int, cached: int, out: int) -> dict:
    return {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out, "total_tokens": inp + out}


def _read(*lines: bytes) -> UsageRead:
    read = UsageRead(None, NOW)
    read.lines(b"\n".join(lines) + b"\n")
    return read


def _summed(read: UsageRead) -> Tokens:
    total = Tokens()
    for delta in read.deltas:
        total = total.plus(delta.tokens)
    return total


def test_repeated_running_totals_count_once_and_the_newest_time_and_limits_stay() -> None:
    first = {"total_token_usage": _counts(100, 40, 10), "last_token_usage": _counts(100, 40, 10)}
    second = {"total_token_usage": _counts(250, 140, 30), "last_token_usage": _counts(150, 100, 20)}
    read = _read(
        _count(1, first),
        _count(2, first, used=11.0),
        _count(3, first, used=12.0),
        _count(4, second),
        _count(5, second, 14.0),
    )
    assert _summed(read) == Tokens(input=110, output=30, cache_read=140)
    usage = read.usage
    assert usage.total == Tokens(input=110, output=30, cache_read=140)
    assert usage.context == 170
    assert usage.limits is not None and usage.limits.primary is not None
    assert usage.limits.primary.used_percent == 14.0  # the last repeat's limits, not the last change's
    assert usage.at == usage.limits.at == _at(5)


def test_alike_requests_counted_only_by_their_last_usage_each_add() -> None:
    alone = {"last_token_usage": _counts(100, 40, 10)}
    read = _read(_count(1, alone), _count(2, alone), _count(3, alone))
    assert _summed(read) == Tokens(input=180, output=30, cache_read=120)
    assert read.usage.total == Tokens(input=180, output=30, cache_read=120)


def test_a_repeat_after_a_restarted_count_is_still_a_repeat_of_the_restart() -> None:
    high = {"total_token_usage": _counts(500, 0, 50)}
    low = {"total_token_usage": _counts(100, 0, 5)}  # a resumed process counts again from nothing
    read = _read(_count(1, high), _count(2, low), _count(3, low), _count(4, high))
    # 550 at first, 105 anew, nothing for the repeat, then 400 + 45 of growth.
    assert _summed(read) == Tokens(input=1000, output=100)
