"""Every session has the title Claude Code's own resume picker shows (shapes as Claude Code 2.1.328 writes them,
recorded with the real client: tests/clients/NOTES.md, "Titles"), and only a session that nothing names gets
lunavect's own: its project and start time."""

from __future__ import annotations

import datetime as dt

import pytest
from claude_records_support import prompt, rec, summarize

from lunavect.clients.claude.titles import command_text, squashed, without_paste_marks
from lunavect.collector.snapshot import build_session, fallback_title
from lunavect.core.model import State
from lunavect.core.rules import Decision, Facts

COMMAND = (
    "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>{}</command-args>"
)
CAVEAT = (
    "<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its "
    "output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>"
)


def built_in(n: int, name: str, args: str = "") -> dict:
    """A built-in command as the client records it: its name first, its lines indented."""
    body = (
        f"<command-name>/{name}</command-name>\n            <command-message>{name}</command-message>\n"
        f"            <command-args>{args}</command-args>"
    )
    return rec("user", n, message={"role": "user", "content": body})


def stdout(n: int, text: str) -> dict:
    return rec("user", n, message={"role": "user", "content": f"<local-command-stdout>{text}</local-command-stdout>"})


def caveat(n: int) -> dict:
    return rec("user", n, message={"role": "user", "content": CAVEAT}, isMeta=True)


def last_prompt(text: str | None = None) -> dict:
    record = {"type": "last-prompt", "leafUuid": "9564ec9e-0741-4888-9110-77f3f9513c4d"}
    return {**record, "lastPrompt": text} if text is not None else record


def test_a_session_begun_with_local_commands_is_titled_by_its_prompt():
    model = [caveat(1), built_in(2, "model"), stdout(3, "Set model to `Opus 5.5 (default)`")]
    goal = [built_in(4, "goal", "make the report complete"), stdout(5, "Goal set: make the report complete")]
    acknowledge = prompt(6, 'A session-scoped Stop hook is now active with condition: "make the report complete".')
    commands = [*model, *goal, {**acknowledge, "isMeta": True}, last_prompt()]
    assert summarize(*commands).title == "/model"  # commands only: the first one's name, as the picker shows it
    typed = [prompt(7, "please write the summary"), last_prompt("please write the summary")]
    assert summarize(*commands, *typed).title == "please write the summary"
    # A transcript without the client's own record of it (an older client): the first prompt, never a command.
    assert summarize(*commands, prompt(7, "please write the summary")).title == "please write the summary"


def test_the_last_prompt_names_the_session_as_the_client_recorded_it():
    two = [prompt(1, "the first task"), last_prompt("the first task")]
    assert summarize(*two, prompt(2, "the second task"), last_prompt("the second task")).title == "the second task"
    # A built-in command writes a record without `lastPrompt`: the prompt before it still names the session.
    after = [built_in(3, "goal", "finish the work"), stdout(4, "Goal set: finish the work"), last_prompt()]
    assert summarize(*two, *after).title == "the first task"


def test_a_session_after_clear_is_titled_by_the_prompt_after_it():
    cleared = [caveat(1), built_in(2, "clear"), prompt(3, "after the clear"), last_prompt("after the clear")]
    assert summarize(*cleared).title == "after the clear"
    assert summarize(caveat(1), built_in(2, "clear"), last_prompt()).title == "/clear"


def test_a_compacted_session_is_titled_by_its_last_prompt_not_its_summary():
    before = [prompt(1, "before the compact"), last_prompt("before the compact")]
    summary = prompt(2, "This session is being continued from a previous conversation that ran out of context.")
    compact = [{**summary, "isCompactSummary": True, "isVisibleInTranscriptOnly": True}, caveat(3)]
    compact += [built_in(4, "compact"), stdout(5, "\x1b[2mCompacted (ctrl+o to see full summary)\x1b[22m")]
    assert summarize(*before, *compact).title == "before the compact"
    after = [prompt(6, "after the compact"), last_prompt("after the compact")]
    assert summarize(*before, *compact, *after).title == "after the compact"


def test_a_shell_command_typed_with_a_bang_is_titled_as_the_picker_shows_it():
    bang = rec("user", 1, message={"role": "user", "content": "<bash-input>ls -a</bash-input>"})
    output = rec(
        "user", 2, message={"role": "user", "content": "<bash-stdout>.\n..</bash-stdout><bash-stderr></bash-stderr>"}
    )
    assert summarize(bang, {**output, "turnOrigin": "human"}).title == "! ls -a"
    assert summarize(bang, output, last_prompt("! ls -a")).title == "! ls -a"


