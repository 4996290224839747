"""Codex rollout files: their names, their `session_meta` headers, and where to find them.

Codex writes one JSON-lines rollout per thread under `$CODEX_HOME/sessions/YYYY/MM/DD/`. The file name carries
the thread id, and newer builds may add a segment id after it (`<thread>_<segment>`); only a bounded read of the
first record proves which thread a file belongs to, so a segmented name is accepted only when its header names
the same thread. Archived threads live apart, in a flat `archived_sessions/` folder, and are never live.

Everything here reads files only as far as it must and never keeps prompt or reply text, with one exception the
guide asks for: a title, which may be the first line of the thread's first prompt, cut short.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Generator, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lunavect.core import lenient_json
from lunavect.core.ids import is_session_id
from lunavect.core.times import epoch
from lunavect.files.tail import open_regular

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
# rollout-2026-11-29T14-38-32-<thread>[_<segment>].jsonl[.zst]: the strict form the recorder writes (compressed
# once Codex stopped writing to it).
_NAME_RE = re.compile(
    rf"^rollout-(?P<stamp>\d{{4}}-\d{{2}}-\d{{2}}T\d{{2}}-\d{{2}}-\d{{2}})-(?P<thread>{_UUID})(?:_(?P<segment>{_UUID}))?\.jsonl(?P<zst>\.zst)?\Z"
)
# `\Z`, not `$`: `$` also matches before a final newline, so `<uuid>\n` would pass for a thread id.
UUID_RE = re.compile(rf"\A{_UUID}\Z")
SESSIONS_DIR = "sessions"
ARCHIVED_DIR = "archived_sessions"
MEMORIES_DIR = "memories"
SESSION_INDEX = "session_index.jsonl"

# The first record can hold the full base instructions (tens of KB); a header larger than this is not trusted.
HEADER_MAX_BYTES = 1024 * 1024
# How far into a rollout the first prompt is looked for when no better title is known.
FIRST_PROMPT_MAX_BYTES = 2 * 1024 * 1024
# The first block read of a rollout's beginning (the next ones double): enough for most headers and prompts.
FIRST_READ_BYTES = 64 * 1024
TITLE_MAX_CHARS = 80
# Originators that are Codex Desktop itself; `vscode` (also written by Desktop) alone proves nothing.
DESKTOP_ORIGINATORS = frozenset({"Codex Desktop", "codex_work_desktop"})


@dataclass(frozen=True)
class RolloutName:
    """What a rollout's file name says: the primary thread id, an optional segment id, its local start stamp."""

    thread_id: str
    segment_id: str | None
    stamp: str
    compressed: bool = False


def parse_name(name: str) -> RolloutName | None:
    """The thread a rollout file name belongs to, or None when the name is not one Codex writes."""
    match = _NAME_RE.match(name)
    if match is None:
        return None
    segment = (match["segment"] or "").lower() or None
    return RolloutName(match["thread"].lower(), segment, match["stamp"], match["zst"] is not None)


def prefix_lines(path: Path | str, max_bytes: int) -> Generator[bytes, None, None]:
    """`read_prefix(path, max_bytes).split(b"\n")`, read lazily in growing blocks: a reader that finds what it
    looks for in the first lines (the header, the first prompt: within the first tens of KB of nearly every
    rollout, where the bound is megabytes) reads no further. OSError when the file cannot be read."""
    if str(path).endswith(".zst"):
        yield from read_prefix(path, max_bytes).split(b"\n")
        return
    fd = open_regular(path)
    try:
        pending, pos, step = b"", 0, FIRST_READ_BYTES
        while pos < max_bytes:
            chunk = os.pread(fd, min(step, max_bytes - pos), pos)
            if not chunk:
                break
            pos, step = pos + len(chunk), step * 2
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
            yield from lines
        yield pending
    finally:
        os.close(fd)


def read_prefix(path: Path | str, max_bytes: int) -> bytes:
    """The first `max_bytes` of a rollout's records, plain or compressed; OSError when it cannot be read."""
    if str(path).endswith(".zst"):
        from lunavect.clients.codex import compressed  # it reads with the cursor, which reads with this module

        return compressed.read_prefix(path, max_bytes)
    with os.fdopen(open_regular(path), "rb") as f:
        return f.read(max_bytes)


