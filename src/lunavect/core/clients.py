"""What a client is, in one place: one descriptor per client lunavect reads, and the tuple of them all.

Everything the rest of lunavect knows of a client without reading its files lives here, grouped by who reads it:
its identity (the id its rows carry, its name as shown, the package whose face reads its files), its command line
(`Cli`: how it resumes a session or attaches to one it runs in the background), its runtime's processes
(`Process`), where a session of it can run besides a terminal (`Origins`), the traits the rules weigh (`Rules`),
how its screen takes a reply (`Reply`), what installing for it carries (`Install`), what it calls its rate-limit
windows, and what it can tell of each state (`tells`). `lunavect.clients` finds its face from `package`. Outside
this module and the client packages nothing compares a provider's name: code asks the descriptor (`by_id`), so
adding a client is its package plus one descriptor in `CLIENTS`.

No import at all, not even `dataclasses` (whose import costs about one bare interpreter start): the hook shim
reads the process names here on every event (`lunavect.shim.procfacts`).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's own flag costs an import; type checkers treat this name alike
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


# How long a reply waits between typing and Enter unless the client's screen needs longer.
ENTER_AFTER_S = 0.3
# What a client's two rate-limit windows are called unless it names them otherwise.
LIMIT_WINDOWS = ("primary", "secondary")

# What a row can tell of a session, and the ways a client can tell it (`Client.tells`): its lifecycle hooks (or
# the in-process plugin that stands for them), its own files (transcript, rollout, chat file, database), its live
# catalog of running sessions (a registry on disk, an app-server), its terminal's title, its screen in a pane, and
# its process (alive or gone). What a client has no way to tell is left out: "cannot be known".
TELLS = ("working", "tool", "background", "compacting", "permission", "input", "ready", "error", "ended")
WAYS = ("hook", "plugin", "file", "catalog", "title", "screen", "process")


class _Record:
    """An immutable record: every field is set once, in `__init__`, and never again (its `__slots__` refuse any
    other name)."""

    __slots__ = ()

    def __setattr__(self, key: str, value: object) -> None:
        if hasattr(self, key):
            raise AttributeError(f"a client's descriptor is immutable ({key})")
        object.__setattr__(self, key, value)

    def __delattr__(self, key: str) -> None:
        raise AttributeError(f"a client's descriptor is immutable ({key})")


class Cli(_Record):
    """Its command line, read by the resume command and returning to a task.

    - `command`: its CLI on PATH.
    - `resume`: the arguments before a session's id that resume it (None: it cannot be resumed).
    - `resume_needs_folder`: it finds a conversation only from the folder it was held in.
    - `attach`: the arguments before a background job's id that bring that session into a terminal (None: it runs
      no session apart from a terminal).
    """

    __slots__ = ("command", "resume", "resume_needs_folder", "attach")

    def __init__(
        self,
        command: str,
        *,
        resume: tuple[str, ...] | None = None,
        resume_needs_folder: bool = False,
        attach: tuple[str, ...] | None = None,
    ) -> None:
        self.command = command
        self.resume = None if resume is None else tuple(resume)
        self.resume_needs_folder = resume_needs_folder
        self.attach = None if attach is None else tuple(attach)


class Process(_Record):
    """Its runtime among processes, read by the hook shim (on every event) and the process facts.

    - `names`: its runtime's process or executable names (a launcher script's interpreter is not it).
    - `hook_parent`: the interpreter its runtime is a script of (`node`), when no process name of its own tells
      it: a hook runs as the runtime's own child, so the shim takes the nearest ancestor of that name for the
      agent. Nothing else takes a process of that name for it (every other script runs in it too).
    """

    __slots__ = ("names", "hook_parent")

    def __init__(self, names: Iterable[str] = (), *, hook_parent: str | None = None) -> None:
        self.names = tuple(names)
        self.hook_parent = hook_parent


class Origins(_Record):
    """Where a session of it can run besides a terminal, read by returning to a task.

    - `terminal`: the origin values its logs write for a session in a terminal (Claude Code's `entrypoint`,
      Codex's `originator`); every other named origin is an app or an editor.
    - `desktop_apps`: the process names of its desktop app, which is not a terminal.
    - `editor_panel`: the origin of a session in its own editor panel; `panel_opens`: whether lunavect's editor
      companion can ask that panel to show a given session.
    """

    __slots__ = ("terminal", "desktop_apps", "editor_panel", "panel_opens")

    def __init__(
        self,
        *,
        terminal: Iterable[str] = (),
        desktop_apps: Iterable[str] = (),
        editor_panel: str | None = None,
        panel_opens: bool = False,
    ) -> None:
        self.terminal = frozenset(terminal)
        self.desktop_apps = frozenset(desktop_apps)
        self.editor_panel = editor_panel
        self.panel_opens = panel_opens


class Rules(_Record):
    """Its traits that the rules weigh.

    - `event_authority_s`: how long its hook events hold without newer evidence; None: the rules' own limit
      (`core.rules.facts.EVENT_AUTHORITY_S`).
    - `outcome_in_transcript`: its reply-end hook (Stop) fires after a failed or cancelled turn too, and only its
      transcript tells which: the transcript's record of the turn's failure or cancel wins over that Stop,
      whichever is read first.
    - `live_title`: it draws its state in its terminal's title while it runs (its face reads it: `read_title`),
      which the collector reads from the session's tmux pane.
    - `tool_after_approval`: its PreToolUse fires only once a tool may run, after its approval (Qwen Code's): it
      answers a permission prompt, where another client's PreToolUse, sent before it asks, does not.
    """

    __slots__ = ("event_authority_s", "outcome_in_transcript", "live_title", "tool_after_approval")

    def __init__(self, *, event_authority_s: float | None = None, **traits: bool) -> None:
        self.event_authority_s = event_authority_s
        self.outcome_in_transcript = traits.get("outcome_in_transcript", False)
        self.live_title = traits.get("live_title", False)
        self.tool_after_approval = traits.get("tool_after_approval", False)


class Reply(_Record):
    """How its screen takes a reply or an answer typed from outside, read by `reply` and `answer`.

    - `enter_after_s`: how long a reply waits between typing and Enter, for its screen to take the text.
    - `answers_outside`: lunavect may answer its permission prompts from outside (`lunavect answer`, a key of its
      dialog pressed in its proven pane); False: they are answered in the client only.
    """

    __slots__ = ("enter_after_s", "answers_outside")

    def __init__(self, *, enter_after_s: float = ENTER_AFTER_S, answers_outside: bool = True) -> None:
        self.enter_after_s = enter_after_s
        self.answers_outside = answers_outside


class Install(_Record):
    """What installing for it carries, read by `hooks install` and `service install`.

    - `environment`: the variables that say where its files are, which a collector started at login must see as
      the person's shell does (`lunavect service install` carries them), and which a test points into its folder.
    - `http_hooks`: its hooks can be HTTP hooks to the collector's listener (`lunavect.listener`).
    """

    __slots__ = ("environment", "http_hooks")

    def __init__(self, *, environment: Iterable[str] = (), http_hooks: bool = False) -> None:
        self.environment = tuple(environment)
        self.http_hooks = http_hooks


class Client(_Record):
    """One client: immutable once made, compared by identity.

    - `id`: the provider as rows, keys (`claude:<session id>`), the spool and the hook command name it.
    - `name`, `label`: its name as shown in sentences ("Claude Code"), and on a filter button ("Claude").
    - `package`: the package whose face reads its files, maps its hook records and installs its hooks.
    - `cli`, `process`, `origins`, `rules`, `reply`, `install`: the records above.
    - `limit_windows`: what it calls its two rate-limit windows.
    - `tells`: for each thing a row can tell (`TELLS`), the ways this client tells it (`WAYS`), the surest first;
      no way at all (`()`): the client has no such thing (Pi asks no permission); left out: it cannot be known,
      and a quiet row of it says nothing of that.
    """

    __slots__ = tuple("id name label package cli process origins rules reply install limit_windows tells".split())

    def __init__(
        self,
        *,
        id: str,
        name: str,
        label: str,
        package: str,
        cli: Cli,
        process: Process,
        origins: Origins | None = None,
        rules: Rules | None = None,
        reply: Reply | None = None,
        install: Install | None = None,
        limit_windows: tuple[str, str] = LIMIT_WINDOWS,
        tells: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        told = {what: tuple(ways) for what, ways in (tells or {}).items()}
        unknown = [what for what in told if what not in TELLS] + [
            w for ways in told.values() for w in ways if w not in WAYS
        ]
        if unknown:
            raise ValueError(f"{id}: unknown in tells: {unknown}")
        self.id = id
        self.name = name
        self.label = label
        self.package = package
        self.cli = cli
        self.process = process
        self.origins = origins if origins is not None else Origins()
        self.rules = rules if rules is not None else Rules()
        self.reply = reply if reply is not None else Reply()
        self.install = install if install is not None else Install()
        self.limit_windows = limit_windows
        self.tells = {what: told[what] for what in TELLS if what in told}

    def __repr__(self) -> str:
        return f"Client({self.id!r})"


CLAUDE = Client(
    id="claude",
    name="Claude Code",
    label="Claude",
    package="lunavect.clients.claude",
    cli=Cli("claude", resume=("--resume",), resume_needs_folder=True, attach=("attach",)),
    process=Process(("claude",)),
    origins=Origins(
        terminal=("cli",), desktop_apps=("Claude", "Claude Helper"), editor_panel="claude-vscode", panel_opens=True
    ),
    install=Install(environment=("CLAUDE_CONFIG_DIR",), http_hooks=True),
    limit_windows=("five_hour", "seven_day"),
    tells={
        "working": ("hook", "catalog", "file"),
        "tool": ("hook", "file"),
        "background": ("hook", "file"),
        "compacting": ("hook", "file"),
        "permission": ("hook", "catalog"),
        "input": ("hook", "catalog"),
        "ready": ("hook", "file"),
        "error": ("hook", "file"),
        "ended": ("process", "catalog"),
    },
)

CODEX = Client(
    id="codex",
    name="Codex",
    label="Codex",
    package="lunavect.clients.codex",
    cli=Cli("codex", resume=("resume",)),
    process=Process(("codex",)),
    # The terminal clients' originators; Desktop and editor originators are apps.
    origins=Origins(
        terminal=("codex-tui", "codex_cli_rs", "codex_exec", "codex-exec", "codex_tui"),
        desktop_apps=("Codex", "Codex Helper"),
        editor_panel="vscode",
    ),
    # Its events go stale after two minutes without fresh evidence, unless it still has the session's rollout
    # open for writing (the guide, "Codex log freshness").
    rules=Rules(event_authority_s=120.0),
    # Its TUI holds an Enter typed right after text in its key-burst buffer.
    reply=Reply(enter_after_s=1.0),
    install=Install(environment=("CODEX_HOME",)),
    tells={
        "working": ("hook", "catalog", "file"),
        "tool": ("hook", "file"),
        "compacting": ("hook",),
        "permission": ("hook", "catalog"),
        "input": ("hook", "catalog", "file"),
        "ready": ("hook", "catalog", "file"),
        "error": ("file",),
        "ended": ("process", "catalog"),
    },
)

GEMINI = Client(
    id="gemini",
    name="Gemini CLI",
    label="Gemini",
    package="lunavect.clients.gemini",
    # It finds a session by its id among the chats of the folder it is started in.
    cli=Cli("gemini", resume=("--resume",), resume_needs_folder=True),
    # `node …/bin/gemini` relaunches itself as a child `node …/bin/gemini` (the session): no name of its own.
    process=Process((), hook_parent="node"),
    rules=Rules(
        # Its AfterAgent hook fires after an API error and after Esc too; its chat file records which it was.
        outcome_in_transcript=True,
        # `✋  Action Required`, `⏲  Working…`, `✦  …`, `◇  Ready` (its `ui.dynamicWindowTitle`, on by default).
        live_title=True,
    ),
    install=Install(environment=("GEMINI_CLI_HOME",)),
    tells={
        "working": ("hook", "title", "file"),
        "tool": ("hook", "file"),
        "compacting": ("hook",),
        "permission": ("hook", "title"),
        "input": ("hook",),
        "ready": ("hook", "file"),
        "error": ("file", "hook"),
        "ended": ("process",),
    },
)

OPENCODE = Client(
    id="opencode",
    name="OpenCode",
    label="OpenCode",
    package="lunavect.clients.opencode",
    # Its sessions are kept by id in one database for every folder: `opencode --session <id>` finds one anywhere.
    cli=Cli("opencode", resume=("--session",)),
    # npm installs the native binary as `opencode.exe` on every system; the curl and brew installs as `opencode`.
    process=Process(("opencode", "opencode.exe")),
    # Its permission prompts are answered in its own screen: lunavect's plugin only reports (README).
    reply=Reply(answers_outside=False),
    install=Install(environment=("XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENCODE_DB")),
    tells={
        "working": ("plugin", "file"),
        "tool": ("plugin", "file"),
        "compacting": ("plugin", "file"),
        "permission": ("plugin",),
        "input": ("plugin",),
        "ready": ("plugin", "file"),
        "error": ("plugin", "file"),
        "ended": ("process",),
    },
)

COPILOT = Client(
    id="copilot",
    name="GitHub Copilot CLI",
    label="Copilot",
    package="lunavect.clients.copilot",
    # Its sessions are kept by id for every folder (`session-state/<id>/`): `copilot --resume <id>` finds one anywhere.
    cli=Cli("copilot", resume=("--resume",)),
    # npm's `copilot` is a node launcher that runs the native binary `copilot`: the session, its hooks' parent. That
    # binary names its main thread `MainThread` (its `comm`), so its executable's name tells it (the shim and the
    # process table read both).
    process=Process(("copilot",)),
    install=Install(environment=("COPILOT_HOME",)),
    tells={
        # Its hooks; its live registry's `working`; its events file's prompt.
        "working": ("hook", "catalog", "file"),
        "tool": ("hook", "file"),
        "compacting": ("hook",),
        # Its `notification` hook (`permission_prompt`, `elicitation_dialog`): no file says a dialog waits.
        "permission": ("hook",),
        "input": ("hook",),
        "ready": ("hook", "file"),
        # Its events file's `session.error`: no hook says a turn failed.
        "error": ("file",),
        # Its process, from its hooks or the lock file its live registry's session holds.
        "ended": ("process",),
    },
)

PI = Client(
    id="pi",
    name="Pi",
    label="Pi",
    package="lunavect.clients.pi",
    # It finds a session by its id among the sessions of the folder it starts in first (another folder's it offers
    # to fork into this one): resumed from its own folder.
    cli=Cli("pi", resume=("--session",), resume_needs_folder=True),
    # One node process that sets its title: its `comm` is `pi` (its argv is overwritten too).
    process=Process(("pi",)),
    # It asks no permission, and its editor has no mark lunavect could tell a draft from (pane.py).
    reply=Reply(answers_outside=False),
    install=Install(environment=("PI_CODING_AGENT_DIR", "PI_CODING_AGENT_SESSION_DIR")),
    tells={
        # lunavect's extension (its `agent_start`, `tool_execution_*`, `agent_end`); its session file.
        "working": ("plugin", "file"),
        "tool": ("plugin", "file"),
        "compacting": ("plugin",),
        # Pi has no approval prompts and no question tool of its own: no such state.
        "permission": (),
        "input": (),
        "ready": ("plugin", "file"),
        # Its last assistant message's `stopReason: "error"`, with the HTTP status its message begins with.
        "error": ("plugin", "file"),
        "ended": ("process",),
    },
)

QWEN = Client(
    id="qwen",
    name="Qwen Code",
    label="Qwen",
    package="lunavect.clients.qwen",
    # Its chats are kept per folder (`projects/<folder>/chats/<id>.jsonl`): resumed from the folder it was held in.
    cli=Cli("qwen", resume=("--resume",), resume_needs_folder=True),
    # `node …/bin/qwen` relaunches itself as `node …/cli.js`: the last node is the session, its hooks' parent.
    process=Process((), hook_parent="node"),
    # `✳︎ Qwen - <folder>` while it waits for its person, `◐︎ …` while it works; its PreToolUse after an approval.
    rules=Rules(live_title=True, tool_after_approval=True),
    install=Install(environment=("QWEN_HOME", "QWEN_RUNTIME_DIR")),
    # Its hooks (PreCompact/PostCompact; its question tool's PermissionRequest; StopFailure), title and chat file.
    tells={
        "working": ("hook", "title", "file"),
        "tool": ("hook", "file"),
        "compacting": ("hook",),
        "permission": ("hook", "title"),
        "input": ("hook",),
        "ready": ("hook", "file"),
        "error": ("hook", "file"),
        "ended": ("process",),
    },
)

# Every client, in the order lists and reports name them.
CLIENTS: tuple[Client, ...] = (CLAUDE, CODEX, GEMINI, OPENCODE, COPILOT, PI, QWEN)


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
        if name in client.process.names:
            return client
    return None
