"""One read of one Claude Code transcript: the lines appended since its cursor, folded into its summary, its
background-work observations, its usage and the evidence the collector stores.

Kept apart from choosing which files to read (files_source.py) and from the rows that outlive each read
(transcript_rows.py). Evidence ids name what changed and the read's offset, so reading the same content again
gives the same ids and the collector stores each change once.
"""

from __future__ import annotations

import hashlib
import sqlite3

from lunavect.clients.claude import agents
from lunavect.clients.claude.file_read import FileRead
from lunavect.clients.claude.fold import fold_lines
from lunavect.clients.claude.latest import PROVIDER, Latest
from lunavect.clients.claude.subagent_usage import read_agents
from lunavect.clients.claude.summary import TranscriptSummary
from lunavect.clients.claude.transcript import AppendedLines, Cursor
from lunavect.clients.claude.transcript_rows import load_observations, stored_summary
from lunavect.core.model import Evidence


def _short_hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


def _summary_evidence(read: FileRead, topic: str, key: str, kind: str, at: float, **fields) -> tuple[str, Evidence]:
    """Evidence that what the transcript says about its session (`topic`) changed to the state hashed as
    `key`. The id names that key and the read's offset, so reading the same content again gives the same id
    and the collector stores the change once."""
    return (
        f"transcript:{read.session_id}:{topic}:{key}:{read.cursor.offset}",
        Evidence(provider=PROVIDER, session_id=read.session_id, kind=kind, at=at, source="transcript", **fields),
    )


def read_transcript(
    conn: sqlite3.Connection,
    path: str,
    session_id: str,
    known: tuple[str, Cursor] | None,
    budget: int,
    now: float,
    glanced_at: float | None = None,
) -> FileRead:
    """Read what was appended to one transcript since its stored cursor (`known`), within `budget` bytes.

    `glanced_at` is the newest activity a glance already handed over for a file never read (None when it was
    not glanced at): this read hands over only what is newer."""
    cursor = known[1] if known is not None else None
    summary = stored_summary(conn, path, session_id) if known is not None else TranscriptSummary(session_id)
    if known is None and glanced_at is not None:
        summary.glanced_at = glanced_at
    latest = Latest(session_id)
    with AppendedLines(path, cursor, budget) as lines:
        if lines.restarted:
            summary = TranscriptSummary(session_id=session_id)
        untimed = summary.first_at is None and not lines.restarted
        folded = fold_lines(lines, summary, latest, now)
        observations, usage = folded.observations, folded.usage
        new_cursor = lines.cursor()
        read_agents(path, summary.agents, now, usage)
        read = FileRead(
            path=path,
            session_id=session_id,
            cursor=new_cursor,
            summary=summary,
            restarted=lines.restarted,
            first_timed=untimed and summary.first_at is not None,
            observations=observations,
            bytes_read=lines.end - lines.start,
            skipped=folded.skipped,
            usage=usage,
        )
    read.evidence.extend(latest.evidence(after=summary.glanced_at))
    if summary.glanced_at is not None and read.cursor.partial:
        return read  # a glance listed it: half a file's title and background work would only mislead
    meta = meta_evidence(read, now)
    if meta is not None:
        read.evidence.append(meta)
    if observations or read.restarted:
        background = _background_evidence(conn, read, now)
        if background is not None:
            read.evidence.append(background)
    return read


def meta_evidence(read: FileRead, now: float) -> tuple[str, Evidence] | None:
    """The session's title and project metadata, when they changed: never activity."""
    summary = read.summary
    values = (summary.title, summary.cwd, summary.branch, summary.version, summary.entrypoint)
    if not any(values):
        return None
    key = _short_hash(repr(values))
    if key == summary.sent_meta:
        return None
    summary.sent_meta = key
    at = summary.last_at if summary.last_at is not None else summary.first_at
    if at is None:
        at = read.cursor.mtime_ns / 1e9 if read.cursor.mtime_ns else now
    title, cwd, branch, version, entrypoint = values
    return _summary_evidence(
        read,
        "meta",
        key,
        "TranscriptMeta",
        at,
        title=title,
        cwd=cwd,
        branch=branch,
        version=version,
        entrypoint=entrypoint,
    )


def _background_evidence(conn: sqlite3.Connection, read: FileRead, now: float) -> tuple[str, Evidence] | None:
    """The running background work, when it changed. Observations already stored are read from the
    store beside this read's new ones (a file read again from its start has none stored)."""
    known = [] if read.restarted else load_observations(conn, read.path)
    tasks = agents.finish(known + read.observations)
    running = agents.running_background(tasks)
    key = _short_hash(repr(sorted((t.kind, t.id or "", t.service) for t in running)))
    summary = read.summary
    # Nothing to say when nothing changed, or when a first read finds nothing running; a file read again
    # from its start always says it, since what the old content started may be gone.
    if key == summary.sent_background or (summary.sent_background is None and not running and not read.restarted):
        summary.sent_background = key
        return None
    summary.sent_background = key
    at = summary.last_at if summary.last_at is not None else now
    return _summary_evidence(read, "background", key, "TranscriptBackground", at, background=running)
