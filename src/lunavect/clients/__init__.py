"""Every client lunavect reads, one package each (`clients/<id>/`), and the registry that finds each one's face.

A descriptor (`lunavect.core.clients`) names its client's package; `face(client)` imports that package by the name
the first time it is asked and hands back its `FACE`, an instance of a subclass of `Face`. `Face` holds the
defaults of what most clients lack (a live catalog of processes, a session run apart from a terminal, a state
drawn in the terminal's title), so a client's face says only what its client has, and mypy checks every face
against this base. No client is named here, so adding a client is its package plus its descriptor. Callers above
the clients use the face or the helpers below, never a client's inner module: the collector its source and hook
mapping, the command line and doctor its installer, returning to a task its live catalog and its screen readers,
the peeks and `lunavect show` its conversation files. (What only one client has, Claude Code's HTTP hooks and
status line, its own users, the listener and `hooks install`, take from that client's package by its name.)

The import is by name, so import-linter sees no edge from here into a client: the contracts forbid this package
as a whole instead ("Front ends never reach a client's package"), and tests/test_house.py checks that nothing
else imports a client's package by name.
"""

from __future__ import annotations

import importlib
import sqlite3
from abc import ABC, abstractmethod
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from lunavect.conversation.source import Source as Conversation
from lunavect.core import clients
from lunavect.core.clients import Client
from lunavect.core.model import Evidence
from lunavect.core.pane_reading import Dialog, PromptReading
from lunavect.evidence import spool_record
from lunavect.evidence.sources import BackgroundJob, LiveEntry, Source
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.host.processes import ProcessTable
from lunavect.install import outcome
from lunavect.install.command import Http
from lunavect.install.file_status import FileStatus
from lunavect.install.hooks_file import HooksFileError


class HooksStatus(Protocol):
    """What a client's hooks file (and, for Codex, its trust) says of lunavect's hooks."""

    @property
    def path(self) -> Path: ...

    @property
    def state(self) -> str:  # installed | missing | partial | stale | unreadable | untrusted
        ...

    @property
    def detail(self) -> str: ...


S = TypeVar("S", bound=HooksStatus)


