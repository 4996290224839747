"""Claude Code's background sessions (`claude --bg`), as its jobs folder and its live catalog name them.

Claude Code runs a background session under a service of its own, on a terminal of that service's, and keeps
`$CLAUDE_CONFIG_DIR/jobs/<job id>/state.json` for it beside the live catalog's entry (`"kind": "bg"`, `"jobId"`,
`"name"`). The job outlives its process: after `claude stop <job id>` the catalog entry is gone and the state
stays, and `claude attach <job id>` brings the session back into a terminal, running or not (the client says
so itself: "resume it later with `claude attach <id>`"). So this is where returning to such a session learns
that it is one and which job it is.

The state file holds the person's prompt, the session's last words and what it waits for: only its session
id and its name are decoded (never the rest), each checked here once: the folder's name and the job
id by pattern, the session id as an id, the name cut and cleaned, the file bounded in size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import msgspec

from lunavect.clients.claude import titles
from lunavect.clients.claude.catalog import CatalogEntry, is_live, job_id, read_catalog
from lunavect.core import bounded_json
from lunavect.core.ids import is_session_id
from lunavect.files.tail import open_regular
from lunavect.host.processes import ProcessTable

MAX_STATE_BYTES = 256 * 1024
# At most this many jobs are looked through for a session whose job is not the one its id begins with.
MAX_JOBS = 2000


class _State(msgspec.Struct):
    sessionId: object = None  # noqa: N815 - the client's field names
    name: object = None


_decoder = msgspec.json.Decoder(_State)


@dataclass(frozen=True)
class Job:
    """A background session's job: its id (what `claude attach` takes), its name when it has one, and whether
    its process runs now."""

    job_id: str
    session_id: str
    live: bool
    name: str | None = None


def read_state(config_dir: Path, job: str) -> Job | None:
    """The job `jobs/<job>/state.json` describes, or None when it is not a usable background job's state."""
    if job_id(job) is None:
        return None
    try:
        fd = open_regular(config_dir / "jobs" / job / "state.json")
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        raw = f.read(MAX_STATE_BYTES + 1)
    if len(raw) > MAX_STATE_BYTES:
        return None
    try:
        state = bounded_json.decode(_decoder, raw)
    except msgspec.DecodeError:
        return None
    if not is_session_id(state.sessionId):
        return None
    assert isinstance(state.sessionId, str)
    name = titles.of(state.name)
    return Job(job_id=job, session_id=state.sessionId, live=False, name=None if name == job else name)


def job_of(session_id: str, config_dir: Path) -> Job | None:
    """The job of a session that ran in the background, from the jobs folder: the one its id begins with (as
    2.1.328 names them), else any that names it."""
    first = read_state(config_dir, session_id.split("-", 1)[0].lower())
    if first is not None and first.session_id == session_id:
        return first
    try:
        names = sorted(os.listdir(config_dir / "jobs"))[:MAX_JOBS]
    except OSError:
        return None
    for name in names:
        found = read_state(config_dir, name) if job_id(name) is not None else None
        if found is not None and found.session_id == session_id:
            return found
    return None


def background_job(session_id: str, config_dir: Path, table: ProcessTable) -> Job | None:
    """The job of a session Claude Code runs in the background, or None for any other session.

    A live catalog entry decides first: a background one gives its job, running; an interactive one (the session
    resumed in a terminal since) means the session is no background job now. Without a live entry, the jobs
    folder says whether the session was one (stopped, or its service gone)."""
    entries, _unusable = read_catalog(config_dir)
    for entry in entries:
        if entry.session_id == session_id and is_live(entry, table.get(entry.pid)):
            return _running(entry, config_dir)
    return job_of(session_id, config_dir)


def _running(entry: CatalogEntry, config_dir: Path) -> Job | None:
    if not entry.declared_background or entry.job_id is None:
        return None
    state = read_state(config_dir, entry.job_id)
    name = entry.name or (state.name if state is not None and state.session_id == entry.session_id else None)
    return Job(job_id=entry.job_id, session_id=entry.session_id, live=True, name=name)
