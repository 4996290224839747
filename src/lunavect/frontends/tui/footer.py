"""Which keys the panel's footer names at a width: every shown one on a wide terminal; on one narrower than
`FULL_FOOTER` (80 columns is common), not the row's own keys (its menu, `m`, offers them) nor search's (its field
says Ctrl+F), so that s, Space and q stay on screen. Only what the footer names: every key works at any width.
"""

from __future__ import annotations

from textual.binding import ActiveBinding

FULL_FOOTER = 100
LEFT_OUT_WHEN_NARROW = frozenset({"open", "hide", "pin", "focus_search"})


def named(bindings: dict[str, ActiveBinding], width: int) -> dict[str, ActiveBinding]:
    if width >= FULL_FOOTER:
        return bindings
    return {key: b for key, b in bindings.items() if b.binding.action not in LEFT_OUT_WHEN_NARROW}
