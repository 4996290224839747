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
from lunavect.core.clients import by_id, name_of

# The last line of every explanation: where to look when the list (empty or not) seems wrong.
DOCTOR_HINT = "If this looks wrong, `lunavect doctor` checks every connection and names the fix."
# The key of the report in the store's `collector` table.
SETUP_KEY = "setup_report"


@dataclass(frozen=True)
class ClientSetup:
    """One client as the collector found it: on this machine or not, its hooks' state, and what the empty list
    says of them (its face's words, so that no front end reads a client's configuration or words)."""

    client: str  # the client's id
    found: bool
    hooks: str  # installed | untrusted | partial | stale | missing | unreadable
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class SetupReport:
    clients: tuple[ClientSetup, ...]


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
        found = json.loads(value)["clients"]
        return SetupReport(tuple(ClientSetup(**{**entry, "lines": tuple(entry["lines"])}) for entry in found))
    except (ValueError, TypeError, KeyError):
        return None


def _none_on_path(report: SetupReport) -> str:
    """`neither `claude` nor `codex` is`, or `none of `a`, `b` or `c` is`: the commands of the clients looked for."""
    commands = [f"`{client.cli.command}`" for entry in report.clients if (client := by_id(entry.client)) is not None]
    if len(commands) == 2:
        return f"neither {commands[0]} nor {commands[1]} is"
    if len(commands) < 2:
        return f"{''.join(commands) or 'no client'} is not"
    return f"none of {', '.join(commands[:-1])} or {commands[-1]} is"


def explain(report: SetupReport | None) -> list[str]:
    """The lines the empty panel shows."""
    lines = ["No sessions yet."]
    if report is None:
        lines.append("The collector has not looked at this machine's clients yet.")
        return lines
    found = [name_of(entry.client) for entry in report.clients if entry.found]
    lines.append("Clients found: " + (", ".join(found) if found else f"none ({_none_on_path(report)} on PATH)"))
    for entry in report.clients:
        lines.extend(entry.lines)
    lines.append(DOCTOR_HINT)
    return lines