@dataclass(frozen=True)
class Header:
    """The facts of a rollout's first `session_meta` record (every field optional: versions differ)."""

    thread_id: str
    cwd: str | None = None
    originator: str | None = None
    source: object = None
    thread_source: str | None = None
    cli_version: str | None = None
    parent_thread_id: str | None = None
    started: float | None = None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def header_from_record(record: object, replaced: bool = False) -> Header | None:
    """The header a parsed first record describes, or None when it is no `session_meta`. `replaced`: invalid
    UTF-8 was replaced in decoding its line (a folder holding a replaced byte names no real folder)."""
    if not isinstance(record, dict) or record.get("type") != "session_meta":
        return None
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return None
    thread = _str(payload.get("id")) or _str(payload.get("session_id"))
    if thread is None or not UUID_RE.match(thread):
        return None
    return Header(
        thread_id=thread.lower(),
        cwd=lenient_json.exact(payload.get("cwd"), replaced),
        originator=_str(payload.get("originator")),
        source=payload.get("source"),
        thread_source=_str(payload.get("thread_source")),
        cli_version=_str(payload.get("cli_version")),
        parent_thread_id=_parent(payload.get("parent_thread_id")) or _spawn_parent(payload.get("source")),
        started=epoch(payload.get("timestamp")) or epoch(record.get("timestamp")),
    )


def _spawn_parent(source: object) -> str | None:
    """The parent named by a `{"subagent": {"thread_spawn": {"parent_thread_id": ...}}}` source."""
    if not isinstance(source, dict):
        return None
    agent = source.get("subagent") or source.get("subAgent")
    spawn = agent.get("thread_spawn") if isinstance(agent, dict) else None
    return _parent(spawn.get("parent_thread_id")) if isinstance(spawn, dict) else None


def _parent(value: object) -> str | None:
    """A parent thread's id, checked where it enters like every id: one that is no id is no parent."""
    return value if isinstance(value, str) and is_session_id(value) else None


def read_header(path: Path | str, max_bytes: int = HEADER_MAX_BYTES) -> Header | None:
    """The first record's header, read with a bound: None when it is missing, malformed or too large."""
    try:
        with contextlib.closing(prefix_lines(path, max_bytes)) as lines:
            first, second = next(lines), next(lines, None)
    except OSError:
        return None
    if second is None:
        return None  # no complete first line within the bound (or a file still being created)
    try:
        return header_from_record(*lenient_json.loads(first))
    except ValueError:
        return None


def accepted_thread(path: Path) -> str | None:
    """The thread a rollout file belongs to, when its name is strict and, for a segmented name, its header agrees.

    The extra segment id is not a new task: discovery always answers the primary thread id.
    """
    name = parse_name(path.name)
    if name is None:
        return None
    if name.segment_id is not None:
        header = read_header(path)
        if header is None or header.thread_id != name.thread_id:
            return None
    return name.thread_id


# -- who a thread is ----------------------------------------------------------------------------------------


def is_subagent_source(source: object) -> bool:
    """Explicit sub-agent metadata: `{"subagent": ...}` in rollouts, `{"subAgent": ...}` from the app-server."""
    if isinstance(source, dict):
        return any(key in source for key in ("subagent", "subAgent", "internal"))
    return isinstance(source, str) and source.lower().startswith("subagent")


def is_internal(header: Header | None, memories: Path | None = None) -> bool:
    """A thread that is no independent user session: a spawned child, a review or compaction worker, or
    Codex's memory consolidation agent."""
    if header is None:
        return False
    if header.parent_thread_id or is_subagent_source(header.source):
        return True
    if header.thread_source in ("subagent", "memory_consolidation"):
        return True
    return memories is not None and is_within(header.cwd, memories)


def is_within(path: str | None, folder: Path) -> bool:
    """True when `path` is `folder` or lies under it, both resolved (a same-named folder elsewhere is not)."""
    if not path:
        return False
    try:
        resolved = os.path.realpath(path)
        root = _resolved_folder(folder)
    except (OSError, ValueError):
        return False
    # Both normalised by realpath: a string prefix up to a separator is the folder relation, without pathlib.
    return resolved == root or resolved.startswith(root.rstrip(os.sep) + os.sep)


# Codex's own folders (archived sessions, memories), resolved once a minute rather than for each rollout read.
_FOLDER_TTL_S = 60.0
_folders: dict[str, tuple[float, str]] = {}


def _resolved_folder(folder: Path) -> str:
    key, clock = os.fspath(folder), time.monotonic()
    known = _folders.get(key)
    if known is None or clock - known[0] >= _FOLDER_TTL_S:
        if len(_folders) >= 64:
            _folders.clear()
        known = _folders[key] = (clock, os.path.realpath(key))
    return known[1]


def client_of(originator: str | None, source: object = None) -> str | None:
    """Which client a thread runs in, as far as its metadata proves it.

    Only the exact Desktop originators make a Desktop session: the `vscode` source is also what the TUI and
    editors write.
    """
    if originator in DESKTOP_ORIGINATORS:
        return "desktop"
    if originator == "codex_exec" or source == "exec":
        return "exec"
    if originator in ("codex-tui", "codex_cli_rs") or source == "cli":
        return "cli"
    if originator == "codex_vscode":
        return "vscode"
    if source in ("appServer", "mcp"):
        return "app-server"
    return None


# -- titles -------------------------------------------------------------------------------------------------


