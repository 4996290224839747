"""Each client's face, found from its descriptor: the way from the rest of lunavect into every client's package.

A descriptor (`lunavect.core.clients`) names its client's package; this imports that package by the name the
first time it is asked and hands back its face (the package's `__init__`, which offers every member of `Face`).
No client is named here, so adding a client is its package plus its descriptor. Callers above the clients use
the face or the helpers below, never a client's inner module: the collector its source and hook mapping, the
command line and doctor its installer, returning to a task its live catalog and its screen readers, the peeks
and `lunavect show` its conversation files. (What only one client has, Claude Code's HTTP hooks and status
line, its own users, the listener and `hooks install`, take from that client's face by its name.)

The import is by name, so import-linter sees no edge from here into a client: the contracts name this module
instead ("Front ends never reach a client's package"), and tests/test_house.py checks that nothing else imports
a client's package by name.
"""

from __future__ import annotations

import importlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, cast

from lunavect.conversation.source import Source as Conversation
from lunavect.core import clients
from lunavect.core.clients import Client
from lunavect.core.model import Evidence
from lunavect.core.pane_reading import Dialog, PromptReading
from lunavect.evidence import spool_record
from lunavect.evidence.sources import BackgroundJob, LiveEntry, Source
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.host.processes import ProcessTable
from lunavect.install.command import Http


class HooksStatus(Protocol):
    """What a client's hooks file (and, for Codex, its trust) says of lunavect's hooks."""

    path: Path
    state: str  # installed | missing | partial | stale | unreadable | untrusted
    detail: str


class Face(Protocol):
    """What a client's package offers the rest of lunavect (its `__init__` defines each member, but for the
    ones in `OPTIONAL`, which a client without such a thing leaves out)."""

    CLIENT: Client

    # -- for the collector
    def new_source(self) -> Source:
        """A new source of the client's evidence from its own files (transcripts, rollouts, its catalog). (Not
        `source`: a face's names must not be those of its package's modules, which importing them would
        replace.)"""
        ...

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        """The evidence of one of its hook records as the shim spooled it, or None when it names no session."""
        ...

    def home(self) -> Path:
        """The client's own folder (its settings, its logs): whether it is on this machine at all."""
        ...

    # -- its hooks (`lunavect hooks`, doctor, the setup report)
    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> HooksStatus:
        """What its hooks file says, checked against what `install_hooks(http=...)` writes; `verify` lets it
        ask the client itself (Codex's trust: it starts Codex's app-server)."""
        ...

    def hooks_report(self, status: HooksStatus) -> dict:
        """The status as `hooks status --json` prints it."""
        ...

    def describe_status(self, status: HooksStatus) -> str:
        """The status as one line of `hooks status`."""
        ...

    def setup_lines(self, hooks: str) -> list[str]:
        """What the empty list says of the client's hooks in state `hooks`, and what to do next."""
        ...

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        """Install or repair its hooks (HTTP hooks to `http` where its hooks can be HTTP hooks, else the command
        shim); the lines `hooks install` prints. `install.hooks_file.HooksRefused` with the line to print when it
        cannot."""
        ...

    def uninstall_hooks(self) -> list[str]:
        """Remove its hooks and nothing else; the lines `hooks uninstall` prints. `HooksRefused` when it
        cannot."""
        ...

    # -- read on demand (returning to a task, a reply, a peek)
    def live_catalog(self) -> Sequence[LiveEntry]:
        """Which session each of its running processes holds now, if the client keeps such a catalog."""
        ...

    def background_job(self, session_id: str, table: ProcessTable) -> BackgroundJob | None:
        """The job of a session the client runs in the background, apart from any terminal (its catalog's and
        jobs' word; `table` tells a live entry from a stale one), or None for any other session."""
        ...

    def read_prompt(self, screen: str) -> PromptReading:
        """Its prompt on a pane's screen (with colour escapes)."""
        ...

    def read_dialog(self, screen: str) -> Dialog | None:
        """Its permission dialog on a pane's screen, or None."""
        ...

    def read_title(self, title: str) -> str | None:
        """The state its terminal title shows (`busy`, `waiting`, `idle`), for a client that draws it there live
        (`Client.live_title`); None for a title that says nothing."""
        ...

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        """The file a session's conversation is read from, or None when this machine holds none."""
        ...

    def conversation_at(self, path: Path) -> Conversation:
        """The conversation of one of its files."""
        ...


def _no_live_catalog() -> Sequence[LiveEntry]:
    return ()


def _no_background_job(session_id: str, table: ProcessTable) -> BackgroundJob | None:
    return None


def _no_title_state(title: str) -> str | None:
    return None


# What most clients do not have, and what a face that leaves it out offers instead: no catalog of which process
# holds which session (their hooks' process facts tell it), no session run apart from a terminal, no state drawn
# in the terminal's title. A new client's face then says only what its client has.
OPTIONAL = {
    "live_catalog": _no_live_catalog,
    "background_job": _no_background_job,
    "read_title": _no_title_state,
}

_faces: dict[str, Face] = {}


def of(client: Client) -> Face:
    """The client's face (its package, imported the first time, given the `OPTIONAL` members it leaves out)."""
    face = _faces.get(client.package)
    if face is None:
        package = importlib.import_module(client.package)
        for name, default in OPTIONAL.items():
            if not hasattr(package, name):
                setattr(package, name, default)
        face = _faces[client.package] = cast(Face, package)
    return face


def by_id(client_id: str) -> Face | None:
    """The face of the client whose rows carry `client_id`, or None for a client lunavect does not know."""
    client = clients.by_id(client_id)
    return of(client) if client is not None else None


def every() -> list[Face]:
    """Every client's face, in the descriptors' order."""
    return [of(client) for client in clients.every()]


def evidence_from_record(record: SpoolRecord) -> Evidence | None:
    """The evidence of one spool record, mapped by its client's face; a record of a client lunavect does not
    know is read as the shared shape says (its events keep their names)."""
    face = by_id(record.client)
    return face.evidence_from_record(record) if face is not None else spool_record.evidence(record)


def live_catalog(provider: str) -> Sequence[LiveEntry]:
    """The live catalog of the session's client (empty for a client that keeps none, or that lunavect does not know)."""
    face = by_id(provider)
    return face.live_catalog() if face is not None else ()


def background_job(provider: str, session_id: str, table: ProcessTable) -> BackgroundJob | None:
    """The job of a session its client runs in the background (None for any other, or a client lunavect does
    not know)."""
    face = by_id(provider)
    return face.background_job(session_id, table) if face is not None else None


def find_conversation(provider: str, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
    """The file a session's conversation is read from, or None when this machine holds none."""
    face = by_id(provider)
    return face.find_conversation(session_id, conn) if face is not None else None


def conversation_at(path: Path, provider: str) -> Conversation:
    """The conversation of a file of `provider`'s. ValueError for a client lunavect does not know."""
    face = by_id(provider)
    if face is None:
        raise ValueError(f"lunavect reads no conversation of {provider}")
    return face.conversation_at(path)
