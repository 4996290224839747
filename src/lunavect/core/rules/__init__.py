"""The rules: from a session's evidence and "now" to its state. Pure: no I/O and no clock of its own.

Evidence is folded, in the order it was observed, into `Facts` (what is known about the session), and
`decide` turns facts plus the caller's clock, the agent process's liveness and the network's state into a
`Decision`. Both are pure, so every rule of the guide is unit-tested with a clock the test controls and
replayed exactly. Facts are small and serialisable, so the collector keeps them in the store and never holds
a session's history in memory.

Sources of evidence, most exact first: the agent's own hooks (`source="hook"`, hooks.py), the client's live
catalog (`"catalog"`, catalog.py), its transcript (`"transcript"`, transcript.py) and Codex's rollout
(`"rollout"`, rollout.py); each module is a table from its events to their handlers. When a hook reports a
session, its exact events win: the coarser sources only prove what the hooks cannot see (an Esc interrupt, a
denied permission prompt), or describe sessions that have no hooks at all.
"""

from lunavect.core.rules.decide import decide, settled
from lunavect.core.rules.facts import (
    BACKGROUND_AUTHORITY_S,
    EVENT_AUTHORITY_S,
    LIVE_PHASES,
    Decision,
    Facts,
    error_reason,
    event_authority_s,
)
from lunavect.core.rules.fold import fold

__all__ = [
    "BACKGROUND_AUTHORITY_S",
    "EVENT_AUTHORITY_S",
    "LIVE_PHASES",
    "Decision",
    "Facts",
    "decide",
    "error_reason",
    "event_authority_s",
    "fold",
    "settled",
]
