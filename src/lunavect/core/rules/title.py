"""A client's terminal title, read live from its pane: coarse, but it shows what the hooks leave unsaid.

Gemini CLI draws its state there (`✋` a confirmation waits, `✦`/`⏲` it works, `◇` it is ready). No hook says
that a permission was granted (the tool runs, and the next hook comes when it ends), that a question was answered
or that a turn was cancelled; the title changes at once. The title is read only for a session whose hooks named
its process and terminal, so it only ever refines what the hooks said: it moves the phase only when it is newer
than their last word by a margin (a title read is a poll, a moment behind what it shows), and otherwise confirms
the phase it agrees with, which keeps a long granted tool current.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.core.model import Evidence, State
from lunavect.core.rules.facts import (
    CATALOG_MARGIN_S,
    Facts,
    confirm,
    cut_short,
    wait_answered,
    waits_in_dialog,
)
from lunavect.core.rules.hooks import enter_permission

Handler = Callable[[Facts, Evidence], None]

# How much newer than the hooks' last word (and than the wait's start) a title must be to move the phase.
TITLE_MARGIN_S = CATALOG_MARGIN_S


def _newer(facts: Facts, ev: Evidence, *, than_phase: bool = False) -> bool:
    reference = facts.hooked_at or 0.0
    if than_phase and facts.phase_at is not None:
        reference = max(reference, facts.phase_at)
    return ev.at > reference + TITLE_MARGIN_S


def _busy(facts: Facts, ev: Evidence) -> None:
    if facts.phase == State.WORKING and facts.turn_open:
        confirm(facts, ev.at)
    elif facts.turn_open and (facts.phase == State.PERMISSION or waits_in_dialog(facts)):
        if _newer(facts, ev, than_phase=True):
            wait_answered(facts, ev.at)  # granted or answered: its tool runs now


def _waiting(facts: Facts, ev: Evidence) -> None:
    if facts.phase in (State.PERMISSION, State.INPUT) and facts.turn_open:
        confirm(facts, ev.at)
    elif facts.phase == State.WORKING and facts.turn_open and _newer(facts, ev):
        enter_permission(facts, ev)  # a confirmation no hook announced


def _idle(facts: Facts, ev: Evidence) -> None:
    if not _newer(facts, ev):
        return
    if facts.phase in (State.WORKING, State.PERMISSION) or waits_in_dialog(facts):
        cut_short(facts, State.IDLE, ev.at)  # the turn ended without its Stop (a denial, Esc)
    # A compaction is not ended by a ready title: Gemini CLI keeps `◇  Ready` drawn through a whole `/compress`
    # (tests/clients/NOTES.md); the chat file's record of it ends it.


TITLES: dict[str, Handler] = {"busy": _busy, "waiting": _waiting, "idle": _idle}


def fold_title(facts: Facts, ev: Evidence) -> None:
    if not facts.hooked:
        return  # only a session whose hooks named its terminal has its title read
    handler = TITLES.get(ev.status or "")
    if handler is not None:
        handler(facts, ev)
