"""Claude Code's live catalog: `$CLAUDE_CONFIG_DIR/sessions/<pid>.json`, one file per running session.

The client writes each interactive (and `--bg`) session's pid, its process start, its tmux pane, its name
and its status (idle, busy, or waiting and for what), and removes the file when the session exits. A
crashed client leaves its file behind, and the system may give its pid to another process, so an entry
counts only while its pid runs *and* that process started when the entry says (`procStart`, compared as
the client formats it: clock ticks since boot on Linux, `ps` lstart text on macOS).

This is the one reader of the catalog: the collector's source (claude/files_source.py) takes its status,
and returning to a task takes its pid, start, tmux pane, entrypoint and, for a background session, its job.
Comparing starts is host/processes.py's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import msgspec

from lunavect.clients.claude import titles
from lunavect.core import bounded_json
from lunavect.core.bounds import bounded, real
from lunavect.core.ids import is_session_id
from lunavect.files.quarantine import Quarantine
from lunavect.files.tail import open_regular
from lunavect.host.processes import Proc, parse_proc_start, proc_start_matches

STATUSES = frozenset({"idle", "busy", "waiting"})
MAX_ENTRIES = 2000
MAX_ENTRY_BYTES = 256 * 1024
# Session kinds the client declares as independent background sessions (`claude --bg`).
DECLARED_BACKGROUND = frozenset({"bg", "background", "daemon"})
# The pane id at the end of the `tmux` field, `<session>:@<window>.%<pane>`.
_PANE_RE = re.compile(r"%\d+$")
# A background session's job id (`jobId`, `claude attach <job id>`): 2.1.328 writes eight hex digits.
JOB_ID_RE = re.compile(r"[0-9a-f]{8,32}")


class _Row(msgspec.Struct):
    pid: object = None
    sessionId: object = None  # noqa: N815 - the client's field names
    cwd: object = None
    procStart: object = None  # noqa: N815
    version: object = None
    kind: object = None
    entrypoint: object = None
    tmux: object = None
    name: object = None
    nameSource: object = None  # noqa: N815
    jobId: object = None  # noqa: N815
    status: object = None
    waitingFor: object = None  # noqa: N815
    statusUpdatedAt: object = None  # noqa: N815
    updatedAt: object = None  # noqa: N815


_decoder = msgspec.json.Decoder(_Row)


@dataclass(frozen=True)
class CatalogEntry:
    """One catalog file's facts; `at` is when its status last changed, `started` when its process started
    as `procStart` says (epoch seconds both)."""

    pid: int
    session_id: str
    status: str | None = None
    waiting_for: str | None = None
    at: float | None = None
    proc_start: str | None = None
    started: float | None = None
    cwd: str | None = None
    version: str | None = None
    kind: str | None = None
    entrypoint: str | None = None
    tmux: str | None = None
    name: str | None = None
    # A background session's job (`claude --bg`): what `claude attach` takes.
    job_id: str | None = None

    @property
    def declared_background(self) -> bool:
        return self.kind in DECLARED_BACKGROUND

    @property
    def tmux_pane(self) -> str | None:
        """The exact tmux pane (`%N`) the session runs in, when it runs in tmux."""
        return tmux_pane(self.tmux)


def tmux_pane(value: object) -> str | None:
    """The pane id (`%N`) of a catalog's `tmux` field, `<session>:@<window>.%<pane>`."""
    if not isinstance(value, str):
        return None
    match = _PANE_RE.search(value)
    return match.group(0) if match else None


def job_id(value: object) -> str | None:
    """A job id as the client writes it, or None for anything else (it becomes a command's argument)."""
    return value if isinstance(value, str) and JOB_ID_RE.fullmatch(value) else None


def _text(value: object, limit: int = 4096) -> str | None:
    return value if isinstance(value, str) and value and len(value) <= limit else None


def _millis(value: object) -> float | None:
    number = real(value)  # an int too large for a float would raise in the division
    return None if number is None else bounded(number / 1000.0)


class Unusable(ValueError):
    """A catalog file no version of the client writes: what is wrong with it (never its content)."""


def parse_entry(pid: int, raw: bytes) -> CatalogEntry | None:
    """One catalog file, or None when it is not a usable entry for process `pid`."""
    try:
        return entry_of(pid, raw)
    except Unusable:
        return None


