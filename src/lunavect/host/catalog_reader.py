"""Claude Code's live catalog (`$CLAUDE_CONFIG_DIR/sessions/<pid>.json`), as locating a session needs it.

The files are read by `lunavect.claude.catalog` (the collector's source); this keeps just what placing a
session takes: its pid, the epoch time its process started (to compare with the live process table, since
pids are reused), its exact tmux pane and the client's entrypoint.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import psutil

from lunavect.claude import catalog as claude_catalog

_PANE_RE = re.compile(r"%\d+$")


@dataclass(frozen=True)
class CatalogEntry:
    pid: int
    session_id: str
    started: float | None
    tmux_pane: str | None
    entrypoint: str | None
    cwd: str | None


def parse_proc_start(value: object, boot_time: float | None = None) -> float | None:
    """The epoch start time a catalog's `procStart` names.

    Linux writes clock ticks since boot (a digit string); macOS writes `ps`'s lstart ("Thu Jun 11 21:53:36
    2026"). Anything else is unknown, and an unknown start never proves a pid is the same process.
    """
    if not isinstance(value, str) or not value:
        return None
    if value.isdigit():
        if boot_time is None:
            try:
                boot_time = psutil.boot_time()
            except (psutil.Error, OSError):
                return None
        try:
            ticks = os.sysconf("SC_CLK_TCK")
        except (ValueError, OSError):
            ticks = 100
        return boot_time + int(value) / ticks
    try:
        return time.mktime(time.strptime(" ".join(value.split()), "%a %b %d %H:%M:%S %Y"))
    except ValueError:
        return None


def tmux_pane(value: object) -> str | None:
    """The pane id (`%N`) of a catalog's `tmux` field, `<session>:@<window>.%<pane>`."""
    if not isinstance(value, str):
        return None
    match = _PANE_RE.search(value)
    return match.group(0) if match else None


def adapt(entries: Iterable[claude_catalog.CatalogEntry], boot_time: float | None = None) -> list[CatalogEntry]:
    return [
        CatalogEntry(
            pid=entry.pid,
            session_id=entry.session_id,
            started=parse_proc_start(entry.proc_start, boot_time),
            tmux_pane=tmux_pane(entry.tmux),
            entrypoint=entry.entrypoint,
            cwd=entry.cwd,
        )
        for entry in entries
    ]


def read_catalog(config_dir: Path) -> list[CatalogEntry]:
    """Every usable entry; malformed, oversized or vanishing files are skipped by the reader."""
    entries, _unusable = claude_catalog.read_catalog(config_dir)
    return adapt(entries)