class Face(ABC, Generic[S]):
    """What a client's package offers the rest of lunavect, as one object (`FACE` in the package).

    The abstract members are what every client has; the others are what most clients lack, with the answer a
    client without such a thing gives. `S` is the client's own hooks status, which its `hooks_report` and
    `describe_status` read back.
    """

    CLIENT: Client

    # -- for the collector
    @abstractmethod
    def new_source(self) -> Source:
        """A new source of the client's evidence from its own files (transcripts, rollouts, its catalog)."""

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        """The evidence of one of its hook records as the shim spooled it, or None when it names no session
        (by default, read as the shared shape says: its events keep their names)."""
        return spool_record.evidence(record)

    @abstractmethod
    def home(self) -> Path:
        """The client's own folder (its settings, its logs): whether it is on this machine at all."""

    def present(self) -> bool:
        """Whether the person has this client here: its command on PATH, or its own folder (the setup report,
        and `hooks install`, which writes into no client the person does not have)."""
        import shutil

        return shutil.which(self.CLIENT.cli.command) is not None or self.home().exists()

    # -- its hooks (`lunavect hooks`, doctor, the setup report)
    @abstractmethod
    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> S:
        """What its hooks file says, checked against what `install_hooks(http=...)` writes; `verify` lets it
        ask the client itself (Codex's trust: it starts Codex's app-server)."""

    @abstractmethod
    def hooks_report(self, status: S) -> dict:
        """The status as `hooks status --json` prints it."""

    @abstractmethod
    def describe_status(self, status: S) -> str:
        """The status as one line of `hooks status`."""

    @abstractmethod
    def setup_lines(self, hooks: str) -> list[str]:
        """What the empty list says of the client's hooks in state `hooks`, and what to do next."""

    @abstractmethod
    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """Install or repair its hooks (HTTP hooks to `http` where its hooks can be HTTP hooks, else the command
        shim); the lines `hooks install` prints. `install.hooks_file.HooksRefused` with the line to print when it
        cannot."""

    @abstractmethod
    def uninstall_hooks(self) -> list[str]:
        """Remove its hooks and nothing else; the lines `hooks uninstall` prints. `HooksRefused` when it
        cannot."""

    def not_read(self) -> str | None:
        """What of the client on this machine lunavect cannot read yet (a newer major version), in one sentence
        for `doctor` and the empty panel; None when it reads all there is (what most faces answer)."""
        return None

    # -- read on demand (returning to a task, a reply, a peek)
    def live_catalog(self) -> Sequence[LiveEntry]:
        """Which session each of its running processes holds now, if the client keeps such a catalog (most do
        not: their hooks' process facts tell it)."""
        return ()

    def background_job(self, session_id: str, table: ProcessTable) -> BackgroundJob | None:
        """The job of a session the client runs in the background, apart from any terminal (its catalog's and
        jobs' word; `table` tells a live entry from a stale one), or None for any other session (and for every
        session of a client that runs none apart from a terminal)."""
        return None

    @abstractmethod
    def read_prompt(self, screen: str) -> PromptReading:
        """Its prompt on a pane's screen (with colour escapes)."""

    @abstractmethod
    def read_dialog(self, screen: str) -> Dialog | None:
        """Its permission dialog on a pane's screen, or None."""

    def offers_resend(self, screen: str) -> bool:
        """Whether its screen invites the person to send their message again after a failed turn (Claude
        Code's "Resend your message to try again"): a reply to a session in error is typed only then."""
        return False

    def read_title(self, title: str) -> str | None:
        """The state its terminal title shows (`busy`, `waiting`, `idle`), for a client that draws it there live
        (`Client.live_title`); None for a title that says nothing (and for every title of a client that draws
        no state there)."""
        return None

    @abstractmethod
    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        """The file a session's conversation is read from, or None when this machine holds none."""

    @abstractmethod
    def conversation_at(self, path: Path) -> Conversation:
        """The conversation of one of its files."""


# -- the face of a client whose every answer is one of its package's modules (its hook records' mapping, its
# installer of a file of lunavect's own, its screen readers, its conversation files): one body for what such faces
# share, each client's package naming its own modules (as protocols mypy checks a module against), so that no
# client imports another.


class HooksInstaller(Protocol[S]):
    """A client's installer of the one file its hooks are (a hooks file, its settings' hooks, an extension)."""

    def status(self) -> S: ...
    def describe_status(self, state: S) -> str: ...
    def install(self) -> bool: ...
    def uninstall(self) -> bool: ...
    def describe_install(self, changed: bool) -> str: ...


class Installer(HooksInstaller[FileStatus], Protocol):
    def report(self, state: FileStatus) -> dict: ...
    def settings_path(self) -> Path: ...


class Hooks(Protocol):
    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None: ...


class Layout(Protocol):
    def home(self, environ: dict[str, str] | None = None) -> Path: ...


class Screens(Protocol):
    def read_prompt(self, screen: str) -> PromptReading: ...
    def read_dialog(self, screen: str) -> Dialog | None: ...


class Pane(Screens, Protocol):
    def read_title(self, title: str) -> str | None: ...


class Conversations(Protocol):
    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None: ...
    def conversation_at(self, path: Path) -> Conversation: ...


