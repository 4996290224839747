"""Token counts in one shape for both clients, and the figures a session row carries.

Claude Code reports per API message (`message.usage`: input, output, cache read, cache creation); Codex reports
running totals (`token_count.info.total_token_usage`: input including cached, cached input, output). Both are
brought to the same four disjoint counts so that sums across clients mean the same thing: `input` is what was
sent and not read from the cache, `cache_read` what the cache supplied, `cache_write` what was written to it.
"""

from __future__ import annotations

import msgspec

# A context fuller than ten windows is no figure at all (a corrupt or hostile row), not one to show.
_MOST_PERCENT = 1000.0


class Tokens(msgspec.Struct, omit_defaults=False):
    """Four disjoint token counts. Adding and subtracting them is how deltas reach the history."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    # The part of `cache_write` kept for an hour rather than five minutes (Claude Code's
    # `cache_creation.ephemeral_1h_input_tokens`): written at a higher price.
    cache_write_1h: int = 0

    def plus(self, other: Tokens) -> Tokens:
        return Tokens(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
            self.cache_write_1h + other.cache_write_1h,
        )

    def minus(self, other: Tokens) -> Tokens:
        return Tokens(
            self.input - other.input,
            self.output - other.output,
            self.cache_read - other.cache_read,
            self.cache_write - other.cache_write,
            self.cache_write_1h - other.cache_write_1h,
        )

    @property
    def empty(self) -> bool:
        return not (self.input or self.output or self.cache_read or self.cache_write)

    @property
    def prompt_size(self) -> int:
        """What one request sent in all (the context it filled): fresh input plus both cache parts."""
        return self.input + self.cache_read + self.cache_write


class SessionUsage(msgspec.Struct, omit_defaults=False):
    """A session's usage as `lunavect list --json` prints it under `usage`.

    `tokens` sums every API message of the session, its sub-agents included; `subagents` is the sub-agents'
    part of it. `context` is the size of the last request of the main conversation (None when unknown or
    reset by a compaction since), `context_window` the model's window when known.
    """

    model: str | None = None
    tokens: Tokens = msgspec.field(default_factory=Tokens)
    subagents: Tokens = msgspec.field(default_factory=Tokens)
    context: int | None = None
    context_window: int | None = None
    # When the figures were last read from the client's file (ISO 8601).
    updated: str | None = None

    @property
    def context_percent(self) -> float | None:
        """How full the context window is, in percent; None when unknown, or when the figures make no believable
        percent (a row from another machine may carry any int: a negative window, a 400-digit context)."""
        if self.context is None or not self.context_window:
            return None
        try:
            percent = 100.0 * (self.context / self.context_window)
        except OverflowError:
            return None
        return percent if 0.0 <= percent <= _MOST_PERCENT else None