def short_title(text: object) -> str | None:
    """The first non-empty line of a text, cut to a title's length."""
    if not isinstance(text, str):
        return None
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= TITLE_MAX_CHARS else line[: TITLE_MAX_CHARS - 1] + "…"
    return None


def first_prompt_title(path: Path | str, max_bytes: int = FIRST_PROMPT_MAX_BYTES) -> str | None:
    """A title from the thread's first prompt (its first `user_message` event), read with a bound."""
    try:
        with contextlib.closing(prefix_lines(path, max_bytes)) as lines:
            return _first_prompt_title(lines)
    except OSError:
        return None


def _first_prompt_title(lines: Iterable[bytes]) -> str | None:
    for line in lines:
        if b'"user_message"' not in line and b'"UserMessage"' not in line:
            continue
        try:
            record, _replaced = lenient_json.loads(line)  # a title: one odd character rather than none
        except ValueError:
            continue
        if not isinstance(record, dict):  # `["user_message"]`: a line, but no record
            continue
        payload = record.get("payload")
        if record.get("type") != "event_msg" or not isinstance(payload, dict):
            continue
        if payload.get("type") == "user_message":  # up to early 2026
            return short_title(payload.get("message"))
        item = payload.get("item")
        if payload.get("type") == "item_completed" and isinstance(item, dict) and item.get("type") == "UserMessage":
            # 0.169.0: the prompt as a completed item, its text in content parts
            content = item.get("content")
            parts = content if isinstance(content, list) else []
            text = "\n".join(p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str))
            return short_title(text)
    return None


@dataclass
class SessionIndex:
    """Thread names from `session_index.jsonl` (append-only; the last entry of an id wins), read incrementally."""

    path: Path
    names: dict[str, str] = field(default_factory=dict)
    _identity: tuple[int, int] | None = None
    _offset: int = 0

    def refresh(self, max_bytes: int = 4 * 1024 * 1024) -> dict[str, str]:
        try:
            with os.fdopen(open_regular(self.path), "rb") as f:
                st = os.fstat(f.fileno())
                identity = (st.st_dev, st.st_ino)
                if identity != self._identity or st.st_size < self._offset:
                    self._identity, self._offset, self.names = identity, 0, {}
                f.seek(self._offset)
                data = f.read(max_bytes)
        except OSError:
            return self.names
        end = data.rfind(b"\n")
        if end < 0:
            return self.names
        for line in data[: end + 1].splitlines():
            try:
                entry, _replaced = lenient_json.loads(line)  # a name: one odd character rather than none
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("id"), str) and UUID_RE.match(entry["id"]):
                title = short_title(entry.get("thread_name"))
                if title:
                    self.names[entry["id"].lower()] = title
        self._offset += end + 1
        return self.names


# -- discovery ----------------------------------------------------------------------------------------------


@dataclass
class Budget:
    """How much one discovery pass may look at: directory entries and wall time."""

    entries: int = 4000
    seconds: float = 0.25
    days: int = 7
    spent_entries: int = 0
    started: float = field(default_factory=time.monotonic)

    def take(self, count: int = 1) -> bool:
        self.spent_entries += count
        return self.spent_entries <= self.entries and time.monotonic() - self.started <= self.seconds

    @property
    def exhausted(self) -> bool:
        return self.spent_entries > self.entries or time.monotonic() - self.started > self.seconds


def _numbered(folder: Path, width: int, budget: Budget) -> list[str]:
    """Sub-folders named by a zero-padded number, newest first."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    budget.take(len(names))
    return sorted((n for n in names if len(n) == width and n.isdigit()), reverse=True)


def discover(codex_home: Path, budget: Budget | None = None) -> list[Path]:
    """Recent rollout files, newest day first, within an entry and time budget.

    Day folders are named by local time; the newest `budget.days` of them are enumerated. Filename recency only
    orders discovery: it never says that a thread works.
    """
    budget = budget or Budget()
    root = codex_home / SESSIONS_DIR
    found: list[Path] = []
    days = 0
    for year in _numbered(root, 4, budget):
        for month in _numbered(root / year, 2, budget):
            for day in _numbered(root / year / month, 2, budget):
                if days >= budget.days or budget.exhausted:
                    return found
                days += 1
                folder = root / year / month / day
                try:
                    names = os.listdir(folder)
                except OSError:
                    continue
                if not budget.take(len(names)):
                    names = names[: max(0, budget.entries - (budget.spent_entries - len(names)))]
                plain = set(names)
                # When Codex left both forms, the plain one is current (it rewrites before appending).
                rollouts = sorted(
                    (n for n in names if parse_name(n) is not None and not (n.endswith(".zst") and n[:-4] in plain)),
                    reverse=True,
                )
                found.extend(folder / n for n in rollouts)
    return found


def is_archived(path: Path | str, codex_home: Path) -> bool:
    """Archived threads live apart; they are never live sessions."""
    return is_within(str(path), codex_home / ARCHIVED_DIR)