class ModulesFace(Face[S]):
    """Its hooks are one file lunavect writes with the command shim or a plugin of its own (no HTTP hooks, nothing
    more to ask of the client), which its installer refuses to touch with `REFUSED`."""

    INSTALL: HooksInstaller[S]
    HOOKS: Hooks
    PANE: Screens
    CONVERSATION: Conversations
    REFUSED: ClassVar[type[Exception]]

    @abstractmethod
    def hooks_file(self) -> Path:
        """The file its hooks are, named by `hooks uninstall`."""

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        return self.HOOKS.evidence_from_record(record)

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> S:
        return self.INSTALL.status()

    def describe_status(self, status: S) -> str:
        return self.INSTALL.describe_status(status)

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        return outcome.install_lines(self.CLIENT.id, self.INSTALL.install, self.INSTALL.describe_install, self.REFUSED)

    def uninstall_hooks(self) -> list[str]:
        return outcome.uninstall_lines(self.CLIENT.id, self.INSTALL.uninstall, self.hooks_file(), self.REFUSED)

    def read_prompt(self, screen: str) -> PromptReading:
        return self.PANE.read_prompt(screen)

    def read_dialog(self, screen: str) -> Dialog | None:
        return self.PANE.read_dialog(screen)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        return self.CONVERSATION.find_conversation(session_id, conn)

    def conversation_at(self, path: Path) -> Conversation:
        return self.CONVERSATION.conversation_at(path)


class ChatFilesFace(ModulesFace[FileStatus]):
    """Its hooks are the command shim in settings.json, and every session of it appears from its chat files."""

    INSTALL: Installer
    LAYOUT: Layout
    PANE: Pane
    REFUSED = HooksFileError
    # What its hooks add to its chat files, in the empty list's advice.
    HOOKS_GIVE: ClassVar[str] = "permission prompts and exact states"

    @abstractmethod
    def new_source(self) -> Source:
        """Its chat files: every session of it appears from them, hooks or not."""

    def home(self) -> Path:
        return self.LAYOUT.home()

    def hooks_file(self) -> Path:
        return self.INSTALL.settings_path()

    def hooks_report(self, status: FileStatus) -> dict:
        return self.INSTALL.report(status)

    def setup_lines(self, hooks: str) -> list[str]:
        name = self.CLIENT.name
        if hooks == "installed":
            return [f"{name} hooks: installed. {name} sessions also appear from their chat files, hooks or not."]
        return [
            f"{name} hooks: {hooks}. {name} sessions still appear from their chat files;",
            f"run `lunavect hooks install` for {self.HOOKS_GIVE}.",
        ]

    def read_title(self, title: str) -> str | None:
        return self.PANE.read_title(title)


_faces: dict[str, Face[Any]] = {}


def face(client: Client) -> Face[Any]:
    """The client's face (its package's `FACE`, the package imported the first time it is asked)."""
    found = _faces.get(client.package)
    if found is None:
        found = _faces[client.package] = importlib.import_module(client.package).FACE
    return found


def face_of(client_id: str) -> Face[Any] | None:
    """The face of the client whose rows carry `client_id`, or None for a client lunavect does not know."""
    client = clients.by_id(client_id)
    return face(client) if client is not None else None


def faces() -> list[Face[Any]]:
    """Every client's face, in the descriptors' order."""
    return [face(client) for client in clients.every()]


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one spool record, mapped by its client's face; a record of a client lunavect does not
    know is read as the shared shape says (its events keep their names)."""
    found = face_of(record.client)
    return found.evidence_from_record(record) if found is not None else spool_record.evidence(record)


def live_catalog(provider: str) -> Sequence[LiveEntry]:
    """The live catalog of the session's client (empty for a client that keeps none, or that lunavect does not know)."""
    found = face_of(provider)
    return found.live_catalog() if found is not None else ()


def background_job(provider: str, session_id: str, table: ProcessTable) -> BackgroundJob | None:
    """The job of a session its client runs in the background (None for any other, or a client lunavect does
    not know)."""
    found = face_of(provider)
    return found.background_job(session_id, table) if found is not None else None


def find_conversation(provider: str, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
    """The file a session's conversation is read from, or None when this machine holds none."""
    found = face_of(provider)
    return found.find_conversation(session_id, conn) if found is not None else None


def conversation_at(path: Path, provider: str) -> Conversation:
    """The conversation of a file of `provider`'s. ValueError for a client lunavect does not know."""
    found = face_of(provider)
    if found is None:
        raise ValueError(f"lunavect reads no conversation of {provider}")
    return found.conversation_at(path)
