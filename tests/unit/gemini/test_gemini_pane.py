"""Gemini CLI's screen and title as the real 0.61.0 drew them under tmux (samples/screens.json, with escapes):
its input box empty or holding a draft, its confirmation with the keys that answer it, and its title's sign."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect.clients.gemini import FACE as gemini

SCREENS = json.loads((Path(__file__).resolve().parent / "samples" / "screens.json").read_text())


def test_the_empty_input_box_is_a_prompt_waiting() -> None:
    assert gemini.read_prompt(SCREENS["ready"]).empty is True


def test_a_draft_in_the_input_box_is_no_empty_prompt() -> None:
    assert gemini.read_prompt(SCREENS["draft"]).empty is False


def test_a_confirmation_is_no_prompt_and_its_keys_are_read() -> None:
    reading = gemini.read_prompt(SCREENS["dialog"])
    assert reading.empty is None and "confirmation" in reading.why
    dialog = gemini.read_dialog(SCREENS["dialog"])
    assert dialog is not None and dialog.tool == "run_shell_command"  # as its hooks name it, not "Shell"
    assert (dialog.key("allow"), dialog.key("allow-always"), dialog.key("deny")) == ("1", "2", "Escape")
    assert gemini.read_dialog(SCREENS["ready"]) is None


def test_a_client_still_starting_is_no_prompt_but_its_notice_left_in_the_history_is() -> None:
    notice = "\n\u2139 Initializing... Prompts will be queued.\n\n > say hello\n"
    assert gemini.read_prompt(notice + SCREENS["ready"]).empty is None
    assert gemini.read_prompt(notice + "\n\u2726 ok\n" + SCREENS["ready"]).empty is True


def test_another_screen_is_no_prompt() -> None:
    assert gemini.read_prompt("$ ls\nfile\n$ ").empty is None


@pytest.mark.parametrize(
    ("title", "state"),
    [
        ("✋  Action Required (work)" + " " * 50, "waiting"),
        ("✦  Working… (work)", "busy"),
        ("✦  Reading the parser (work)", "busy"),
        ("⏲  Working… (work)", "busy"),
        ("◇  Ready (work)", "idle"),
        ("Gemini CLI (work)", None),  # its dynamic title turned off
        ("vm", None),
        ("", None),
    ],
)
def test_the_titles_first_sign_is_its_state(title: str, state: str | None) -> None:
    assert gemini.read_title(title) == state
