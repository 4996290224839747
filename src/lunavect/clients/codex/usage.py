"""The usage a Codex rollout carries: the latest `token_count` event and the latest `turn_context`'s model.

Codex writes running totals (`info.total_token_usage`), the last request's own counts
(`info.last_token_usage`), the model's window (`info.model_context_window`) and the account's rate-limit
windows (`rate_limits.primary` / `.secondary`) in each `token_count` event, so the newest one says it all: the
lifecycle cursor hands each block it reads anyway to `UsageScan`, which finds the last such lines by a byte
search and decodes only them, and only the fields used here (a `turn_context` also holds instructions: they
are skipped by the decoder, never kept).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

import msgspec

from lunavect.clients.codex.cursor_state import CursorState, RolloutUsage
from lunavect.core import bounded_json
from lunavect.core.bounds import bounded, percent, window_minutes
from lunavect.core.bounds import count as _count
from lunavect.core.times import epoch
from lunavect.core.tokens import Tokens
from lunavect.usage import ledger
from lunavect.usage import limits as limit_store
from lunavect.usage.limits import Limits, LimitWindow

_TOKEN_COUNT = b'"token_count"'
_TURN_CONTEXT = b'"turn_context"'


class _Counts(msgspec.Struct):
    input_tokens: object = None
    cached_input_tokens: object = None
    output_tokens: object = None
    total_tokens: object = None


class _Info(msgspec.Struct):
    total_token_usage: _Counts | None = None
    last_token_usage: _Counts | None = None
    model_context_window: object = None


class _Window(msgspec.Struct):
    used_percent: object = None
    window_minutes: object = None
    resets_at: object = None


class _Limits(msgspec.Struct):
    limit_id: object = None
    primary: _Window | None = None
    secondary: _Window | None = None
    plan_type: object = None


class _CountPayload(msgspec.Struct):
    type: object = None
    info: _Info | None = None
    rate_limits: _Limits | None = None


class _ContextPayload(msgspec.Struct):
    model: object = None


class _CountRecord(msgspec.Struct):
    timestamp: object = None
    type: object = None
    payload: _CountPayload | None = None


class _ContextRecord(msgspec.Struct):
    timestamp: object = None
    type: object = None
    payload: _ContextPayload | None = None


_count_decoder = msgspec.json.Decoder(_CountRecord)
_context_decoder = msgspec.json.Decoder(_ContextRecord)


def _tokens(counts: _Counts) -> Tokens:
    total_input, cached = _count(counts.input_tokens), _count(counts.cached_input_tokens)
    # Codex's input count includes the cached part: the two are made disjoint as Claude's are.
    return Tokens(input=max(0, total_input - cached), output=_count(counts.output_tokens), cache_read=cached)


def _window(window: _Window | None) -> LimitWindow | None:
    """A window as it enters from the rollout, each figure checked once (`core.bounds`): no percent from 0 to
    100, no window; a length or reset time out of range is left out."""
    used = percent(window.used_percent) if window is not None else None
    if window is None or used is None:
        return None
    return LimitWindow(used, window_minutes(window.window_minutes), bounded(window.resets_at))


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 200 else None


def _line_at(data: bytes, marker: bytes, floor: int) -> bytes | None:
    """The last whole line of `data` at or after `floor` that holds `marker`."""
    found = data.rfind(marker, floor)
    while found >= 0:
        start = data.rfind(b"\n", 0, found) + 1
        end = data.find(b"\n", found)
        if start >= floor and end >= 0:
            return data[start:end]
        found = data.rfind(marker, floor, start) if start > floor else -1
    return None


class UsageScan:
    """The newest usage records among the blocks a read looks at, newest block first."""

    def __init__(self) -> None:
        self.count: _CountRecord | None = None
        self.model: str | None = None
        self.model_seen = False

    @property
    def done(self) -> bool:
        return self.count is not None and self.model_seen

    def block(self, data: bytes, first: int) -> None:
        """Look at one block of whole lines from byte `first` (older blocks come later)."""
        if self.count is None and _TOKEN_COUNT in data:
            rest = data
            while True:
                line = _line_at(rest, _TOKEN_COUNT, first)
                if line is None:
                    break
                record = _decode(_count_decoder, line)
                payload = record.payload if record is not None else None
                if record is not None and record.type == "event_msg" and payload is not None:
                    if payload.type == "token_count":
                        self.count = record
                        break
                # The marker quoted in some text: look before that line.
                rest = rest[: rest.rfind(line)]
        if not self.model_seen and _TURN_CONTEXT in data:
            line = _line_at(data, _TURN_CONTEXT, first)
            record = _decode(_context_decoder, line) if line is not None else None
            if record is not None and record.type == "turn_context" and record.payload is not None:
                self.model, self.model_seen = _str(record.payload.model), True

    def fold(self, previous: RolloutUsage | None) -> RolloutUsage | None:
        """The rollout's usage after this read: what it found over what was known."""
        if self.count is None and not self.model_seen:
            return previous
        usage = previous or RolloutUsage()
        model = self.model if self.model_seen and self.model else usage.model
        record = self.count
        if record is None or record.payload is None:
            return msgspec.structs.replace(usage, model=model)
        at = epoch(record.timestamp)
        payload = record.payload
        info = payload.info
        total, context, window = usage.total, usage.context, usage.context_window
        if info is not None:
            if info.total_token_usage is not None:
                total = _tokens(info.total_token_usage)
            if info.last_token_usage is not None:
                context = _count(info.last_token_usage.total_tokens) or None
            window = _count(info.model_context_window) or window
        limits = usage.limits
        raw = payload.rate_limits
        if raw is not None and at is not None:
            limits = Limits(
                at=at,
                limit_id=_str(raw.limit_id),
                plan=_str(raw.plan_type),
                primary=_window(raw.primary),
                secondary=_window(raw.secondary),
            )
        return RolloutUsage(total, context, window, at or usage.at, model, limits)


