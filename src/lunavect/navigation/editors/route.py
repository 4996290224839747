"""Returning to a session that runs in an editor: its integrated terminal, or the provider's own editor panel.

An agent runs in a window's terminal when one of its parent processes is the shell of a terminal that
window's companion lists (the editor's pty host sits above that shell). That window is asked to show
exactly that terminal; every other case has its own reason, and nothing guesses another terminal:

- a window lists the shell: it is asked, and answers focused, the terminal gone, or the window unreachable;
  a socket that refuses is a window that closed, no answer in 10 s a timeout;
- a window that closed listed it: its terminal outlived it (code-server keeps a closed tab's shells);
- the editor above the shell has windows with companions, none listing it: its window closed;
- an editor is above the shell and no companion answers: not installed, or installed but not running.

The rules take the process chain, the registrations and the asking function, so they are tested with
invented ones; `lunavect.navigation.navigate` calls them with the live ones.
"""

from __future__ import annotations

from collections.abc import Callable

from lunavect.core.clients import by_id
from lunavect.host.processes import Proc
from lunavect.navigation.editors import ask as asking
from lunavect.navigation.editors.windows import START_SLACK_S, Registrations, Window
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals import detect

Asker = Callable[[Window, dict], "asking.Answer | asking.NoAnswer"]

# Editors lunavect has a companion for: the VS Code family. JetBrains IDEs have none (yet): the channel is
# documented (docs/editor-companion-protocol.md) for a plugin to speak.
JETBRAINS = detect.JETBRAINS


def _install_hint(editor: str) -> str:
    return f"lunavect editors install {editor}"


def _shown(window: Window, shell: Proc, answer: asking.Answer) -> OpenResult:
    body = answer.body
    shown = body["shown"] if isinstance(body.get("shown"), dict) else {}
    active = body["active"] if isinstance(body.get("active"), dict) else {}
    target = f"{window.id}:{shell.pid}"
    if shown.get("pid") != shell.pid or active.get("pid") != shell.pid:
        return OpenResult(
            Outcome.FAILED, f"{window.app} showed another terminal than asked", terminal=window.app, target=target
        )
    terminal = window.terminal(shell.pid)
    name = f' "{terminal.name}"' if terminal and terminal.name else ""
    where = "its window is in front" if body.get("raised") is True else "in its window"
    if window.ui == "web":
        where = "in its browser tab"
    return OpenResult(
        Outcome.FOCUSED,
        f"the {window.app} terminal{name} (shell pid {shell.pid}) is the active one, {where}",
        terminal=window.app,
        target=target,
    )


def show_in(window: Window, shell: Proc, asker: Asker) -> OpenResult:
    """Ask `window` to show the terminal whose shell is `shell`."""
    target = f"{window.id}:{shell.pid}"

    def about_it(outcome: Outcome, words: str) -> OpenResult:
        """What is said of the terminal this window holds names both the window's app and that terminal."""
        return OpenResult(outcome, words, terminal=window.app, target=target)

    answer = asker(window, {"op": "show", "pid": shell.pid})
    if isinstance(answer, asking.NoAnswer):
        if answer.why == asking.CLOSED:
            return about_it(
                Outcome.GONE, f"the {window.app} window that holds its terminal has closed ({answer.detail})"
            )
        if answer.why == asking.TIMEOUT:
            return about_it(Outcome.TIMEOUT, f"the {window.app} window: {answer.detail}")
        return OpenResult(Outcome.FAILED, f"the {window.app} window: {answer.detail}", terminal=window.app)
    if answer.ok:
        return _shown(window, shell, answer)
    if answer.error == "terminal-gone":
        return about_it(Outcome.GONE, f"its terminal (shell pid {shell.pid}) is gone from its {window.app} window")
    if answer.error == "window-unreachable":
        return about_it(
            Outcome.GONE, f"its {window.app} window does not answer: it is closed, or its browser tab is gone"
        )
    return about_it(Outcome.FAILED, f"{window.app}: {answer.message or answer.error or 'the companion refused'}")


def _editor_above(chain: list[Proc]) -> Proc | None:
    host = detect.terminal_host(chain)
    return host.proc if host is not None and host.kind == detect.EDITOR else None


def _up_to_its_terminal(chain: list[Proc]) -> list[Proc]:
    """The agent and its parents up to the first terminal of another kind: a kitty or an xterm started from an
    editor's terminal holds the agent itself, and the editor's shell above it is not the session's terminal."""
    for index, proc in enumerate(chain[1:], start=1):
        kind = detect.kind_of(proc)
        if kind is not None and kind not in (detect.EDITOR, detect.APP):
            return chain[:index]
    return chain