def test_an_image_is_titled_by_its_label_and_its_text():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    labelled = [{"type": "text", "text": "[Image #1]"}, image]
    first = rec("user", 1, message={"role": "user", "content": labelled}, origin={"kind": "human"})
    source = rec(
        "user", 2, message={"role": "user", "content": [{"type": "text", "text": "[Image: source: /w/red.png]"}]}
    )
    images = [first, {**source, "isMeta": True}, last_prompt("[Image #1]")]
    assert summarize(*images).title == "[Image #1]" and summarize(first).title == "[Image #1]"
    asked = [{"type": "text", "text": "[Image #2] what colour is this"}, image]
    second = rec("user", 3, message={"role": "user", "content": asked}, origin={"kind": "human"})
    assert summarize(*images, second, last_prompt("[Image #2] what colour is this")).title == (
        "[Image #2] what colour is this"
    )
    # An image without any text (no client version here writes it so) is a prompt that names nothing.
    alone = rec("user", 1, message={"role": "user", "content": [image]}, origin={"kind": "human"})
    summary = summarize(alone)
    assert summary.title is None and summary.prompts == 1
    with_text = rec("user", 1, message={"role": "user", "content": [image, {"type": "text", "text": "what is this"}]})
    assert summarize(with_text).title == "what is this"


def test_a_custom_slash_command_with_arguments_is_titled_by_it():
    first = prompt(1, COMMAND.format("the parser module"))
    expansion = prompt(2, "Review this code carefully: the parser module", isMeta=True)
    assert summarize(first, expansion).title == "/review the parser module"
    assert summarize(first, expansion, last_prompt("/review the parser module")).title == "/review the parser module"
    # Its arguments title it as the first prompt: a later prompt is only the last one once the client says so.
    assert summarize(first, expansion, prompt(3, "another prompt")).title == "/review the parser module"


def test_a_slash_command_without_arguments_and_a_plugin_command():
    assert summarize(prompt(1, COMMAND.format(""))).title == "/review"
    plugin = "<command-message>tools:lint</command-message>\n<command-name>/tools:lint</command-name>"
    assert summarize(prompt(1, plugin)).title == "/tools:lint"
    assert command_text("<command-message>init</command-message>") == "/init"
    # A built-in command's arguments set something; they never name the task (`/goal <condition>`).
    assert summarize(built_in(1, "goal", "make the report complete")).title == "/goal"


def test_a_later_name_still_wins_over_the_command_and_the_last_prompt():
    first = prompt(1, COMMAND.format("x"))
    renamed = {"type": "custom-title", "customTitle": "Parser review"}
    assert summarize(first, last_prompt("/review x"), renamed).title == "Parser review"
    job = {"type": "agent-name", "agentName": "nightly report"}
    assert summarize(first, renamed, job).title == "nightly report"  # the picker's order: the job's name first


def test_a_pasted_file_is_titled_by_its_text_on_one_line_not_its_wrapper():
    text = '\n\n<pasted_content id="b369">\nline 0 of the pasted file\nline 1\n</pasted_content>\n'
    assert summarize(prompt(1, text)).title == "line 0 of the pasted file line 1"
    assert without_paste_marks("no paste here\n<pasted_content") == "no paste here\n<pasted_content"
    after = 'summarize this\n<pasted_content id="1">\nbody\n</pasted_content>'
    assert summarize(prompt(1, after)).title == "summarize this body"
    recorded = "line 0 of the pasted file line 1 of the pasted file line 2 of the pasted file line 3 of the past…"
    assert summarize(prompt(1, text), last_prompt(recorded)).title == squashed(recorded)


def test_a_title_is_one_line_without_control_characters_and_cut():
    assert squashed("a\tb\x1b[31mc\r\nd") == "a b [31mc d"
    assert squashed("x" * 200) == "x" * 79 + "…"
    assert squashed(" \n ") is None
    assert summarize(prompt(1, "<div>not a prompt the picker shows</div>")).title is None


def _session(facts: Facts):
    return build_session(facts, Decision(State.READY, True))


def test_only_a_session_that_nothing_names_gets_its_project_and_start_time():
    start = dt.datetime(2026, 11, 30, 9, 5).timestamp()
    named = _session(Facts("claude", "s1", first_seen=start, cwd="/srv/shop", title="Fix the cart"))
    assert (named.title, named.untitled) == ("Fix the cart", False)
    unnamed = _session(Facts("claude", "s2", first_seen=start, cwd="/srv/shop"))
    assert (unnamed.title, unnamed.untitled) == ("shop · 2026-11-30 09:05", True)
    nowhere = _session(Facts("codex", "s3"))
    assert nowhere.title == "no project" and nowhere.untitled


@pytest.mark.parametrize("project", ["p", None])
def test_the_fallback_is_never_empty(project):
    assert fallback_title(project, None)


def test_a_long_title_gives_way_to_the_id_in_the_plain_table():
    from lunavect.frontends.table import render

    session = _session(Facts("claude", "1234567890abcdef", cwd="/p", title="a very long title " * 6))
    narrow = render([session], width=80).splitlines()
    assert all(len(line) <= 80 for line in narrow) and narrow[1].endswith("12345678") and "…" in narrow[1]
    assert "a very long title " * 5 in render([session], width=200)
