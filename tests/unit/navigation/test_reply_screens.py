"""Reading the clients' screens before typing (lunavect.navigation.pane_text, on screens the real Claude Code
2.1.328 and Codex 0.169.0 drew under tmux), and the refusals of reply and answer, which never type."""

from __future__ import annotations

from pathlib import Path

import pytest

from lunavect.clients.claude import pane as claude_pane
from lunavect.clients.codex import pane as codex_pane
from lunavect.core import pane_reading
from lunavect.core.model import State
from lunavect.navigation import pane_text as screens
from lunavect.navigation import reply as reply_module
from lunavect.navigation.locate import Status, Whereabouts

SCREENS = Path(__file__).with_name("screens")


def screen(name: str) -> str:
    return (SCREENS / f"{name}.txt").read_text()


@pytest.mark.parametrize(
    ("name", "provider", "empty"),
    [
        ("claude_empty", "claude", True),
        ("claude_ready", "claude", True),
        ("claude_draft", "claude", False),
        ("claude_permission", "claude", None),
        ("codex_loading", "codex", True),
        ("codex_ready", "codex", True),
        ("codex_draft", "codex", False),
        ("codex_permission", "codex", None),
        ("claude_ready", "codex", None),
        ("codex_ready", "claude", None),
        # A reply drew a box of ─│╭╮ and the input box's own shape higher up (recorded from the real clients).
        ("claude_box_ready", "claude", True),
        ("claude_box_wrapped_draft", "claude", False),
        ("claude_box_second_row_draft", "claude", False),
        ("codex_box_ready", "codex", True),
        ("codex_box_wrapped_draft", "codex", False),
        ("codex_box_second_row_draft", "codex", False),  # `›` row empty, the draft on the row below
        # After a failed turn the empty box's placeholder invites a resend, the cursor on its first letter.
        ("claude_error_resend", "claude", True),
    ],
)
def test_the_prompt_is_recognised_and_a_draft_is_not_overwritten(name: str, provider: str, empty: bool | None) -> None:
    assert screens.prompt_empty(provider, screen(name)) is empty


def _box_at_column_one(name: str) -> str:
    """A recorded draft screen with the reply's box-shaped block moved to the first column: rule, `❯`, rule
    high on the screen, as the input box draws them (the issue's stand-in, edited from a real screen)."""
    rows = screen(name).split("\n")
    drawn = [i for i, row in enumerate(rows) if pane_reading.plain(row).rstrip() in ("  " + "─" * 60, "  ❯")]
    assert len(drawn) == 3 and drawn == list(range(drawn[0], drawn[0] + 3)), drawn
    for i in drawn:
        rows[i] = rows[i].removeprefix("  ")
    return "\n".join(rows)


@pytest.mark.parametrize("name", ["claude_box_wrapped_draft", "claude_box_second_row_draft"])
def test_a_box_shaped_block_above_a_draft_is_not_taken_for_the_input_box(monkeypatch, name) -> None:
    shown = _box_at_column_one(name)
    assert screens.prompt_empty("claude", shown) is False
    pane = Typist(shown)
    _placed(monkeypatch, LIVE, pane)
    result = reply_module.reply(Session(), "hello", state=State.READY, table=object(), environ={})
    assert result.outcome == "refused" and "already holds typed text" in result.message, result.message
    assert pane.typed == []


def test_only_the_footer_may_stand_below_the_input_box(monkeypatch) -> None:
    ready = screen("claude_box_ready").rstrip("\n")
    assert screens.prompt_empty("claude", ready + "\n  a status line\n  and another") is True
    for below in ("\n  one more row" * (claude_pane.FOOTER_ROWS + 1), "\n❯ ", "\n──── a rule"):
        reading = claude_pane.read_prompt(ready + below)
        assert reading.empty is None and "rows other than the footer" in reading.why, below
    codex = screen("codex_box_ready").rstrip("\n")
    for below in ("\n\n  another row", "\n  one\n  two\n  three"):
        assert codex_pane.read_prompt(codex + below).empty is None, below
    pane = Typist(ready + "\n❯ ")
    _placed(monkeypatch, LIVE, pane)
    result = reply_module.reply(Session(), "hello", state=State.READY, table=object(), environ={})
    assert "does not show Claude Code's prompt (rows other than the footer" in result.message, result.message
    assert pane.typed == []


def test_a_shell_or_another_program_shows_no_prompt() -> None:
    for text in ("$ cat\n", "user@host:~$ \n", "❯ \n", "› Ask Codex to do anything\n", ""):
        assert screens.prompt_empty("claude", text) is None
        assert screens.prompt_empty("codex", text) is None


def test_claude_permission_dialog() -> None:
    dialog = screens.dialog("claude", screen("claude_permission"))
    assert dialog is not None and dialog.tool == "Bash"
    assert (dialog.key("allow"), dialog.key("allow-always"), dialog.key("deny")) == ("1", "2", "4")
    assert screens.dialog("claude", screen("claude_ready")) is None
    assert screens.dialog("codex", screen("claude_permission")) is None


