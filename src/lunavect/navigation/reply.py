"""Answering a session from outside its terminal: typing a reply into its exact pane, or pressing a key of
its permission dialog. Both fail closed.

A reply is typed only when all of these hold: the session waits for its person (response ready, input
needed, idle, or a failed turn whose client's own screen invites a resend); its terminal is proven its own by
the evidence `lunavect open` uses (lunavect.navigation.locate) and is a tmux pane; the session's process holds
that terminal's foreground; and the pane's screen shows the client's own prompt with nothing typed in it. An answer is pressed only when the session needs a
permission, the screen shows that client's dialog for the tool lunavect expects, and the dialog offers the
answer; the screen is read again to confirm the dialog closed. Anything else is refused with the reason
and, where it helps, the resume command (for a session its client runs in the background, whose terminal is
its service's, the attach command). Nothing typed is stored or logged.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from lunavect.core.clients import ENTER_AFTER_S, by_id, name_of
from lunavect.core.model import State
from lunavect.core.resume_command import attach_command, display_command
from lunavect.core.state_words import STATE_WORDS
from lunavect.host.processes import LiveProcesses, ProcessTable
from lunavect.navigation import background, remote_host
from lunavect.navigation import pane_text as screens
from lunavect.navigation.locate import SessionLike, Status
from lunavect.navigation.navigate import background_job, whereabouts
from lunavect.navigation.pane_io import TmuxPane
from lunavect.navigation.terminals import tmux

# States in which a session waits for its person: a reply goes only to these, and to a failed turn where the
# client's own screen invites the person to resend their message (`pane_text.offers_resend`).
REPLY_STATES = frozenset({State.READY, State.INPUT, State.IDLE})
ANSWERS = ("allow", "allow-always", "deny")


@dataclass(frozen=True)
class Timing:
    """Waits around keys: a dialog ignores keys for a moment after it appears; a client's screen takes a moment
    to take typed text before Enter (`enter_after_s`; None: the client's own wait, `Client.enter_after_s`:
    Codex's TUI holds an Enter typed right after text in its key-burst buffer); a screen takes a moment to
    show what was typed."""

    settle_s: float = 0.4
    enter_after_s: float | None = None
    confirm_s: float = 8.0
    retry_every_s: float = 1.0
    poll_s: float = 0.1


@dataclass(frozen=True)
class ReplyResult:
    ok: bool
    outcome: str  # sent, answered, refused, failed
    message: str
    target: str | None = None
    command: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "ok": self.ok,
            "outcome": self.outcome,
            "message": self.message,
            "target": self.target,
            "command": self.command,
        }


def _refuse(
    why: str,
    session: SessionLike | None = None,
    target: str | None = None,
    command: str | None = None,
    *,
    live: bool | None = None,
) -> ReplyResult:
    """A refusal, with the command that continues the session (`way_back`, unless `command` says). `live` says
    whether its client still runs, when the refusal knows (a pane proven its own does); else the row says."""
    if command is None and session is not None:
        running = live if live is not None else target is not None or bool(getattr(session, "open", False))
        command = way_back(session, running)
    message = f"{why}; nothing was typed" + (f" (to continue it yourself: {command})" if command else "")
    return ReplyResult(False, "refused", message, target, command)


def way_back(session: SessionLike, live: bool) -> str | None:
    """How the person continues the session themselves: `lunavect open` while its client runs (in its own pane,
    where the answer is theirs to give; a resume would start a second client on the same session), its resume
    command once the client has ended."""
    if live:
        return f"lunavect open {session.id}"
    return display_command(session.provider, session.session_id, session.cwd)


def foreground(pid: int, hops: int = 8) -> bool | None:
    """Whether the process (or its nearest parent with a terminal, when it runs detached from one, as
    Codex's app-server child does) holds its terminal's foreground (Linux /proc); None where unknown."""
    for _hop in range(hops):
        try:
            with open(f"/proc/{pid}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            return None
        ppid, pgrp, tty_nr, tpgid = int(fields[1]), int(fields[2]), int(fields[4]), int(fields[5])
        if tty_nr != 0:
            return tpgid == pgrp
        if ppid <= 1:
            return None
        pid = ppid
    return None


def prove_pane(
    session: SessionLike, others: Sequence[SessionLike], table: ProcessTable, environ: Mapping[str, str]
) -> TmuxPane | ReplyResult:
    """The session's own tmux pane, proven as `lunavect open` proves it, or the refusal saying why not."""
    host = getattr(session, "host", None)
    if host and remote_host.is_elsewhere(host):
        return _refuse(f"it runs on the host {host}: reply there, with `ssh {host} lunavect reply`", session)
    where = whereabouts(session, table, others)
    live = where.status not in (Status.FINISHED, Status.UNKNOWN)
    if where.status == Status.AMBIGUOUS:
        return _refuse(f"cannot tell which terminal is this session's: {where.detail}", session, live=live)
    if where.status != Status.LIVE or where.pid is None or where.tty is None:
        why = f"no terminal of its own can be proven: {where.detail or where.status.value}"
        return _refuse(why, session, live=live)
    sockets = tmux.server_sockets(table, where.pid) + tmux.default_sockets(environ=dict(environ))
    pane = tmux.find_pane(sockets, where.tty, where.tmux_pane)
    if pane is None:
        return _refuse(f"it runs on {where.tty}, which is not a tmux pane lunavect can type into", session, live=True)
    if foreground(where.pid) is False:
        return _refuse(f"another program holds the foreground of its pane {pane.pane_id}", session, pane.pane_id)
    return TmuxPane(pane)


def _in_background(session: SessionLike, table: ProcessTable) -> ReplyResult | None:
    """The refusal for a session its client runs in the background (`claude --bg`), whatever its state: its
    terminal is its client's service's, so nothing proves what typing there would reach, and its way back is
    the attach command (its resume command would start a second copy of a session that still runs)."""
    host = getattr(session, "host", None)
    if host and remote_host.is_elsewhere(host):
        return None  # its own machine's lunavect answers (prove_pane says so)
    job = background_job(session, table)
    if job is None or not job.live:
        return None
    why = background.described(job, name_of(session.provider))
    return _refuse(f"{why}, in no terminal of its own", session, command=attach_command(session.provider, job.job_id))


def _enter_after_s(provider: str, timing: Timing) -> float:
    """How long to wait between typing and Enter: the timing's own wait, else the client's."""
    if timing.enter_after_s is not None:
        return timing.enter_after_s
    client = by_id(provider)
    return client.reply.enter_after_s if client is not None else ENTER_AFTER_S


def _wait(check: Callable[[], bool], seconds: float, poll: float) -> bool:
    deadline = time.monotonic() + seconds
    while True:
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(poll)


def reply(
    session: SessionLike,
    text: str,
    *,
    state: State,
    others: Sequence[SessionLike] = (),
    table: ProcessTable | None = None,
    environ: Mapping[str, str] | None = None,
    timing: Timing = Timing(),
) -> ReplyResult:
    """Type `text` into the session's prompt and submit it, or refuse."""
    if not text.strip():
        return ReplyResult(False, "refused", "there is nothing to send")
    table = table or LiveProcesses()
    if (in_background := _in_background(session, table)) is not None:
        return in_background
    if state == State.PERMISSION:
        return _refuse("it waits for a permission: answer it with `lunavect answer`", session)
    if state not in REPLY_STATES and state != State.ERROR:
        return _refuse(f"it does not wait for you now ({STATE_WORDS[state]})", session)
    proven = prove_pane(session, others, table, os.environ if environ is None else environ)
    if isinstance(proven, ReplyResult):
        return proven
    pane, client = proven, name_of(session.provider)

    def reading() -> screens.PromptReading:
        screen = pane.screen(escapes=True)
        if screen is None:
            return screens.PromptReading(None, "tmux shows no screen")
        return screens.read_prompt(session.provider, screen)

    def prompt() -> bool | None:
        return reading().empty

    first = reading()
    if state == State.ERROR and not screens.offers_resend(session.provider, pane.screen() or ""):
        return _refuse(f"its turn failed and its pane {pane.target} shows no {client} offer to resend", session)
    if first.empty is None:
        why = f" ({first.why})" if first.why else ""
        return _refuse(f"its pane {pane.target} does not show {client}'s prompt{why}", session, pane.target)
    if not first.empty:
        return _refuse(f"its prompt in pane {pane.target} already holds typed text", session, pane.target)
    if not pane.type(text):
        return ReplyResult(False, "failed", f"tmux did not take the text for pane {pane.target}", pane.target)
    if not _wait(lambda: prompt() is False, timing.confirm_s, timing.poll_s):
        return ReplyResult(False, "failed", f"the text did not show in pane {pane.target}; not submitted", pane.target)
    time.sleep(_enter_after_s(session.provider, timing))
    for _attempt in range(3):
        pane.key("Enter")
        if _wait(lambda: prompt() is not False, timing.confirm_s / 3, timing.poll_s):
            return ReplyResult(True, "sent", f"sent to {client} in its own pane", pane.target)
    return ReplyResult(False, "failed", f"the reply is typed in pane {pane.target} but was not submitted", pane.target)


def answer(
    session: SessionLike,
    choice: str,
    *,
    state: State,
    expected_tool: str | None,
    others: Sequence[SessionLike] = (),
    table: ProcessTable | None = None,
    environ: Mapping[str, str] | None = None,
    timing: Timing = Timing(),
) -> ReplyResult:
    """Press the key of the session's permission dialog that gives `choice`, and confirm the dialog closed."""
    if choice not in ANSWERS:
        return ReplyResult(False, "refused", f"the answer is one of {', '.join(ANSWERS)}")
    table = table or LiveProcesses()
    if (in_background := _in_background(session, table)) is not None:
        return in_background
    if state != State.PERMISSION:
        return _refuse(f"it waits for no permission now ({STATE_WORDS[state]})", session)
    descriptor = by_id(session.provider)
    if descriptor is not None and not descriptor.reply.answers_outside:
        return _refuse(f"{descriptor.name}'s permission prompts are answered in {descriptor.name} itself", session)
    proven = prove_pane(session, others, table, os.environ if environ is None else environ)
    if isinstance(proven, ReplyResult):
        return proven
    pane, client = proven, name_of(session.provider)
    screen = pane.screen()
    shown = screens.dialog(session.provider, screen or "")
    if shown is None:
        return _refuse(
            f"pane {pane.target} shows no {client} permission dialog lunavect recognises", session, pane.target
        )
    if expected_tool and shown.tool != expected_tool:
        why = f"the dialog in pane {pane.target} asks for {shown.tool}, not {expected_tool}"
        return _refuse(why, session, pane.target)
    key = shown.key(choice)
    if key is None:
        return _refuse(f"the dialog in pane {pane.target} offers no {choice}", session, pane.target)

    def still_open() -> bool:
        now = pane.screen()
        return now is not None and screens.dialog(session.provider, now) == shown

    time.sleep(timing.settle_s)
    deadline = time.monotonic() + timing.confirm_s
    while time.monotonic() < deadline:
        pane.key(key)  # a key pressed too early after the dialog appeared is ignored: press it again
        if _wait(lambda: not still_open(), timing.retry_every_s, timing.poll_s):
            return ReplyResult(True, "answered", f"{choice}: pressed {key} in {client}'s dialog", pane.target)
    return ReplyResult(False, "failed", f"the dialog in pane {pane.target} did not close", pane.target)
