"""A session's usage in one line, for a row's detail (panel, web page, tray): counts and fill, no text."""

from __future__ import annotations

from lunavect.core.tokens import SessionUsage

# Far past any real count (core.bounds.MAX_COUNT is 2**40), yet small enough to divide into a float.
_MOST = 10**15


def count(n: int) -> str:
    """A token count as people read it: 912, 28.8k, 11.6M; `?` for a count no session reaches (a row from
    another machine may carry any int, and a 400-digit one would not even divide into a float)."""
    if not -_MOST < n < _MOST:
        return "?"
    for size, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}{suffix}"
    return str(n)


def usage_line(usage: SessionUsage | None) -> str:
    """`Tokens 12.1M (in 177 · out 28.8k · cache 11.6M read, 479.5k written) · context 106.1k of 200.0k (53 %)`;
    empty when the session's files hold no usage."""
    if usage is None:
        return ""
    t = usage.tokens
    total = t.input + t.output + t.cache_read + t.cache_write
    parts = [
        f"Tokens {count(total)} (in {count(t.input)} · out {count(t.output)} · cache {count(t.cache_read)} read, "
        f"{count(t.cache_write)} written)"
    ]
    sub = usage.subagents
    sub_total = sub.input + sub.output + sub.cache_read + sub.cache_write
    if sub_total:
        parts.append(f"sub-agents {count(sub_total)}")
    if usage.context is not None:
        fill = f"context {count(usage.context)}"
        percent = usage.context_percent
        if usage.context_window and percent is not None:
            fill += f" of {count(usage.context_window)} ({percent:.0f} %)"
        parts.append(fill)
    if usage.model:
        parts.append(usage.model)
    return " · ".join(parts)


def usage_brief(usage: SessionUsage | None) -> str:
    """A row's usage column: `12.1M · 53 %` (all tokens, and how full the context window is), `12.1M · ctx 106.1k`
    when the window is unknown; empty when the session's files hold no usage. The same counts as `usage_line`."""
    if usage is None:
        return ""
    t = usage.tokens
    parts = [count(t.input + t.output + t.cache_read + t.cache_write)]
    percent = usage.context_percent
    if percent is not None:
        parts.append(f"{percent:.0f} %")
    elif usage.context is not None:
        parts.append(f"ctx {count(usage.context)}")
    return " · ".join(parts)