def entry_of(pid: int, raw: bytes) -> CatalogEntry:
    """One catalog file's entry for process `pid`; Unusable, saying why, when it is none."""
    if len(raw) > MAX_ENTRY_BYTES:
        raise Unusable(f"larger than {MAX_ENTRY_BYTES} bytes")
    try:
        row = bounded_json.decode(_decoder, raw)
    except msgspec.DecodeError as exc:  # not JSON, another shape, nested too deep
        raise Unusable(f"not a JSON object ({str(exc)[:80]})") from None
    if not (isinstance(row.sessionId, str) and is_session_id(row.sessionId)):
        raise Unusable("its sessionId is no session id")
    session_id = row.sessionId
    if isinstance(row.pid, int) and row.pid != pid:
        raise Unusable(f"it names pid {row.pid}, not the {pid} of its name")
    try:
        return _entry(pid, session_id, row)
    except Exception as exc:  # noqa: BLE001 - a field of a type no version wrote: this entry only is unusable
        raise Unusable(f"{type(exc).__name__}: {exc}"[:200]) from None


def _entry(pid: int, session_id: str, row: _Row) -> CatalogEntry:
    status = row.status if isinstance(row.status, str) and row.status in STATUSES else None
    name_source = _text(row.nameSource, 100)
    proc_start = _text(str(row.procStart) if isinstance(row.procStart, int) else row.procStart, 100)
    job = job_id(row.jobId) if row.kind in DECLARED_BACKGROUND else None
    name = titles.of(row.name) if name_source not in (None, "derived") else None  # cut and cleaned
    return CatalogEntry(
        pid=pid,
        session_id=session_id,
        status=status,
        waiting_for=_text(row.waitingFor, 200) if status == "waiting" else None,
        at=_millis(row.statusUpdatedAt) or _millis(row.updatedAt),
        proc_start=proc_start,
        started=parse_proc_start(proc_start),
        cwd=_text(row.cwd),
        version=_text(row.version, 100),
        kind=_text(row.kind, 100),
        entrypoint=_text(row.entrypoint, 100),
        tmux=_text(row.tmux, 200),
        # A derived name is the folder's; a name without a source is the first prompt; a background job is
        # named by its id until it has a name. None is a title.
        name=None if name == job else name,
        job_id=job,
    )


def read_catalog(
    config_dir: Path, quarantine: Quarantine | None = None, now: float = 0.0
) -> tuple[list[CatalogEntry], int]:
    """Every usable entry of the catalog, and how many files were not usable.

    With `quarantine`, each unusable file is set aside (and named by `lunavect doctor`) until it changes, and
    a file no longer there leaves it."""
    folder = config_dir / "sessions"
    try:
        names = sorted(os.listdir(folder))[:MAX_ENTRIES]
    except OSError:
        names = []
    entries: list[CatalogEntry] = []
    unusable = 0
    listed: set[str] = set()
    for name in names:
        stem, dot, ext = name.partition(".")
        if ext != "json" or not dot or not stem.isdigit():
            continue
        path = str(folder / name)
        listed.add(path)
        if quarantine is not None and quarantine.holds(path):
            unusable += 1
            continue
        try:
            with os.fdopen(open_regular(path), "rb") as f:
                raw = f.read(MAX_ENTRY_BYTES + 1)
        except OSError:
            continue  # removed while listed: its session just exited
        try:
            entries.append(entry_of(int(stem), raw))
        except Unusable as exc:
            unusable += 1
            if quarantine is not None:
                quarantine.put(path, exc, now)
    if quarantine is not None:
        quarantine.release_absent(listed)
    return entries, unusable


def started_as_recorded(entry: CatalogEntry, proc: Proc | None) -> bool | None:
    """Is the live process `proc` the one the entry names? None when its `procStart` cannot be compared."""
    return proc_start_matches(entry.proc_start, entry.pid, proc)


def is_live(entry: CatalogEntry, proc: Proc | None) -> bool:
    """An entry counts only for its own live process: a pid alone is no identity. When the start cannot be
    compared, the process must at least be a Claude runtime."""
    verdict = started_as_recorded(entry, proc)
    if verdict is None:
        return proc is not None and proc.runtime == "claude"
    return verdict
