"""How many tokens a model's context window holds, when the client's file does not say it.

Codex writes `model_context_window` with every count; Claude Code's transcript names only the model. Every
Claude model lunavect knows has a 200,000-token window, and a 1,000,000-token window when the person turned on
the long-context option, which the transcript does not record: a request larger than 200,000 tokens proves
it. None for a model of unknown family (the fill is then shown as a count, without a percentage).
"""

from __future__ import annotations

CLAUDE_WINDOW = 200_000
CLAUDE_LONG_WINDOW = 1_000_000


def context_window(model: str | None, context: int | None) -> int | None:
    if model is None or not model.startswith("claude-"):
        return None
    if model.endswith("[1m]") or (context is not None and context > CLAUDE_WINDOW):
        return CLAUDE_LONG_WINDOW
    return CLAUDE_WINDOW
