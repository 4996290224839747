"""A stand-in third client, as small as a client package can be: its descriptor and its face, nothing else.

The tests register its descriptor beside Claude Code's and Codex's (`clients.CLIENTS`) and watch it flow
through the collector, the hooks commands, doctor, the setup report, resume, the panel's and the web page's
provider filter, without any other module knowing of it: adding a client is one package and one descriptor.
Its "files" are one JSON file per session in its home (`sessions/<id>.json`, holding the folder of a session
its person just prompted), and
its hooks file is a hooks.json of the shape lunavect's installer writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lunavect.clients import Face
from lunavect.conversation.message import Kind, Message
from lunavect.conversation.parts import Part, place
from lunavect.conversation.source import Source as Conversation
from lunavect.core.clients import Cli, Client, Process
from lunavect.core.model import Evidence
from lunavect.core.pane_reading import Dialog, PromptReading
from lunavect.evidence.sources import Batch, Source
from lunavect.evidence.spool_record import SpoolRecord
from lunavect.evidence.spool_record import evidence as shared_evidence
from lunavect.install import hooks_file
from lunavect.install.command import Http, hook_command
from lunavect.install.hooks_file import HooksRefused

CLIENT = Client(
    id="standin",
    name="Stand-in CLI",
    label="Stand-in",
    package="standin_client",
    cli=Cli("standin", resume=("--continue",)),
    process=Process(("standin",)),
    tells={"working": ("hook",), "ready": ("hook",)},
)
EVENTS = ("SessionStart", "UserPromptSubmit", "Stop")


def home() -> Path:
    return Path(os.environ["HOME"]) / ".standin"


class StandinSource(Source):
    """One prompt per session file, read once."""

    name = "standin"

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def poll(self, conn: sqlite3.Connection, now: float) -> Batch:
        found = []
        for path in sorted((home() / "sessions").glob("*.json")):
            if path.stem in self.seen:
                continue
            self.seen.add(path.stem)
            cwd = json.loads(path.read_text())["cwd"]
            evidence = Evidence(CLIENT.id, path.stem, "UserPromptSubmit", now, source="hook", cwd=cwd)
            found.append((f"standin:{path.stem}", evidence))
        return Batch(evidence=found)


@dataclass
class Status:
    path: Path
    state: str
    detail: str = ""
    missing: list[str] = field(default_factory=list)


def hooks_path() -> Path:
    return home() / "hooks.json"


def _parts(record: Any, offset: int, *, sidechain: bool = False) -> list[Part]:
    text = record.get("text") if isinstance(record, dict) else None
    return [Message(place(offset, 0), Kind.PROMPT, text)] if isinstance(text, str) else []


class StandinFace(Face[Status]):
    """The stand-in's face: only what every client has (the base gives the rest)."""

    CLIENT = CLIENT

    def new_source(self) -> Source:
        return StandinSource()

    def evidence_from_record(self, record: SpoolRecord) -> Evidence | None:
        return shared_evidence(record)

    def home(self) -> Path:
        return home()

    def hooks_status(self, *, http: Http | None = None, verify: bool = True) -> Status:
        try:
            found = hooks_file.entries(hooks_file.load(hooks_path()), EVENTS, hook_command(CLIENT.id))
        except hooks_file.HooksFileError as exc:
            return Status(hooks_path(), "unreadable", str(exc))
        return Status(hooks_path(), found.state, found.detail, found.missing)

    def hooks_report(self, status: Status) -> dict:
        return {"state": status.state, "hooks": str(status.path)}

    def describe_status(self, status: Status) -> str:
        return hooks_file.describe(CLIENT.id, status.state, status.path, status.detail, status.missing)

    def setup_lines(self, hooks: str) -> list[str]:
        return [f"{CLIENT.name} hooks: {hooks}."]

    def install_hooks(self, *, http: Http | None = None) -> list[str]:
        try:
            changed = hooks_file.install_hooks(hooks_path(), hook_command(CLIENT.id), EVENTS)
        except (hooks_file.HooksFileError, OSError) as exc:
            raise HooksRefused(f"{CLIENT.id}: {exc}") from None
        return [f"{CLIENT.id}: {'installed' if changed else 'already installed'} in {hooks_path()}"]

    def uninstall_hooks(self) -> list[str]:
        removed = hooks_file.uninstall_hooks(hooks_path())
        return [f"{CLIENT.id}: {'removed' if removed else 'nothing to remove'} in {hooks_path()}"]

    def read_prompt(self, screen: str) -> PromptReading:
        return PromptReading(None, "the stand-in draws no prompt")

    def read_dialog(self, screen: str) -> Dialog | None:
        return None

    def conversation_at(self, path: Path) -> Conversation:
        return Conversation(path, CLIENT.id, _parts)

    def find_conversation(self, session_id: str, conn: sqlite3.Connection | None = None) -> Conversation | None:
        path = home() / "sessions" / f"{session_id}.jsonl"
        return self.conversation_at(path) if path.is_file() else None


FACE = StandinFace()
