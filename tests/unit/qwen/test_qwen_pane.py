"""Qwen Code's screen and title as the real 0.24.4 drew them under tmux (samples/screens.json, with escapes): its
input box empty or holding a draft, its approval with the keys that answer it, its question, and its title."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect.clients.qwen import FACE as qwen

SAMPLES = json.loads((Path(__file__).resolve().parent / "samples" / "screens.json").read_text())
SCREENS, TITLES = SAMPLES["screens"], SAMPLES["titles"]


@pytest.mark.parametrize("name", ["ready", "idle0", "esc", "error"])
def test_the_empty_input_box_is_a_prompt_waiting(name: str) -> None:
    assert qwen.read_prompt(SCREENS[name]).empty is True


def test_a_draft_in_the_input_box_is_no_empty_prompt() -> None:
    assert qwen.read_prompt(SCREENS["draft"]).empty is False


def test_an_approval_is_no_prompt_and_its_keys_are_read_for_its_tool_as_the_hooks_name_it() -> None:
    reading = qwen.read_prompt(SCREENS["approval"])
    assert reading.empty is None and "approval" in reading.why
    dialog = qwen.read_dialog(SCREENS["approval"])
    assert dialog is not None and dialog.tool == "run_shell_command"
    assert (dialog.key("allow"), dialog.key("deny")) == ("1", "Escape")
    assert dialog.key("allow-always") is None  # "Always allow run 'touch *' commands …": not offered from outside
    assert qwen.read_dialog(SCREENS["ready"]) is None


def test_a_question_is_no_prompt_and_no_approval() -> None:
    assert qwen.read_prompt(SCREENS["question"]).empty is None
    assert qwen.read_dialog(SCREENS["question"]) is None


def test_another_screen_is_no_prompt() -> None:
    assert qwen.read_prompt("$ ls\nfile\n$ ").empty is None


@pytest.mark.parametrize(
    ("title", "state"),
    [
        (TITLES["approval"], "waiting"),
        (TITLES["question"], "waiting"),
        (TITLES["ready"], "idle"),
        ("\u25d0\ufe0e Qwen - work", "busy"),
        ("\u25d3\ufe0e Qwen - work", "busy"),
        ("vim notes.md", None),
        ("\u25d0 Claude - work", None),
    ],
)
def test_its_title_says_its_state(title: str, state: str | None) -> None:
    assert qwen.read_title(title) == state
