"""GitHub Copilot CLI's screen as `lunavect reply` and `answer` read it, on screens the real 1.0.102 drew under
tmux (samples/screens.json, with their colour escapes): its input row empty, holding a draft, or not there (it
still loads, an approval, its question form); its approvals and their keys. A reply that asks the same question
as an approval is no approval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lunavect.clients.copilot import pane

SCREENS = json.loads((Path(__file__).parent / "samples" / "screens.json").read_text())


@pytest.mark.parametrize(
    ("name", "empty"),
    [("ready", True), ("working", True), ("reply-asks", True), ("draft", False), ("draft-long", False)],
)
def test_its_input_row(name: str, empty: bool) -> None:
    assert pane.read_prompt(SCREENS[name]).empty is empty


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("loading", "it is still starting"),
        ("shell-approval", "it shows an approval"),
        ("path-approval", "it shows an approval"),
        ("form", "it shows a question form"),
    ],
)
def test_no_input_row_while_it_asks_or_loads(name: str, why: str) -> None:
    assert pane.read_prompt(SCREENS[name]) == pane.PromptReading(None, why)


def test_a_shell_commands_approval_names_its_tool_and_keys() -> None:
    dialog = pane.read_dialog(SCREENS["shell-approval"])
    assert dialog is not None and dialog.tool == "bash"
    assert (dialog.key("allow"), dialog.key("allow-always"), dialog.key("deny")) == ("1", "2", "Escape")


def test_a_path_approval_names_no_tool() -> None:
    dialog = pane.read_dialog(SCREENS["path-approval"])
    assert dialog is not None and dialog.tool is None
    # "2. Yes, and remember this path for this session" is no "always".
    assert (dialog.key("allow"), dialog.key("allow-always"), dialog.key("deny")) == ("1", None, "Escape")


@pytest.mark.parametrize("name", ["ready", "working", "draft", "form", "reply-asks", "loading"])
def test_no_approval_elsewhere(name: str) -> None:
    assert pane.read_dialog(SCREENS[name]) is None
