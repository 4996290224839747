"""A message its client writes again each time it changes (Gemini CLI: the last line of a message id wins) shows
once, in its latest form, at the place it first stood; a viewer holding its mark redraws it."""

from __future__ import annotations

from lunavect.conversation.assemble import Assembly
from lunavect.conversation.message import Kind, Message


def test_a_later_message_with_the_same_key_replaces_the_first_in_place() -> None:
    assembly = Assembly()
    assembly.add([Message("0:0", Kind.PROMPT, "do it", key="p")])
    assembly.add([Message("10:0", Kind.TEXT, "Let me check.", key="m:text")])
    assembly.add([Message("20:0", Kind.PROMPT, "queued", key="q")])
    first = assembly.messages[1].mark
    assembly.take_changed()
    assembly.add(
        [
            Message("30:0", Kind.TEXT, "Let me check.", key="m:text"),
            Message("30:1", Kind.TOOL, "echo hi", tool="run_shell_command", call_id="c1", result="hi", key="m:call:c1"),
        ]
    )
    shown = [(m.place, m.kind, m.text) for m in assembly.messages]
    assert shown == [
        ("0:0", Kind.PROMPT, "do it"),
        ("10:0", Kind.TEXT, "Let me check."),
        ("20:0", Kind.PROMPT, "queued"),
        ("30:1", Kind.TOOL, "echo hi"),
    ]
    assert assembly.messages[1].mark == first  # the same text again: nothing to redraw
    assert [m.place for m in assembly.take_changed()] == ["10:0", "30:1"]


def test_messages_without_a_key_are_never_merged() -> None:
    assembly = Assembly()
    assembly.add([Message("0:0", Kind.TEXT, "same"), Message("1:0", Kind.TEXT, "same")])
    assert len(assembly.messages) == 2


def test_trimming_keeps_later_replacements_in_place() -> None:
    assembly = Assembly()
    assembly.add([Message(f"{i}:0", Kind.TEXT, f"m{i}", key=f"k{i}") for i in range(5)])
    assembly.trim(2)
    assembly.add([Message("9:0", Kind.TEXT, "m4 again", key="k4")])
    assert [(m.place, m.text) for m in assembly.messages] == [("3:0", "m3"), ("4:0", "m4 again")]
