"""Every session has the title its client shows (shapes as Claude Code 2.1.328 writes them), and only a
session that nothing names gets lunavect's own: its project and start time."""

from __future__ import annotations

import datetime as dt

import pytest
from test_claude_records import prompt, rec, summarize

from lunavect.claude.titles import command_text, without_paste_marks
from lunavect.collector.snapshot import build_session, fallback_title
from lunavect.core.model import State
from lunavect.core.rules import Decision, Facts

COMMAND = (
    "<command-message>review</command-message>\n<command-name>/review</command-name>\n<command-args>{}</command-args>"
)


def test_a_slash_command_with_arguments_is_titled_as_the_client_shows_it():
    first = prompt(1, COMMAND.format("the parser module"))
    expansion = prompt(2, "Review this code carefully: the parser module", isMeta=True)
    assert summarize(first, expansion, prompt(3, "another prompt")).title == "/review the parser module"


def test_a_slash_command_without_arguments_and_a_plugin_command():
    assert summarize(prompt(1, COMMAND.format(""))).title == "/review"
    plugin = "<command-message>tools:lint</command-message>\n<command-name>/tools:lint</command-name>"
    assert summarize(prompt(1, plugin)).title == "/tools:lint"
    assert command_text("<command-message>init</command-message>") == "/init"


def test_a_later_name_still_wins_over_the_command():
    first = prompt(1, COMMAND.format("x"))
    renamed = {"type": "custom-title", "customTitle": "Parser review"}
    assert summarize(first, renamed).title == "Parser review"


def test_a_pasted_file_is_titled_by_its_text_not_its_wrapper():
    text = '\n\n<pasted_content id="b369">\nline 0 of the pasted file\nline 1\n</pasted_content>\n'
    assert summarize(prompt(1, text)).title == "line 0 of the pasted file"
    assert without_paste_marks("no paste here\n<pasted_content") == "no paste here\n<pasted_content"
    after = 'summarize this\n<pasted_content id="1">\nbody\n</pasted_content>'
    assert summarize(prompt(1, after)).title == "summarize this"


def test_an_image_alone_is_titled_as_the_client_labels_it():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    alone = rec("user", 1, message={"role": "user", "content": [image]}, origin={"kind": "human"})
    summary = summarize(alone)
    assert summary.title == "[Image #1]" and summary.prompts == 1
    with_text = rec("user", 1, message={"role": "user", "content": [image, {"type": "text", "text": "what is this"}]})
    assert summarize(with_text).title == "what is this"


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
