"""The usage a Codex rollout's records carry: every `token_count` event, and the `turn_context` model before it.

Codex writes running totals (`info.total_token_usage`), the last request's own counts
(`info.last_token_usage`), the model's window (`info.model_context_window`) and the account's rate-limit
windows (`rate_limits.primary` / `.secondary`) in each `token_count` event. Each one's growth of the running
total is dated by its own timestamp (a rollout read in one go spans days, and midnights), so every such event
is folded, oldest first: they are found by a byte search and only they (and the `turn_context` lines) are
decoded, and only the fields used here (a `turn_context` also holds instructions: skipped by the decoder,
never kept). Reading the file and storing what a read added is usage_file.py's.
"""

from __future__ import annotations

import msgspec

from lunavect.clients.codex.cursor_state import RolloutUsage
from lunavect.core import bounded_json
from lunavect.core.bounds import bounded, percent, window_minutes
from lunavect.core.bounds import count as _count
from lunavect.core.times import epoch
from lunavect.core.tokens import Tokens
from lunavect.usage import ledger
from lunavect.usage.limits import Limits, LimitWindow


class _Counts(msgspec.Struct):
    input_tokens: object = None
    cached_input_tokens: object = None
    # Codex 0.146+: the part of the input written to the cache (counted in `input_tokens`, as the cached part is).
    cache_write_input_tokens: object = None
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


class _Payload(msgspec.Struct):
    type: object = None
    info: _Info | None = None
    rate_limits: _Limits | None = None
    model: object = None


class _ContextPayload(msgspec.Struct):
    model: object = None


class _Record(msgspec.Struct):
    timestamp: object = None
    type: object = None
    payload: _Payload | None = None


class _ContextRecord(msgspec.Struct):
    timestamp: object = None
    type: object = None
    payload: _ContextPayload | None = None


class _Any(msgspec.Struct):
    """Any JSON object, its fields skipped (checked, never kept): a line that is one is a complete record."""


_record_decoder = msgspec.json.Decoder(_Record)
_context_decoder = msgspec.json.Decoder(_ContextRecord)
_any_decoder = msgspec.json.Decoder(_Any)
# The markers of the lines read, each found by `bytes.find`: a regular expression of the two scanned a rollout
# several times slower, a third of its usage read.
_TOKEN_COUNT, _TURN_CONTEXT = b'"token_count"', b'"turn_context"'


def _found(data: bytes, marker: bytes) -> list[int]:
    """Where `marker` begins in `data`, every time."""
    found: list[int] = []
    at = data.find(marker)
    while at >= 0:
        found.append(at)
        at = data.find(marker, at + len(marker))
    return found


def _tokens(counts: _Counts) -> Tokens:
    total_input, cached = _count(counts.input_tokens), _count(counts.cached_input_tokens)
    written = _count(counts.cache_write_input_tokens)
    # Codex's input count includes the cached and the cache-written parts: the three are made disjoint as
    # Claude's are.
    return Tokens(
        input=max(0, total_input - cached - written),
        output=_count(counts.output_tokens),
        cache_read=cached,
        cache_write=written,
    )


def _window(window: _Window | None) -> LimitWindow | None:
    """A window as it enters from the rollout, each figure checked once (`core.bounds`): no percent from 0 to
    100, no window; a length or reset time out of range is left out."""
    used = percent(window.used_percent) if window is not None else None
    if window is None or used is None:
        return None
    return LimitWindow(used, window_minutes(window.window_minutes), bounded(window.resets_at))


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and 0 < len(value) <= 200 else None


def _grown(new: Tokens, old: Tokens | None) -> Tokens:
    """What one `token_count`'s running total added to the one before: Codex writes the same totals again
    (about half its events repeat them), which add nothing; a total whose input or output is below the one
    before is a count begun again (a resumed process), all of it new."""
    if old is None:
        return new
    if new.prompt_size < old.prompt_size or new.output < old.output:
        return new
    grown = new.minus(old)
    return Tokens(max(0, grown.input), grown.output, max(0, grown.cache_read), max(0, grown.cache_write))


