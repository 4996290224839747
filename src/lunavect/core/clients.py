"""What a client is, in one place: one descriptor per client lunavect reads, and the tuple of them all.

Everything the rest of lunavect knows of a client without reading its files lives here: the id its rows carry,
its name as shown, its CLI and how that resumes a session (and attaches to one it runs in the background), its
runtime's process names, how long its hook events stay fresh, how its screen takes a reply, what it calls its
rate-limit windows, whether lunavect may answer its permission prompts from outside, and the package whose face
(`lunavect.clients.claude`, `lunavect.clients.codex`, `lunavect.clients.gemini`, `lunavect.clients.opencode`) reads its files, maps its hook
records and installs its hooks (`lunavect.clients` finds that face from `package`). Outside this module and the
client packages nothing compares a provider's name: code asks the descriptor (`by_id`), so adding a client is
its package plus one descriptor in `CLIENTS`.

No import at all, not even `dataclasses` (whose import costs about one bare interpreter start): the hook shim
reads the process names here on every event (`lunavect.shim.procfacts`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own flag costs an import; type checkers treat this name alike
if TYPE_CHECKING:
    from collections.abc import Iterable


# How long a reply waits between typing and Enter unless the client's screen needs longer.
ENTER_AFTER_S = 0.3
# What a client's two rate-limit windows are called unless it names them otherwise.
LIMIT_WINDOWS = ("primary", "secondary")


class Client:
    """One client: immutable once made (`__slots__`, no attribute set after `__init__`), compared by identity."""

    __slots__ = (
        "answers_outside",
        "attach",
        "command",
        "desktop_apps",
        "editor_panel",
        "enter_after_s",
        "environment",
        "event_authority_s",
        "hook_parent",
        "http_hooks",
        "id",
        "label",
        "limit_windows",
        "live_title",
        "name",
        "outcome_in_transcript",
        "package",
        "panel_opens",
        "processes",
        "resume",
        "resume_needs_folder",
        "terminal_origins",
    )

    id: str
    name: str
    label: str
    command: str
    package: str
    processes: tuple[str, ...]
    resume: tuple[str, ...] | None
    resume_needs_folder: bool
    attach: tuple[str, ...] | None
    terminal_origins: frozenset[str]
    event_authority_s: float | None
    enter_after_s: float
    limit_windows: tuple[str, str]
    editor_panel: str | None
    panel_opens: bool
    http_hooks: bool
    desktop_apps: frozenset[str]
    environment: tuple[str, ...]
    answers_outside: bool
    hook_parent: str | None
    outcome_in_transcript: bool
    live_title: bool

    def __init__(
        self,
        *,
        id: str,
        name: str,
        label: str,
        command: str,
        package: str,
        processes: tuple[str, ...],
        resume: tuple[str, ...] | None = None,
        resume_needs_folder: bool = False,
        attach: tuple[str, ...] | None = None,
        terminal_origins: Iterable[str] = (),
        event_authority_s: float | None = None,
        enter_after_s: float = ENTER_AFTER_S,
        limit_windows: tuple[str, str] = LIMIT_WINDOWS,
        editor_panel: str | None = None,
        panel_opens: bool = False,
        http_hooks: bool = False,
        desktop_apps: Iterable[str] = (),
        environment: Iterable[str] = (),
        answers_outside: bool = True,
        hook_parent: str | None = None,
        outcome_in_transcript: bool = False,
        live_title: bool = False,
    ) -> None:
        """Every field by name:
        - `id`: the provider as rows, keys (`claude:<session id>`), the spool and the hook command name it.
        - `name`, `label`: its name as shown in sentences ("Claude Code"), and on a filter button ("Claude").
        - `command`: its CLI on PATH; `resume`: the arguments before a session's id that resume it (None: it
          cannot be resumed); `resume_needs_folder`: it finds a conversation only from the folder it was held in;
          `attach`: the arguments before a background job's id that bring that session into a terminal (None: it
          runs no session apart from a terminal).
        - `package`: the package whose face reads its files, maps its hook records and installs its hooks.
        - `processes`: its runtime's process or executable names (a launcher script's interpreter is not it).
        - `terminal_origins`: the origin values its logs write for a session in a terminal (Claude Code's
          `entrypoint`, Codex's `originator`); every other named origin is an app or an editor.
        - `event_authority_s`: how long its hook events hold without newer evidence; None: the rules' own
          limit (`core.rules.facts.EVENT_AUTHORITY_S`).
        - `enter_after_s`: how long a reply waits between typing and Enter, for its screen to take the text.
        - `limit_windows`: what it calls its two rate-limit windows.
        - `editor_panel`: the origin of a session in its own editor panel; `panel_opens`: whether lunavect's
          editor companion can ask that panel to show a given session.
        - `http_hooks`: its hooks can be HTTP hooks to the collector's listener (`lunavect.listener`).
        - `desktop_apps`: the process names of its desktop app, which is not a terminal.
        - `environment`: the variables that say where its files are, which a collector started at login must see
          as the person's shell does (`lunavect service install` carries them).
        - `answers_outside`: lunavect may answer its permission prompts from outside (`lunavect answer`, a key of
          its dialog pressed in its proven pane); False: they are answered in the client only.
        - `hook_parent`: the interpreter its runtime is a script of (`node`), when no process name of its own
          tells it: a hook runs as the runtime's own child, so the shim takes the nearest ancestor of that name
          for the agent. Nothing else takes a process of that name for it (every other script runs in it too).
        - `outcome_in_transcript`: its reply-end hook (Stop) fires after a failed or cancelled turn too, and
          only its transcript tells which: the transcript's record of the turn's failure or cancel wins over
          that Stop, whichever is read first.
        - `live_title`: it draws its state in its terminal's title while it runs (its face reads it:
          `read_title`), which the collector reads from the session's tmux pane.
        """
        values = {
            "id": id,
            "name": name,
            "label": label,
            "command": command,
            "package": package,
            "processes": tuple(processes),
            "resume": None if resume is None else tuple(resume),
            "resume_needs_folder": resume_needs_folder,
            "attach": None if attach is None else tuple(attach),
            "terminal_origins": frozenset(terminal_origins),
            "event_authority_s": event_authority_s,
            "enter_after_s": enter_after_s,
            "limit_windows": limit_windows,
            "editor_panel": editor_panel,
            "panel_opens": panel_opens,
            "http_hooks": http_hooks,
            "desktop_apps": frozenset(desktop_apps),
            "environment": tuple(environment),
            "answers_outside": answers_outside,
            "hook_parent": hook_parent,
            "outcome_in_transcript": outcome_in_transcript,
            "live_title": live_title,
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __setattr__(self, key: str, value: object) -> None:
        raise AttributeError(f"a client's descriptor is immutable ({key})")

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"a client's descriptor is immutable ({key})")

    def __repr__(self) -> str:
        return f"Client({self.id!r})"


CLAUDE = Client(
    id="claude",
    name="Claude Code",
    label="Claude",
    command="claude",
    package="lunavect.clients.claude",
    processes=("claude",),
    resume=("--resume",),
    resume_needs_folder=True,
    attach=("attach",),
    terminal_origins=("cli",),
    limit_windows=("five_hour", "seven_day"),
    editor_panel="claude-vscode",
    panel_opens=True,
    http_hooks=True,
    desktop_apps=("Claude", "Claude Helper"),
    environment=("CLAUDE_CONFIG_DIR",),
)

CODEX = Client(
    id="codex",
    name="Codex",
    label="Codex",
    command="codex",
    package="lunavect.clients.codex",
    processes=("codex",),
    resume=("resume",),
    # The terminal clients' originators; Desktop and editor originators are apps.
    terminal_origins=("codex-tui", "codex_cli_rs", "codex_exec", "codex-exec", "codex_tui"),
    # Its events go stale after two minutes without fresh evidence, unless it still has the session's rollout
    # open for writing (the guide, "Codex log freshness").
    event_authority_s=120.0,
    # Its TUI holds an Enter typed right after text in its key-burst buffer.
    enter_after_s=1.0,
    editor_panel="vscode",
    desktop_apps=("Codex", "Codex Helper"),
    environment=("CODEX_HOME",),
)

GEMINI = Client(
    id="gemini",
    name="Gemini CLI",
    label="Gemini",
    command="gemini",
    package="lunavect.clients.gemini",
    # `node …/bin/gemini` relaunches itself as a child `node …/bin/gemini` (the session): no name of its own.
    processes=(),
    hook_parent="node",
    resume=("--resume",),
    # It finds a session by its id among the chats of the folder it is started in.
    resume_needs_folder=True,
    # Its AfterAgent hook fires after an API error and after Esc too; its chat file records which it was.
    outcome_in_transcript=True,
    # `✋  Action Required`, `⏲  Working…`, `✦  …`, `◇  Ready` (its `ui.dynamicWindowTitle`, on by default).
    live_title=True,
    environment=("GEMINI_CLI_HOME",),
)

OPENCODE = Client(
    id="opencode",
    name="OpenCode",
    label="OpenCode",
    command="opencode",
    package="lunavect.clients.opencode",
    # npm installs the native binary as `opencode.exe` on every system; the curl and brew installs as `opencode`.
    processes=("opencode", "opencode.exe"),
    # Its sessions are kept by id in one database for every folder: `opencode --session <id>` finds one anywhere.
    resume=("--session",),
    # Its permission prompts are answered in its own screen: lunavect's plugin only reports (README).
    answers_outside=False,
    environment=("XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENCODE_DB"),
)

# Every client, in the order lists and reports name them.
CLIENTS: tuple[Client, ...] = (CLAUDE, CODEX, GEMINI, OPENCODE)


def every() -> tuple[Client, ...]:
    """Every client (read at each call, so a test may register a stand-in client in `CLIENTS`)."""
    return CLIENTS


def by_id(client_id: object) -> Client | None:
    """The client whose rows carry `client_id`, or None for an id lunavect does not know."""
    for client in CLIENTS:
        if client.id == client_id:
            return client
    return None


def ids() -> tuple[str, ...]:
    return tuple(client.id for client in CLIENTS)


def name_of(client_id: str) -> str:
    """The client's name as shown, or its id for a client lunavect does not know (another host's, say)."""
    client = by_id(client_id)
    return client.name if client is not None else client_id


def by_process(name: str) -> Client | None:
    """The client whose runtime a process of this name (or executable name) is, or None."""
    for client in CLIENTS:
        if name in client.processes:
            return client
    return None