def focus_terminal(
    chain: list[Proc], registrations: Registrations, installed: Callable[[str], bool], asker: Asker = asking.ask
) -> OpenResult | None:
    """Where `chain` (the agent and its parents, nearest first) runs in an editor's terminal, bring that
    terminal forward or say exactly why not; None when no editor is above it."""
    chain = _up_to_its_terminal(chain)
    for window in registrations.windows:
        shell = next((p for p in chain if window.holds(p)), None)
        if shell is not None:
            return show_in(window, shell, asker)
    for closed in registrations.closed:
        for proc in chain:
            listed = any(t.pid == proc.pid for t in closed.terminals)
            # A shell that started after the window closed has only reused the pid.
            if listed and (proc.started is None or proc.started <= closed.closed + START_SLACK_S):
                return OpenResult(
                    Outcome.GONE,
                    f"the {closed.app or 'editor'} window that showed its terminal (shell pid {proc.pid}) has "
                    "closed; the terminal still runs, but no window shows it",
                    terminal=closed.app or None,
                    target=f"{closed.id}:{proc.pid}",
                )
    pids = {p.pid for p in chain}
    for window in registrations.windows:
        if window.editor_pid is not None and window.editor_pid in pids:
            return OpenResult(
                Outcome.GONE,
                f"it runs in a terminal of {window.app}, but no open {window.app} window lists that terminal: "
                "the window that showed it has closed",
                terminal=window.app,
            )
    editor = _editor_above(chain)
    if editor is None:
        return None
    name = editor.name or editor.exe_name
    if name in JETBRAINS:
        return OpenResult(
            Outcome.UNSUPPORTED,
            f"it runs in a terminal of {name}; lunavect has no JetBrains companion yet "
            "(docs/editor-companion-protocol.md describes what one would speak)",
            terminal=name,
        )
    if not installed("vscode"):
        return OpenResult(
            Outcome.UNSUPPORTED,
            f"it runs in a terminal of the editor {name}, and lunavect's companion is not installed there: "
            f"{_install_hint('vscode')} (then reload the window)",
            terminal=name,
        )
    return OpenResult(
        Outcome.UNSUPPORTED,
        f"it runs in a terminal of the editor {name}, whose windows' companion does not answer: reload the "
        "window (Developer: Reload Window) so the companion starts in it",
        terminal=name,
    )


def open_panel(
    provider: str,
    session_id: str,
    app: str | None,
    chain: list[Proc],
    registrations: Registrations,
    asker: Asker = asking.ask,
) -> OpenResult | None:
    """A session in a provider's own editor panel (its descriptor's `editor_panel` origin): a panel that opens a
    given session (Claude Code's) is asked, through the companion of the window whose extension host runs it, to
    show the session; another (Codex's) cannot be. None when `app` is no editor panel."""
    client = by_id(provider)
    if client is None or client.origins.editor_panel is None or app != client.origins.editor_panel:
        return None
    if not client.origins.panel_opens:
        return OpenResult(
            Outcome.UNSUPPORTED,
            f"it runs in {client.name}'s own VS Code panel, and {client.name}'s extension offers no way for another "
            "program to open a given conversation",
            terminal=f"{client.name} (VS Code)",
        )
    pids = {p.pid for p in chain}
    window = next((w for w in registrations.windows if w.host_pid in pids), None)
    if window is None:
        return OpenResult(
            Outcome.UNSUPPORTED,
            f"it runs in {client.name}'s own VS Code panel, in a window without lunavect's companion "
            f"({_install_hint('vscode')}, then reload the window)",
            terminal=client.origins.editor_panel,
        )
    answer = asker(window, {"op": "panel", "provider": client.id, "session": session_id})
    if isinstance(answer, asking.NoAnswer):
        outcome = Outcome.TIMEOUT if answer.why == asking.TIMEOUT else Outcome.GONE
        return OpenResult(outcome, f"the {window.app} window: {answer.detail}", terminal=window.app)
    if answer.ok:
        return OpenResult(
            Outcome.FOCUSED,
            f"asked {client.name}'s extension in {window.app} to show this session's tab",
            terminal=window.app,
            target=f"{window.id}:{session_id}",
        )
    if answer.error == "no-extension":
        return OpenResult(
            Outcome.UNSUPPORTED,
            f"{client.name}'s extension is not installed in that {window.app} window",
            terminal=window.app,
        )
    return OpenResult(
        Outcome.FAILED, f"{window.app}: {answer.message or answer.error or 'refused'}", terminal=window.app
    )
