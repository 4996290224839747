"""tmux: find the pane a session's terminal device belongs to, on whichever tmux server holds it, and show it.

The agent's environment (and so its `$TMUX`) is never read. The server is found instead from the agent's
parents (a pane's process is the tmux server's child, and the server's listening socket is its address), and
from the sockets in tmux's default folder. A pane is matched by its device, and a pane whose process has
exited is skipped even when the system has given its old device to a new terminal.

Every socket found either way is this user's or is never talked to (`files.ownership`): another local user can
make `/tmp/tmux-<uid>` before this user does and run a server there, whose hooks would then read and write this
user's files through lunavect's own tmux commands (tmux 3.2 and later does a command client's file work in the
client's process). These are the only places sockets come from: every `tmux -S` lunavect runs names one.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from lunavect.core.resume_command import shell_words
from lunavect.files.ownership import FOLDER, SOCKET, is_mine
from lunavect.host.processes import ProcessTable, ancestry
from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals.runner import Reply, run

PANE_FORMAT = "#{pane_id}\t#{pane_tty}\t#{pane_pid}\t#{pane_dead}\t#{session_name}\t#{window_id}"
CLIENT_FORMAT = "#{client_name}\t#{client_tty}\t#{client_session}\t#{client_pid}\t#{client_activity}"
SERVER_NAMES = ("tmux: server", "tmux")

Runner = Callable[[list[str]], Reply]


@dataclass(frozen=True)
class Pane:
    socket: str
    pane_id: str
    tty: str
    pid: int | None
    dead: bool
    session: str
    window_id: str


@dataclass(frozen=True)
class Client:
    name: str
    tty: str
    session: str
    pid: int | None
    activity: int


def argv(socket: str, *args: str) -> list[str]:
    return ["tmux", "-S", socket, *args]


def _int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def parse_panes(socket: str, text: str) -> list[Pane]:
    panes: list[Pane] = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 6 or not parts[0].startswith("%"):
            continue
        pane_id, tty, pid, dead, session, window = parts
        panes.append(Pane(socket, pane_id, tty, _int(pid), dead == "1", session, window))
    return panes


def parse_clients(text: str) -> list[Client]:
    clients: list[Client] = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) != 5 or not parts[0]:
            continue
        name, tty, session, pid, activity = parts
        clients.append(Client(name, tty, session, _int(pid), _int(activity) or 0))
    return clients


def focus_argvs(pane: Pane, client: Client | None) -> list[list[str]]:
    """Select the pane's window and the pane; then make `client` show it."""
    commands = [
        argv(pane.socket, "select-window", "-t", pane.window_id),
        argv(pane.socket, "select-pane", "-t", pane.pane_id),
    ]
    if client is not None:
        commands.append(argv(pane.socket, "switch-client", "-c", client.name, "-t", pane.pane_id))
    return commands


def attach_command(pane: Pane) -> str:
    """What a person types to see the pane when no tmux client shows its server."""
    return shell_words(["tmux", "-S", pane.socket, "attach-session", "-t", pane.session])


def grouped_attach_argv(pane: Pane) -> list[str]:
    """Attach this terminal to the pane's server in a new session grouped with the pane's own, showing exactly
    that window with that pane selected; the grouped session ends when this client leaves it.

    A grouped session shares the windows of the pane's session but has a current window of its own, so the
    clients already attached there (the person's other screens, a colleague's view) keep the window they show:
    attaching to the pane's own session and selecting its window would switch all of them. Which pane is active
    belongs to the window, so that one choice is shared with whoever shows the same window. The pane is
    named by its id (`%N`) and the window by its (`@N`), never by a session name, which may hold `:` or `.`.
    """
    return argv(
        pane.socket,
        "new-session",
        "-t",
        pane.pane_id,
        ";",
        "set-option",
        "destroy-unattached",
        "on",
        ";",
        "select-window",
        "-t",
        pane.window_id,
        ";",
        "select-pane",
        "-t",
        pane.pane_id,
    )


def choose_client(clients: list[Client], pane: Pane, own_tty: str | None, own_session: str | None) -> Client | None:
    """The client that should show the pane: the one this command runs in, else one already showing the
    pane's session, else the most recently used one."""
    if not clients:
        return None
    if own_tty:
        mine = [c for c in clients if c.tty == own_tty]
        if mine:
            return mine[0]
    if own_session:
        mine = [c for c in clients if c.session == own_session]
        if mine:
            return max(mine, key=lambda c: c.activity)
    showing = [c for c in clients if c.session == pane.session]
    if showing:
        return max(showing, key=lambda c: c.activity)
    return max(clients, key=lambda c: c.activity)


@dataclass(frozen=True)
class OwnServer:
    """The tmux server a command runs in, as `$TMUX` names it ("<socket>,<server pid>,<session number>")."""

    socket: str
    session: str | None  # the session's number, for `-t '$N:'`: a new window opens there, not in tmux's last one

    @property
    def target(self) -> list[str]:
        return ["-t", f"${self.session}:"] if self.session is not None else []