class UsageRead:
    """The usage records of whole lines read oldest first: each request's tokens dated by the `token_count`
    that carries them and given to the model of the `turn_context` before it, the running total, context,
    window and rate limits as the newest record leaves them.

    A rollout holds tens of thousands of `token_count` events and only the newest one's figures are kept, so
    each event updates plain fields and `usage` is made from them when it is asked for: one struct, and one
    conversion of the newest rate limits, per read instead of per event (a third of a cold start's Codex CPU)."""

    def __init__(self, usage: RolloutUsage | None, now: float, subagent: bool = False) -> None:
        self._usage = usage or RolloutUsage()
        self._pending = False  # the fields below hold newer figures than `_usage`
        self._total, self._context, self._window = self._usage.total, self._usage.context, self._usage.context_window
        self._at: float | None = self._usage.at
        self._limits: tuple[float, _Limits] | None = None  # the newest rate limits read, not yet converted
        # The last `info` folded, when it carried running totals: the same again adds nothing and moves nothing.
        self._info: _Info | None = None
        self.now, self.subagent = now, subagent
        self.deltas = ledger.Deltas()
        self.changed = False
        # The file was cut below where the last read stopped: it is counted again from its start.
        self.restarted = False

    @property
    def usage(self) -> RolloutUsage:
        if self._pending:
            limits = self._usage.limits if self._limits is None else _converted(*self._limits)
            self._usage = msgspec.structs.replace(
                self._usage,
                total=self._total,
                context=self._context,
                context_window=self._window,
                at=self._at,
                limits=limits,
            )
            self._pending, self._limits = False, None
        return self._usage

    @usage.setter
    def usage(self, value: RolloutUsage) -> None:
        self._usage, self._pending, self._limits, self._info = value, False, None, None
        self._total, self._context, self._window, self._at = value.total, value.context, value.context_window, value.at

    def lines(self, data: bytes) -> None:
        """Fold every usage record among the whole lines of `data` (the last may lack its newline)."""
        done = 0
        for at in sorted(_found(data, _TOKEN_COUNT) + _found(data, _TURN_CONTEXT)):
            if at < done:
                continue  # another marker in a line already folded
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            done = end if end >= 0 else len(data)
            self.line(data[start:done])

    def line(self, line: bytes) -> bool:
        """Fold one line; False when it is no complete JSON record (a line still being written)."""
        record = _decode(_record_decoder, line) or _decode(_context_decoder, line)
        if record is None:
            return _decode(_any_decoder, line) is not None
        payload = record.payload
        if record.type == "turn_context" and payload is not None:
            model = _str(payload.model)
            if model is not None and model != self._usage.model:
                self.usage = msgspec.structs.replace(self.usage, model=model)
                self.changed = True
        elif record.type == "event_msg" and isinstance(payload, _Payload) and payload.type == "token_count":
            self._count(epoch(record.timestamp), payload)
        return True

    def _count(self, at: float | None, payload: _Payload) -> None:
        info = payload.info
        grown = None
        if info is not None and (info != self._info or info.total_token_usage is None):
            if info.total_token_usage is not None:
                total = _tokens(info.total_token_usage)
                grown = _grown(total, self._total)
                self._total = total
            elif info.last_token_usage is not None:
                grown = _tokens(info.last_token_usage)
                self._total = grown if self._total is None else self._total.plus(grown)
            if info.last_token_usage is not None:
                self._context = _count(info.last_token_usage.total_tokens) or None
            self._window = _count(info.model_context_window) or self._window
            # Kept only once folded: equal totals fold to the same total, context and window, and grow nothing
            # (about half of a rollout's events repeat the one before: compared in C, skipped in Python).
            self._info = info if info.total_token_usage is not None else None
        if at is not None:
            self._at = at
        if grown is not None and not grown.empty:
            self.deltas.add(ledger.quarter_of(self._at, self.now), self._usage.model, self.subagent, grown)
        if payload.rate_limits is not None and at is not None:
            self._limits = (at, payload.rate_limits)
        self._pending = self.changed = True


def _converted(at: float, raw: _Limits) -> Limits:
    """Rate limits as they enter from the rollout, each figure checked once (`core.bounds`)."""
    return Limits(
        at=at,
        limit_id=_str(raw.limit_id),
        plan=_str(raw.plan_type),
        primary=_window(raw.primary),
        secondary=_window(raw.secondary),
    )


def _decode(decoder: msgspec.json.Decoder, line: bytes):  # noqa: ANN202 - the decoder's type
    try:
        return bounded_json.decode(decoder, line)
    except msgspec.DecodeError:  # not JSON, another shape, nested too deep
        return None
