"""Why the list is empty: are the hooks installed, which clients are here, what to run next.

A first-time person sees this instead of a blank list, in the panel and in `lunavect list` / `watch`. The
collector looks (`setup_probe`) and records the report in the store; front ends read it from there, so none of
them reads a client's configuration (let alone on a UI thread). The report is a plain value so tests can show
the panel with a report of their choosing.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass

from lunavect import store

# The last line of every explanation: where to look when the list (empty or not) seems wrong.
DOCTOR_HINT = "If this looks wrong, `lunavect doctor` checks every connection and names the fix."
# The key of the report in the store's `collector` table.
SETUP_KEY = "setup_report"


@dataclass(frozen=True)
class SetupReport:
    claude_hooks: str  # installed | partial | stale | missing | unreadable
    claude_found: bool
    codex_found: bool
    codex_hooks: str = "missing"  # installed | untrusted | partial | stale | missing | unreadable


def record(conn: sqlite3.Connection, report: SetupReport) -> bool:
    """Store `report` as the collector's latest look at the setup; True when it differs from the stored one."""
    value = json.dumps(dataclasses.asdict(report), sort_keys=True)
    if store.collector_values(conn).get(SETUP_KEY) == value:
        return False
    with store.transaction(conn):
        store.set_collector_value(conn, SETUP_KEY, value)
    return True


def stored(conn: sqlite3.Connection) -> SetupReport | None:
    """The setup as the collector last found it; None before any collector looked."""
    value = store.collector_values(conn).get(SETUP_KEY)
    if value is None:
        return None
    try:
        return SetupReport(**json.loads(value))
    except (ValueError, TypeError):
        return None


def explain(report: SetupReport | None) -> list[str]:
    """The lines the empty panel shows."""
    lines = ["No sessions yet."]
    if report is None:
        lines.append("The collector has not looked at this machine's clients yet.")
        return lines
    found = [name for name, present in (("Claude Code", report.claude_found), ("Codex", report.codex_found)) if present]
    lines.append("Clients found: " + (", ".join(found) if found else "none (neither `claude` nor `codex` is on PATH)"))
    if report.claude_hooks == "installed":
        lines.append("Claude Code hooks: installed.")
        lines.append("Start or continue a session in `claude`; it appears here as soon as it works.")
    else:
        lines.append(f"Claude Code hooks: {report.claude_hooks}.")
        lines.append("Run `lunavect hooks install`, then start or continue a session in `claude`.")
    if report.codex_hooks == "installed":
        lines.append("Codex hooks: installed. Codex sessions also appear from their rollouts, hooks or not.")
    elif report.codex_hooks == "untrusted":
        lines.append("Codex hooks: installed but not trusted yet: trust them in Codex's `/hooks`.")
    else:
        lines.append(f"Codex hooks: {report.codex_hooks}. Codex sessions still appear from their rollouts.")
    lines.append(DOCTOR_HINT)
    return lines