@pytest.mark.parametrize(
    ("name", "tool", "keys"),
    [
        # `2. Yes, and don’t ask again for: python3 -c ...`: a typographic apostrophe and a colon.
        ("claude_permission_dont_ask", "Bash", ("1", "2", "4")),
        # A new file and an edit: "Yes, and switch to accept edits ... for this session (shift+tab)".
        ("claude_permission_write", "Write", ("1", "2", "3")),
        ("claude_permission_edit", "Edit", ("1", "2", "3")),
    ],
)
def test_claude_dialogs_offer_allow_always_in_each_wording_the_client_uses(name, tool, keys) -> None:
    # Recorded from the real Claude Code 2.1.328 (issue 48, item 6): `answer allow-always` was refused on the
    # first of these.
    dialog = screens.dialog("claude", screen(name))
    assert dialog is not None and dialog.tool == tool
    assert (dialog.key("allow"), dialog.key("allow-always"), dialog.key("deny")) == keys
    # "switch to auto mode" is not "allow always": it hands every later prompt to auto mode.
    assert dialog.key("allow-always") not in [k for k, label in dialog.options.items() if "auto mode" in label]


def test_codex_approval_dialog_uses_its_own_keys() -> None:
    dialog = screens.dialog("codex", screen("codex_permission"))
    assert dialog is not None and dialog.tool == "Bash"
    assert (dialog.key("allow"), dialog.key("allow-always"), dialog.key("deny")) == ("y", "p", "Escape")


def test_an_unrecognised_dialog_is_none() -> None:
    altered = screen("claude_permission").replace(" Bash command", " Frobnicate thing")
    assert screens.dialog("claude", altered) is None
    no_options = "\n".join(line for line in screen("claude_permission").splitlines() if ". " not in line)
    assert screens.dialog("claude", no_options) is None


class Session:
    id = "claude:s1"
    provider = "claude"
    session_id = "s1"
    cwd = "/somewhere"
    pid = 1234
    tty = "/dev/pts/9"
    host = None
    open = True


class Typist:
    """A pane that records every key: the refusals must leave it empty."""

    def __init__(self, shows: str) -> None:
        self.shows, self.typed = shows, []
        self.target = "%9"

    def screen(self, escapes: bool = False) -> str:
        return self.shows

    def type(self, text: str) -> bool:
        self.typed.append(text)
        return True

    def key(self, name: str) -> bool:
        self.typed.append(name)
        return True


def _placed(monkeypatch: pytest.MonkeyPatch, where: Whereabouts | str, pane: Typist | None = None) -> None:
    """Place the session at `where`, or on the synced host named `where`."""
    elsewhere = isinstance(where, str)
    monkeypatch.setattr(reply_module.remote_host, "is_elsewhere", lambda host: elsewhere)
    Session.host = where if elsewhere else None
    monkeypatch.setattr(reply_module, "whereabouts", lambda session, table, others: where)
    if pane is not None:
        monkeypatch.setattr(reply_module.tmux, "find_pane", lambda sockets, tty, hint: object())
        monkeypatch.setattr(reply_module, "TmuxPane", lambda found: pane)
        monkeypatch.setattr(reply_module, "foreground", lambda pid: True)
        monkeypatch.setattr(reply_module.tmux, "server_sockets", lambda table, pid: [])


LIVE = Whereabouts(Status.LIVE, pid=1234, tty="/dev/pts/9", via="hook")


@pytest.mark.parametrize(
    ("state", "where", "shows", "words"),
    [
        (State.WORKING, LIVE, "claude_empty", "it does not wait for you now (Working)"),
        (State.BACKGROUND, LIVE, "claude_empty", "it does not wait for you now (In background)"),
        (State.PERMISSION, LIVE, "claude_empty", "lunavect answer"),
        (
            State.READY,
            Whereabouts(Status.AMBIGUOUS, detail="two sessions in /somewhere"),
            "claude_empty",
            "cannot tell",
        ),
        (State.READY, Whereabouts(Status.FINISHED, detail="its process has exited"), "claude_empty", "exited"),
        (State.READY, "far", "claude_empty", "host far"),
        (State.READY, LIVE, "claude_draft", "already holds typed text"),
        (State.READY, LIVE, "claude_permission", "does not show Claude Code's prompt"),
        (State.IDLE, LIVE, "codex_ready", "does not show Claude Code's prompt"),
        # A failed turn takes a reply only where the client itself invites one.
        (State.ERROR, LIVE, "claude_ready", "shows no Claude Code offer to resend"),
    ],
)
def test_replies_are_refused_without_typing(monkeypatch, state, where, shows, words) -> None:
    pane = Typist(screen(shows))
    _placed(monkeypatch, where, pane)
    result = reply_module.reply(Session(), "hello", state=state, table=object(), environ={})
    assert not result.ok and result.outcome == "refused" and words in result.message, result.message
    assert "nothing was typed" in result.message
    # The way to go on: the session's own pane while its client runs (a resume would start a second client on
    # it: issue 48, item 6), its resume command once it has ended.
    finished = isinstance(where, Whereabouts) and where.status is Status.FINISHED
    way_back = "cd /somewhere && claude --resume s1" if finished else "lunavect open claude:s1"
    assert f"(to continue it yourself: {way_back})" in result.message, result.message
    assert pane.typed == []


