"""Every state and every error reason has its words and its tone, and every tone its style on both pages: a new
state added to the model without them fails here, not on the panel when it draws that row."""

from __future__ import annotations

import re
from pathlib import Path

from unit_support import a_session

from lunavect.core import clients, state_words
from lunavect.core.model import ErrorReason, State
from lunavect.frontends.tui.columns import Column, cell
from lunavect.frontends.tui.session_list import SessionList

FRONTENDS = Path(state_words.__file__).parents[1] / "frontends"
PANEL_CSS = (FRONTENDS / "tui" / "panel.tcss").read_text(encoding="utf-8")
PAGE_CSS = (FRONTENDS / "web" / "static" / "app.css").read_text(encoding="utf-8")


def test_every_state_has_its_words_and_a_tone_and_every_reason_its_words():
    assert set(state_words.TONE) == set(state_words.STATE_WORDS) == set(State)
    assert set(state_words.TONE.values()) == set(state_words.TONES)
    assert set(state_words.ERROR_WORDS) == set(ErrorReason)
    for state in State:
        assert state_words.state_words(a_session(state=state)) == state_words.STATE_WORDS[state] or state in (
            State.WORKING,
            State.ERROR,
        )


def test_every_tone_is_styled_on_the_panel_and_on_the_page():
    for tone in state_words.TONES:
        assert f"session-list--tone-{tone}" in SessionList.COMPONENT_CLASSES
        assert re.search(rf"\.session-list--tone-{tone} \{{[^}}]*color", PANEL_CSS), tone
        assert re.search(rf'li\[data-tone="{tone}"\] \.state \{{[^}}]*color', PAGE_CSS), tone
    # Neither stylesheet colours a state by its name any more: the two cannot disagree on one.
    assert "session-list--state-" not in PANEL_CSS and "data-state=" not in PAGE_CSS


def test_the_panel_styles_the_state_cell_of_every_state_with_a_class_it_declares():
    """Textual raises for a component class a widget does not declare: every state's cell names a declared one."""
    column = Column("state", "STATE", 22)
    for state in State:
        _text, style = cell(a_session(state=state), column, 0.0)
        assert style in SessionList.COMPONENT_CLASSES, state
    assert state_words.tone("a state from a newer machine") == "idle"


def test_an_error_names_the_client_that_has_it():
    """A Codex, Gemini or OpenCode row that cannot reach its model never says "Can't reach Claude"."""
    for client in clients.every():
        row = a_session(provider=client.id, state=State.ERROR, error="unreachable")
        assert state_words.state_words(row) == f"Can't reach {client.label}"
        others = {c.label for c in clients.every()} - {client.label}
        for reason in ErrorReason:
            words = state_words.error_words(reason, client.id)
            assert not any(other in words for other in others), (client.id, reason)
    assert state_words.error_words("unreachable", "claude") == "can't reach Claude"
    assert state_words.error_words("a reason from later", "codex") == "error"
    retrying = a_session(provider="codex", state=State.WORKING, error="unreachable")
    assert state_words.state_words(retrying) == "Can't reach Codex, retrying"


def test_counters_say_one_mark_and_one_word_everywhere():
    assert state_words.count_words("working", 2) == "⚙ 2 working"
    assert state_words.count_words("awaiting_input", 1) == "◆ 1 awaiting input"
    assert state_words.count_words("errors", 1) == "✗ 1 error"
    assert state_words.count_words("errors", 3) == "✗ 3 errors"
    assert state_words.count_words("errors", 3, short=True) == "✗ 3"
    marks = [mark for _name, mark, _one, _many in state_words.COUNTERS]
    marks += [state_words.PIN_MARK, state_words.OPEN_MARK, state_words.ENDED_MARK]
    assert len(set(marks)) == len(marks)  # no mark means two things (the working counter was ●, as open is)
