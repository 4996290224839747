"""The web panel's peek in a real browser against a real `lunavect web --allow-peek`: the row menu offers
"Peek and reply" to a control link, the pane shows the session's latest messages from its own transcript and a
record appended while it is open, and a reply that cannot be proven safe is refused with the reason; without
--allow-peek the menu does not offer it."""

from __future__ import annotations

import json
from pathlib import Path

from web_support import hook, isolated_env, open_page, start_web, stop_collector

SESSION = "eeeeeeee-5555-4555-8555-555555555555"
KEY = f"claude:{SESSION}"


def _record(text: str) -> bytes:
    record = {
        "type": "assistant",
        "isSidechain": False,
        "timestamp": "2026-11-30T09:00:00Z",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
    }
    return json.dumps(record).encode() + b"\n"


def _prompt(text: str) -> bytes:
    record = {"type": "user", "isSidechain": False, "message": {"role": "user", "content": text}}
    return json.dumps(record).encode() + b"\n"


def _session(tmp_path: Path) -> tuple[dict[str, str], Path]:
    env = isolated_env(tmp_path)
    hook(env, SESSION, "UserPromptSubmit", prompt="Peek at me", project="peeked")
    hook(env, SESSION, "Stop", last_assistant_message="Done.", background_tasks=[], project="peeked")
    folder = Path(env["CLAUDE_CONFIG_DIR"]) / "projects" / "-peeked"
    folder.mkdir(parents=True)
    transcript = folder / f"{SESSION}.jsonl"
    transcript.write_bytes(_prompt("Peek at me") + _record("First answer PEEK-ONE"))
    return env, transcript


def _menu_labels(page) -> list[str]:
    page.locator(f'li.row[data-id="{KEY}"]').click()
    page.keyboard.press("m")
    menu = page.locator("#menu")
    menu.wait_for(state="visible")
    return menu.locator("button").all_inner_texts()


def test_peek_shows_live_messages_and_refuses_an_unsafe_reply(tmp_path, browser) -> None:
    env, transcript = _session(tmp_path)
    served = start_web(env, "--allow-peek")
    try:
        page = open_page(browser, served.control)
        assert "Peek and reply" in _menu_labels(page)
        page.locator("#menu button", has_text="Peek and reply").click()
        page.locator("#peek").wait_for(state="visible")
        page.wait_for_function(
            "() => document.querySelector('#peek-list').textContent.includes('PEEK-ONE')", timeout=10_000
        )
        assert page.locator("#peek-list li").first.inner_text() == "› Peek at me"

        with transcript.open("ab") as out:
            out.write(_record("Appended while open PEEK-TWO"))
        page.wait_for_function(
            "() => document.querySelector('#peek-list li:last-child').textContent.includes('PEEK-TWO')",
            timeout=10_000,
        )
        page.locator("#peek-reply").fill("a reply nobody can prove safe")
        page.locator("#peek-reply").press("Enter")
        page.wait_for_function(
            "() => document.querySelector('#message-text').textContent.includes('nothing was typed')",
            timeout=20_000,
        )
        page.locator("#peek-close").click()
        page.locator("#peek").wait_for(state="hidden")
    finally:
        served.stop()
        stop_collector(env)


def test_without_allow_peek_the_menu_does_not_offer_it(tmp_path, browser) -> None:
    env, _ = _session(tmp_path)
    served = start_web(env)
    try:
        page = open_page(browser, served.control)
        assert "Peek and reply" not in _menu_labels(page)
        assert page.evaluate("fetch('/api/me').then(r => r.json())")["can_peek"] is False
    finally:
        served.stop()
        stop_collector(env)


def test_the_peeks_answers_follow_the_live_row(tmp_path, browser) -> None:
    """Allow / Deny stayed on the peek after the permission was answered elsewhere (issue 48, item 5): the peek
    follows its row, and offers the answers only while the permission waits."""
    env, _ = _session(tmp_path)
    tool = {"tool_name": "Bash", "tool_use_id": "toolu_1", "project": "peeked"}
    hook(env, SESSION, "UserPromptSubmit", prompt="Run it", project="peeked")
    hook(env, SESSION, "PreToolUse", **tool)
    hook(env, SESSION, "PermissionRequest", **tool)
    served = start_web(env, "--allow-peek")
    try:
        page = open_page(browser, served.control)
        page.wait_for_function(f"() => document.querySelector('li.row[data-id=\"{KEY}\"]') !== null")
        _menu_labels(page)
        page.locator("#menu button", has_text="Peek and reply").click()
        page.locator("#peek").wait_for(state="visible")
        page.locator("#peek-answers").wait_for(state="visible")
        assert "permission" in page.locator("#peek-title").inner_text().lower()

        hook(env, SESSION, "PostToolUse", **tool)  # approved in the pane: the tool ran

        page.locator("#peek-answers").wait_for(state="hidden", timeout=15_000)
        title = page.locator("#peek-title").inner_text()
        assert "Thinking" in title and "permission" not in title.lower()  # working, between its tools
        hook(env, SESSION, "PermissionRequest", **{**tool, "tool_use_id": "toolu_2", "tool_name": "Write"})
        page.locator("#peek-answers").wait_for(state="visible", timeout=15_000)
    finally:
        served.stop()
        stop_collector(env)