@pytest.mark.parametrize(
    ("state", "shows", "expected", "words"),
    [
        (State.READY, "claude_permission", "Bash", "waits for no permission now (Response ready)"),
        (State.PERMISSION, "claude_ready", "Bash", "no Claude Code permission dialog"),
        (State.PERMISSION, "claude_permission", "Write", "asks for Bash, not Write"),
    ],
)
def test_answers_are_refused_without_a_key(monkeypatch, state, shows, expected, words) -> None:
    pane = Typist(screen(shows))
    _placed(monkeypatch, LIVE, pane)
    result = reply_module.answer(Session(), "allow", state=state, expected_tool=expected, table=object(), environ={})
    assert not result.ok and words in result.message, result.message
    assert result.message.endswith("(to continue it yourself: lunavect open claude:s1)"), result.message
    assert "--resume" not in result.message
    assert pane.typed == []


def test_a_dialog_without_allow_always_is_refused_with_the_way_to_its_pane(monkeypatch) -> None:
    shown = screen("claude_permission_write").replace("2. Yes, and switch to accept edits", "2. Yes, and frobnicate")
    pane = Typist(shown)
    _placed(monkeypatch, LIVE, pane)
    result = reply_module.answer(
        Session(), "allow-always", state=State.PERMISSION, expected_tool="Write", table=object(), environ={}
    )
    assert not result.ok and "offers no allow-always" in result.message, result.message
    assert result.command == "lunavect open claude:s1" and "--resume" not in result.message
    assert pane.typed == []


@pytest.mark.parametrize(
    ("provider", "ready", "typed"),
    [
        ("claude", "claude_box_ready", "claude_box_wrapped_draft"),
        ("codex", "codex_box_ready", "codex_box_wrapped_draft"),
    ],
)
def test_the_empty_input_box_under_a_box_shaped_reply_takes_the_reply(monkeypatch, provider, ready, typed) -> None:
    pane = Typist(screen(ready))
    _placed(monkeypatch, LIVE, pane)
    pane.type = lambda text: pane.typed.append(text) or setattr(pane, "shows", screen(typed)) or True  # type: ignore[method-assign]
    pane.key = lambda name: pane.typed.append(name) or setattr(pane, "shows", screen(ready)) or True  # type: ignore[method-assign]
    monkeypatch.setattr(Session, "provider", provider)
    timing = reply_module.Timing(enter_after_s=0, confirm_s=2, poll_s=0.01)
    result = reply_module.reply(Session(), "hello", state=State.READY, table=object(), environ={}, timing=timing)
    assert result.ok and result.outcome == "sent" and pane.typed == ["hello", "Enter"], result.message


def test_a_recognised_dialog_gets_its_own_key_and_is_confirmed_closed(monkeypatch) -> None:
    pane = Typist(screen("claude_permission"))
    original_key = pane.key

    def press(name: str) -> bool:
        pane.shows = screen("claude_ready")  # the dialog closed
        return original_key(name)

    pane.key = press  # type: ignore[method-assign]
    _placed(monkeypatch, LIVE, pane)
    timing = reply_module.Timing(settle_s=0, confirm_s=2, retry_every_s=0.5, poll_s=0.01)
    result = reply_module.answer(
        Session(), "deny", state=State.PERMISSION, expected_tool="Bash", table=object(), environ={}, timing=timing
    )
    assert result.ok and pane.typed == ["4"]


def test_claude_code_invites_a_resend_after_a_failed_turn_and_takes_the_reply_there(monkeypatch) -> None:
    """The real Claude Code's screen after a 529 (recorded): its empty prompt's placeholder says "Resend your
    message to try again", and a reply is typed there as at a ready prompt; no other screen or client offers it."""
    assert screens.offers_resend("claude", screen("claude_error_resend"))
    assert not screens.offers_resend("claude", screen("claude_ready"))
    assert not screens.offers_resend("codex", screen("claude_error_resend"))
    failed = screen("claude_error_resend")
    pane = Typist(failed)
    _placed(monkeypatch, LIVE, pane)
    pane.type = lambda text: pane.typed.append(text) or setattr(pane, "shows", screen("claude_draft")) or True  # type: ignore[method-assign]
    pane.key = lambda name: pane.typed.append(name) or setattr(pane, "shows", screen("claude_ready")) or True  # type: ignore[method-assign]
    timing = reply_module.Timing(enter_after_s=0, confirm_s=2, poll_s=0.01)
    result = reply_module.reply(Session(), "again", state=State.ERROR, table=object(), environ={}, timing=timing)
    assert result.ok and result.outcome == "sent" and pane.typed == ["again", "Enter"], result.message