def own_server(environ: Mapping[str, str], uid: int | None = None) -> OwnServer | None:
    """`$TMUX`'s server when its socket is this user's; None outside tmux, and for a socket of another user's,
    which lunavect never talks to (a new window there, or the clipboard's text, would be theirs). Every use of
    `$TMUX`'s socket goes through here (elsewhere its presence alone is asked: is this command inside tmux)."""
    parts = environ.get("TMUX", "").split(",")
    if not parts[0] or not is_mine(parts[0], SOCKET, os.getuid() if uid is None else uid):
        return None
    return OwnServer(parts[0], parts[2] if len(parts) >= 3 and parts[2].isdigit() else None)


def default_sockets(uid: int | None = None, environ: dict[str, str] | None = None) -> list[str]:
    """The sockets in tmux's default folder (`$TMUX_TMPDIR` or /tmp, then `tmux-<uid>`), and `$TMUX`'s: only
    a folder of this user's that no one else may write (tmux's own check of it), and only sockets of theirs."""
    env = os.environ if environ is None else environ
    uid = os.getuid() if uid is None else uid
    found: list[str] = []
    own = own_server(env, uid)
    if own is not None:
        found.append(own.socket)
    folder = os.path.join(env.get("TMUX_TMPDIR") or "/tmp", f"tmux-{uid}")
    if not is_mine(folder, FOLDER, uid):
        return found
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        names = []
    found.extend(path for name in names if is_mine(path := os.path.join(folder, name), SOCKET, uid))
    return found


def server_sockets(table: ProcessTable, pid: int) -> list[str]:
    """The listening sockets of the tmux servers among a process's parents (nearest first), this user's only."""
    found: list[str] = []
    for proc in ancestry(table, pid):
        if proc.named(*SERVER_NAMES) or proc.name.startswith("tmux"):
            found.extend(
                path for path in table.unix_sockets(proc.pid) if path.startswith("/") and is_mine(path, SOCKET)
            )
    return found


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = os.path.realpath(item)
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out


def find_pane(sockets: Iterable[str], tty: str, hint: str | None = None, runner: Runner = run) -> Pane | None:
    """The live pane on `tty` on any of the servers; the catalog's pane id `hint` is only a cross-check."""
    for socket in _unique(sockets):
        reply = runner(argv(socket, "list-panes", "-a", "-F", PANE_FORMAT))
        if not reply.ok:
            continue
        live = [p for p in parse_panes(socket, reply.stdout) if p.tty == tty and not p.dead]
        if hint:
            exact = [p for p in live if p.pane_id == hint]
            live = exact or live
        if len(live) == 1:
            return live[0]
    return None


def focus(pane: Pane, own_tty: str | None, own_session: str | None = None, runner: Runner = run) -> OpenResult:
    """Bring the pane to the front of the right client, or say how to attach."""
    reply = runner(argv(pane.socket, "list-clients", "-F", CLIENT_FORMAT))
    if reply.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, "tmux did not answer within 10 s", terminal="tmux", target=pane.pane_id)
    clients = parse_clients(reply.stdout) if reply.ok else []
    client = choose_client(clients, pane, own_tty, own_session)
    for command in focus_argvs(pane, client):
        result = runner(command)
        if result.failure == "timeout":
            return OpenResult(Outcome.TIMEOUT, "tmux did not answer within 10 s", terminal="tmux", target=pane.pane_id)
        if not result.ok:
            if "can't find" in result.error_line or "no such" in result.error_line.lower():
                return OpenResult(
                    Outcome.GONE, f"the tmux pane {pane.pane_id} is gone", terminal="tmux", target=pane.pane_id
                )
            return OpenResult(Outcome.FAILED, f"tmux: {result.error_line}", terminal="tmux", target=pane.pane_id)
    if client is None:
        attach = attach_command(pane)
        return OpenResult(
            Outcome.ATTACH,
            f"the tmux pane {pane.pane_id} is selected, but no tmux client is attached: attach with `{attach}`",
            terminal="tmux",
            target=pane.pane_id,
            command=attach,
        )
    return OpenResult(
        Outcome.FOCUSED,
        # In words a person uses: the tmux session they know by name, not a pane id or a client's device.
        f"its tmux pane is in front, in tmux session “{pane.session}”",
        terminal="tmux",
        target=pane.pane_id,
    )


def own_tmux_session(own_tty: str | None, sockets: Iterable[str], runner: Runner = run) -> str | None:
    """The tmux session this command runs in, when its terminal is a tmux pane."""
    if not own_tty:
        return None
    for socket in _unique(sockets):
        reply = runner(argv(socket, "list-panes", "-a", "-F", PANE_FORMAT))
        if reply.ok:
            for pane in parse_panes(socket, reply.stdout):
                if pane.tty == own_tty and not pane.dead:
                    return pane.session
    return None
