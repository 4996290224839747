"""Pi's screen, as a reply or an answer from outside would read it: lunavect types into neither.

Pi asks no permission (it has no approval prompts, so there is no dialog to answer), and its editor sits between
two rules with no marker lunavect could tell a half-typed draft from (tests/clients/NOTES.md): a reply typed from
outside could land in the person's own unsent words. So neither reading recognises anything, a reply is refused
with the reason, and the resume command is named.
"""

from __future__ import annotations

from lunavect.core.pane_reading import Dialog, PromptReading


def read_prompt(screen: str) -> PromptReading:
    return PromptReading(None, "lunavect does not type into Pi's editor")


def read_dialog(screen: str) -> Dialog | None:
    return None