def _decode(decoder: msgspec.json.Decoder, line: bytes):  # noqa: ANN202 - the decoder's type
    try:
        return bounded_json.decode(decoder, line)
    except msgspec.DecodeError:  # not JSON, another shape, nested too deep
        return None


@dataclass
class UsageChange:
    """What reads of one rollout changed in the usage history, held until the collector commits."""

    restarted: bool = False
    deltas: ledger.Deltas = field(default_factory=ledger.Deltas)
    usage: RolloutUsage | None = None

    def save(self, conn: sqlite3.Connection, path: str, key: str) -> None:
        if self.restarted:
            ledger.forget(conn, path)
        ledger.record(conn, path, key, self.deltas)
        usage = self.usage
        if usage is None:
            return
        at = usage.at if usage.at is not None else 0.0
        ledger.set_state(conn, path, key, usage.model, usage.context, usage.context_window, at)
        if usage.limits is not None:
            limit_store.record(conn, "codex", usage.limits)


def usage_change(
    before: CursorState, old: RolloutUsage | None, after: CursorState, now: float, pending: UsageChange | None
) -> UsageChange | None:
    """The history's change from one read: the growth of the running totals. `before` is the cursor's state
    object before the read and `old` its usage then; a read from the start gives a new state object (the file
    was new, replaced or rewritten), and what the old content added is taken back."""
    restarted = after is not before
    new = after.usage
    if restarted:
        old = None
    elif new is None or new == old:
        return pending
    change = UsageChange(restarted=True) if restarted else pending or UsageChange()
    change.usage = new
    if new is not None and new.total is not None:
        previous = old.total if old is not None and old.total is not None else Tokens()
        grown = new.total.minus(previous)
        grown = Tokens(max(0, grown.input), max(0, grown.output), max(0, grown.cache_read), max(0, grown.cache_write))
        if not grown.empty:
            change.deltas.add(ledger.hour_of(new.at, now), new.model, False, grown)
    return change
