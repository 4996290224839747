"""Returning to a session in an editor, decided from invented process chains and registrations: the window
whose companion lists the agent's shell is asked (and each of its answers, or its silence, has its own
outcome), a closed window is named as closed, and nothing is ever guessed."""

from __future__ import annotations

from pathlib import Path

from lunavect.host.processes import Proc
from lunavect.navigation.editors import ask as asking
from lunavect.navigation.editors import route
from lunavect.navigation.editors.windows import ClosedWindow, Registrations, Terminal, Window
from lunavect.navigation.open_result import Outcome

SERVER = Proc(500, 400, "node", "node", None, 100.0)
PTY_HOST = Proc(600, 500, "node", "node", None, 110.0)
SHELL_A = Proc(700, 600, "bash", "bash", "/dev/pts/4", 120.0)
SHELL_B = Proc(701, 600, "bash", "bash", "/dev/pts/5", 121.0)
CLAUDE = Proc(800, 700, "claude", "claude", "/dev/pts/4", 130.0)
EXT_HOST = Proc(650, 500, "node", "node", None, 111.0)
PANEL_CLAUDE = Proc(900, 650, "claude", "claude", None, 140.0)


def window(*terminals: int, editor_pid: int = 500, ident: str = "0123456789ab", ui: str = "web") -> Window:
    return Window(
        id=ident,
        socket=Path(f"/nonexistent/{ident}.sock"),
        host_pid=650,
        editor_pid=editor_pid,
        started=100.0,
        updated=150.0,
        app="code-server",
        ui=ui,
        companion="0.1.0",
        terminals=tuple(Terminal(pid, "bash") for pid in terminals),
        active=None,
        panels=frozenset(),
    )


class Asker:
    """Answers as the companion would, and records what it was asked."""

    def __init__(self, answer: asking.Answer | asking.NoAnswer) -> None:
        self.answer = answer
        self.asked: list[tuple[str, dict]] = []

    def __call__(self, w: Window, request: dict) -> asking.Answer | asking.NoAnswer:
        self.asked.append((w.id, request))
        return self.answer


def shown(pid: int, raised: bool = False) -> asking.Answer:
    entry = {"pid": pid, "name": "bash"}
    return asking.Answer(ok=True, body={"ok": True, "shown": entry, "active": entry, "raised": raised})


def never(*_args: object) -> bool:
    return False


def test_the_window_listing_the_agents_shell_is_asked_for_exactly_that_shell() -> None:
    chain = [CLAUDE, SHELL_A, PTY_HOST, SERVER]
    asker = Asker(shown(700))
    other = window(999, ident="ba9876543210")
    result = route.focus_terminal(chain, Registrations([other, window(701, 700)], []), never, asker)
    assert result is not None and result.outcome == Outcome.FOCUSED
    assert result.target == "0123456789ab:700" and result.terminal == "code-server"
    assert "shell pid 700" in result.message and "browser tab" in result.message
    assert asker.asked == [("0123456789ab", {"op": "show", "pid": 700})]


def test_an_answer_naming_another_terminal_is_a_failure_not_a_focus() -> None:
    chain = [CLAUDE, SHELL_A, PTY_HOST, SERVER]
    result = route.focus_terminal(chain, Registrations([window(700, 701)], []), never, Asker(shown(701)))
    assert result is not None and result.outcome == Outcome.FAILED


def test_each_way_of_not_answering_has_its_own_outcome() -> None:
    chain = [CLAUDE, SHELL_A, PTY_HOST, SERVER]
    regs = Registrations([window(700)], [])
    cases = [
        (asking.NoAnswer(asking.CLOSED, "nothing listens on its companion's socket"), Outcome.GONE, "has closed"),
        (asking.NoAnswer(asking.TIMEOUT, "its companion did not answer within 10 s"), Outcome.TIMEOUT, "10 s"),
        (asking.NoAnswer(asking.BROKEN, "its companion's answer was not one"), Outcome.FAILED, "not one"),
        (asking.Answer(ok=False, error="terminal-gone"), Outcome.GONE, "is gone from its code-server window"),
        (asking.Answer(ok=False, error="window-unreachable"), Outcome.GONE, "browser tab is gone"),
        (asking.Answer(ok=False, error="not-shown", message="no"), Outcome.FAILED, "no"),
    ]
    for answer, outcome, words in cases:
        result = route.focus_terminal(chain, regs, never, Asker(answer))
        assert result is not None and result.outcome == outcome and words in result.message, (answer, result)


def test_a_window_that_ended_without_cleaning_up_is_not_asked_about_a_pid_reused_since() -> None:
    reused = Proc(700, 600, "bash", "bash", "/dev/pts/4", 400.0)  # started after the registration's last write
    asker = Asker(shown(700))
    regs = Registrations([window(700, editor_pid=123)], [])
    assert route.focus_terminal([CLAUDE, reused, PTY_HOST, SERVER], regs, never, asker) is None
    assert asker.asked == []


