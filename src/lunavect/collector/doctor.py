"""`lunavect doctor`: the guide's "Settings → Connections", as one report of everything that can make the list
wrong, each problem with the one command that fixes it.

Per client: are the hooks installed (and, for Codex, trusted), when did the last event arrive and for which
session, when did the client's catalog last answer in full. Then the collector (running, how far behind, its
last error), the store (lunavect's, its schema, its pages intact) and the files a reader set aside. Nothing
here reads a transcript or an event's content: ids, times, states and paths only.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from lunavect import faults, paths, store
from lunavect.collector import process as collector_process
from lunavect.core import telling
from lunavect.core.times import bounded, elapsed
from lunavect.files import ownership, quarantine

# A collector whose last tick started longer ago than this is behind (the front ends' judgement too).
LAG_WARNING_S = collector_process.BEHIND_AFTER_S


@dataclass
class Problem:
    what: str
    fix: str


@dataclass
class Report:
    clients: dict[str, dict] = field(default_factory=dict)
    collector: dict = field(default_factory=dict)
    store: dict = field(default_factory=dict)
    quarantined: list[dict] = field(default_factory=list)
    # The guide's "Sessions in editors": each editor's companion, installed and answering (lunavect.navigation.editors).
    editors: list[dict] = field(default_factory=list)
    # Notifications that failed since the last one shown, and the newest reason (`lunavect.notify.sent.failing`).
    notifications: dict = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # A private API of a dependency that changed, and the slower or plainer way lunavect took instead: nothing is
    # wrong with the list, but an upgrade of lunavect brings the faster way back.
    fallbacks: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def _last_event(conn: sqlite3.Connection, provider: str, now: float) -> dict | None:
    row = conn.execute(
        "SELECT session_id, at FROM events WHERE provider = ? ORDER BY at DESC LIMIT 1", (provider,)
    ).fetchone()
    if row is None:
        return None
    return {"session": f"{provider}:{row[0]}", "age_s": round(max(0.0, now - row[1]), 1)}


def _catalog_age(conn: sqlite3.Connection, provider: str, now: float) -> float | None:
    row = conn.execute("SELECT at FROM catalog_listing WHERE provider = ?", (provider,)).fetchone()
    return round(max(0.0, now - row[0]), 1) if row else None


def _clients(report: Report, conn: sqlite3.Connection | None, now: float) -> None:
    from lunavect import clients

    for face in clients.faces():
        name, status = face.CLIENT.id, face.hooks_status()
        state, where, detail = status.state, str(status.path), status.detail
        entry: dict = {"hooks": state, "hooks_file": where, "detail": detail or None}
        # What its rows can ever show, and from where (`core.telling`): a quiet row says nothing of the rest.
        entry["tells"] = telling.as_json(face.CLIENT)
        entry["cannot_report"] = [telling.WHAT[what] for what in telling.cannot_tell(face.CLIENT)]
        entry["not_read"] = face.not_read()
        if conn is not None:
            entry["last_event"] = _last_event(conn, name, now)
            entry["catalog_complete_age_s"] = _catalog_age(conn, name, now)
        report.clients[name] = entry
        if state in ("missing", "partial", "stale"):
            report.problems.append(Problem(f"{name}: hooks {state}", "lunavect hooks install"))
        elif state == "unreadable":
            report.problems.append(Problem(f"{name}: {detail}", f"fix or move {where}, then lunavect hooks install"))
        elif state == "untrusted":
            report.problems.append(
                Problem(
                    f"{name}: hooks not trusted",
                    f"lunavect hooks install (or trust them in {face.CLIENT.name}'s /hooks)",
                )
            )


def _store(report: Report, now: float) -> sqlite3.Connection | None:
    path = paths.store_path()
    report.store = {"path": str(path), "exists": path.exists()}
    try:
        conn = store.connect()
    except (store.StoreError, OSError) as exc:
        report.store["ok"] = False
        report.store["error"] = str(exc)
        report.problems.append(Problem(f"store: {exc}", f"move {path} away (lunavect starts a new store)"))
        return None
    try:
        check = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
        schema = conn.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error as exc:
        check, schema = [str(exc)], None
    report.store.update(
        ok=check == ["ok"],
        schema=schema,
        size_bytes=path.stat().st_size if path.exists() else 0,
        check=None if check == ["ok"] else check,
    )
    if check != ["ok"]:
        report.problems.append(
            Problem(
                "store: damaged pages (" + "; ".join(check)[:200] + ")",
                f"move {path} away (lunavect starts a new store)",
            )
        )
    return conn


def _collector(report: Report, conn: sqlite3.Connection | None, now: float) -> None:
    pid = collector_process.collector_pid() if collector_process.is_running() else None
    tick = collector_process.last_tick(conn) if conn is not None else None
    lag = round(max(0.0, now - tick), 1) if tick is not None else None
    last_error = faults.last(conn) if conn is not None else None
    loops = faults.loop_failures(conn) if conn is not None else []
    report.collector = {
        "running": pid is not None,
        "pid": pid,
        "last_tick_age_s": lag,
        # A first start still reading the history: how far it got (`lunavect.collector.tick.READING_KEY`).
        "reading": (store.collector_values(conn).get("reading") or None) if conn is not None else None,
        "last_error": last_error,
        "loop_failures": [asdict(failure) for failure in loops],
    }
    log = paths.data_dir() / paths.LOG_FILE_NAME
    report.collector["log"] = str(log) if log.exists() else None
    for failure in loops:
        report.problems.append(
            Problem(
                f"collector: its {failure.loop} failed {failure.count} time(s), last: {failure.error}",
                f"it went on; see its log {log}, and report it",
            )
        )
    if pid is None:
        report.problems.append(
            Problem("collector: not running", "lunavect list (starts it), or lunavect daemon to see why it stops")
        )
    elif lag is None or lag > LAG_WARNING_S:
        report.problems.append(Problem(f"collector: behind (last tick {lag} s ago)", f"see its log {log}"))


def _notifications(report: Report, conn: sqlite3.Connection | None) -> None:
    """Notifications that failed since the last one shown: each is a moment the person was not told."""
    from lunavect.notify import push, sent

    if conn is None:
        return
    failed = sent.failing(conn)
    report.notifications = {"failing": len(failed), "last_reason": failed[0].reason if failed else None}
    pushed = push.status(conn)
    report.notifications["push"] = pushed
    failure = pushed["last_failure"]
    if pushed["failing"] and isinstance(failure, dict):
        report.problems.append(
            Problem(
                f"push: {pushed['failed']} failed in all, the last: {failure['reason']}",
                "check the services of your Apprise configuration; lunavect notifications push test says how it goes",
            )
        )
    if failed:
        report.problems.append(
            Problem(
                f"notifications: the last {len(failed)} failed ({failed[0].reason})",
                "run the collector where your desktop's notification server is reachable (start it from your "
                "desktop session, or lunavect service install); lunavect notifications test says how it goes",
            )
        )


def _quarantined(report: Report, conn: sqlite3.Connection | None) -> None:
    if conn is None:
        return
    for entry in quarantine.entries(conn):
        report.quarantined.append({"source": entry.source, "path": entry.path, "error": entry.error, "at": entry.at})
        if entry.path.startswith("/"):
            problem = Problem(
                f"{entry.source}: set aside {entry.path} ({entry.error})", f"move {entry.path} away, or report it"
            )
        else:  # no file: what a server answered, by where it came from (quarantine.Quarantine.note)
            problem = Problem(
                f"{entry.source}: ignored part of what {entry.path} answered ({entry.error})",
                "update the client, or report it with its version",
            )
        report.problems.append(problem)


def _data_folder(report: Report) -> None:
    data = paths.data_dir()
    why = ownership.why_not_mine(data, ownership.FOLDER)
    if why is not None and why != "missing":
        report.problems.append(Problem(f"data folder {data}: {why}", f"chmod 700 {data}"))
    elif why is None and not os.access(data, os.W_OK):  # a read-only file system, or a folder made read-only
        report.problems.append(
            Problem(
                f"data folder {data}: cannot be written, so no collector can run",
                "make it writable, or set $LUNAVECT_HOME",
            )
        )


def _editors(report: Report) -> None:
    from lunavect.navigation.editors import install as companions

    for status in companions.status():
        report.editors.append({**status.as_dict(), "summary": companions.describe(status)})
        report.problems.extend(Problem(p["what"], p["fix"]) for p in status.problems)


def _fallbacks(report: Report) -> None:
    """The private APIs lunavect checks before it relies on them, as the collector and the hook shim would find
    them (the web panel's is added by the command, which may import the web extra)."""
    import tempfile

    from lunavect.collector.wake import rust_problem
    from lunavect.files import inotify
    from lunavect.shim import jsoncodec

    if not jsoncodec.ACCELERATED:
        report.fallbacks.append(
            "CPython's _json.make_scanner is not usable: the hook shim decodes with the json module"
        )
    if not inotify.available():
        with tempfile.TemporaryDirectory() as folder:
            problem = rust_problem(Path(folder))
        if problem is not None:
            report.fallbacks.append(problem)


def examine(now: float | None = None) -> Report:
    """Everything `lunavect doctor` reports, looked at now."""
    now = time.time() if now is None else now
    report = Report()
    conn = _store(report, now)
    try:
        _clients(report, conn, now)
        _collector(report, conn, now)
        _notifications(report, conn)
        _quarantined(report, conn)
        _data_folder(report)
        _editors(report)
        _fallbacks(report)
    finally:
        if conn is not None:
            conn.close()
    return report


def _age(seconds: float | None) -> str:
    return "never" if seconds is None else f"{elapsed(seconds)} ago"


def _since(at: object) -> str:
    """How long ago a recorded moment was; "never" for a record whose time is no time (a damaged record must
    not take the whole report down)."""
    moment = bounded(at)
    return _age(None if moment is None else time.time() - moment)


def lines(report: Report) -> list[str]:
    """The report as text, one fact a line, problems last with their fixes."""
    out = []
    for name, client in report.clients.items():
        out.append(f"{name}: hooks {client['hooks']} ({client['hooks_file']})")
        if client["not_read"]:
            out.append(f"  not read yet: {client['not_read']}")
        if client["cannot_report"]:
            out.append(f"  cannot report: {', '.join(client['cannot_report'])} (its quiet rows say nothing of them)")
        if "last_event" in client:
            last = client["last_event"]
            out.append("  last event: " + (f"{_age(last['age_s'])} ({last['session']})" if last else "none yet"))
            out.append(f"  catalog last answered in full: {_age(client['catalog_complete_age_s'])}")
    c = report.collector
    state = f"running (pid {c['pid']})" if c["running"] else "not running"
    out.append(f"collector: {state}, last tick {_age(c['last_tick_age_s'])}")
    if c.get("reading"):
        out.append(f"  reading history: {c['reading']}")
    if c.get("last_error"):
        err = c["last_error"]
        out.append(f"  last error: {err.get('where')}: {err.get('error')} ({_since(err.get('at'))})")
    for failure in c.get("loop_failures", []):
        out.append(f"  {failure['loop']}: failed {failure['count']} time(s), went on; last {_since(failure['at'])}")
    s = report.store
    if s.get("ok"):
        out.append(f"store: ok, schema {s['schema']}, {s['size_bytes'] // 1024} KB ({s['path']})")
    else:
        out.append(f"store: NOT OK ({s['path']})")
    if report.notifications.get("failing"):
        n = report.notifications
        out.append(f"notifications: the last {n['failing']} failed: {n['last_reason']}")
    pushed = report.notifications.get("push") or {}
    if pushed.get("sent") or pushed.get("failed"):
        failure = pushed.get("last_failure") or {}
        last = f"; the last failure: {failure.get('reason')}" if pushed.get("failing") else ""
        out.append(f"push: {pushed['sent']} sent, {pushed['failed']} failed{last}")
    out.append(f"set-aside files: {len(report.quarantined)}")
    if report.editors:
        out.append("sessions in editors:")
        out.extend(f"  {editor['summary']}" for editor in report.editors)
    for fallback in report.fallbacks:
        out.append(f"fallback: {fallback}")
    if report.problems:
        out.append("")
        out.append(f"{len(report.problems)} problem(s):")
        for problem in report.problems:
            out.append(f"- {problem.what}")
            out.append(f"  fix: {problem.fix}")
    else:
        out.append("no problems found")
    return out