def test_a_closed_windows_terminal_is_named_as_such_and_nobody_is_asked() -> None:
    chain = [CLAUDE, SHELL_A, PTY_HOST, SERVER]
    closed = ClosedWindow("0123456789ab", "code-server", 200.0, 500, (Terminal(700, "bash"),))
    asker = Asker(shown(700))
    result = route.focus_terminal(chain, Registrations([], [closed]), never, asker)
    assert result is not None and result.outcome == Outcome.GONE
    assert "window that showed its terminal (shell pid 700) has closed" in result.message
    assert asker.asked == []


def test_a_shell_that_started_after_its_pids_window_closed_only_reused_the_pid() -> None:
    late_shell = Proc(700, 600, "bash", "bash", "/dev/pts/4", 500.0)
    closed = ClosedWindow("0123456789ab", "code-server", 200.0, 123, (Terminal(700, "bash"),))
    assert route.focus_terminal([CLAUDE, late_shell, PTY_HOST, SERVER], Registrations([], [closed]), never) is None


def test_an_editor_above_the_shell_without_a_window_listing_it_says_the_window_closed() -> None:
    chain = [CLAUDE, SHELL_A, PTY_HOST, SERVER]
    asker = Asker(shown(701))
    result = route.focus_terminal(chain, Registrations([window(701)], []), never, asker)
    assert result is not None and result.outcome == Outcome.GONE and "has closed" in result.message
    assert asker.asked == []


def test_a_desktop_vs_code_without_the_companion_names_the_install_command() -> None:
    code = Proc(600, 1, "code", "code", None, 1.0)
    chain = [CLAUDE, SHELL_A, code]
    missing = route.focus_terminal(chain, Registrations([], []), never)
    assert missing is not None and missing.outcome == Outcome.UNSUPPORTED
    assert "lunavect editors install vscode" in missing.message
    silent = route.focus_terminal(chain, Registrations([], []), lambda editor: editor == "vscode")
    assert silent is not None and silent.outcome == Outcome.UNSUPPORTED and "Reload Window" in silent.message
    idea = route.focus_terminal([CLAUDE, SHELL_A, Proc(600, 1, "idea", "idea")], Registrations([], []), never)
    assert idea is not None and "no JetBrains companion" in idea.message


def test_no_editor_above_the_agent_is_none_of_this_routes_business() -> None:
    tmux = Proc(600, 1, "tmux: server", "tmux")
    assert route.focus_terminal([CLAUDE, SHELL_A, tmux], Registrations([window(999)], []), never) is None


def test_a_terminal_started_from_an_editors_terminal_holds_the_agent_not_the_editor() -> None:
    """kitty run from a code-server terminal: the agent's chain passes that terminal's shell, which is not
    the session's terminal."""
    kitty = Proc(750, 700, "kitty", "kitty", None, 125.0)
    inner = Proc(760, 750, "bash", "bash", "/dev/pts/9", 126.0)
    agent = Proc(770, 760, "claude", "claude", "/dev/pts/9", 127.0)
    asker = Asker(shown(700))
    chain = [agent, inner, kitty, SHELL_A, PTY_HOST, SERVER]
    assert route.focus_terminal(chain, Registrations([window(700)], []), never, asker) is None
    assert asker.asked == []


def test_claude_codes_panel_is_asked_through_the_window_whose_extension_host_runs_it() -> None:
    chain = [PANEL_CLAUDE, EXT_HOST, SERVER]
    asker = Asker(asking.Answer(ok=True, body={"ok": True, "opened": "claude"}))
    result = route.open_panel("claude", "5f0c2a9e-3b1d", "claude-vscode", chain, Registrations([window()], []), asker)
    assert result is not None and result.outcome == Outcome.FOCUSED
    assert asker.asked == [("0123456789ab", {"op": "panel", "provider": "claude", "session": "5f0c2a9e-3b1d"})]
    none = route.open_panel("claude", "5f0c2a9e-3b1d", "claude-vscode", chain, Registrations([], []))
    assert none is not None and none.outcome == Outcome.UNSUPPORTED and "lunavect editors install" in none.message
    missing = Asker(asking.Answer(ok=False, error="no-extension"))
    result = route.open_panel("claude", "5f0c2a9e-3b1d", "claude-vscode", chain, Registrations([window()], []), missing)
    assert result is not None and result.outcome == Outcome.UNSUPPORTED and "not installed" in result.message


def test_codexs_panel_cannot_be_opened_on_a_conversation_and_says_so() -> None:
    result = route.open_panel("codex", "019c8a59-e9dd", "vscode", [], Registrations([window()], []), Asker(shown(1)))
    assert result is not None and result.outcome == Outcome.UNSUPPORTED
    assert "offers no way for another program to open a given conversation" in result.message
    assert route.open_panel("claude", "x", "desktop", [], Registrations([], [])) is None
