"""Looking at this machine's clients for the setup report: are their hooks installed, are they here at all.

Only the collector (every `PROBE_EVERY_S`) and the command line call this: it reads each client's settings and
PATH (it never starts Codex to verify hook trust), which is the clients' business, not a front end's.
"""

from __future__ import annotations

from collections.abc import Mapping

from lunavect import clients
from lunavect.collector.setup_report import ClientSetup, SetupReport

PROBE_EVERY_S = 5.0


def probe() -> SetupReport:
    """Each client: on PATH or its folder here, and its hooks' state as its settings say."""
    return SetupReport(tuple(_client(face, face.present(), None) for face in clients.faces()))


def report_of(found: Mapping[str, tuple[bool, str]]) -> SetupReport:
    """A report of the clients' states as given (client id: (found, hooks)), in their words: what a test shows."""
    return SetupReport(tuple(_client(face, *found.get(face.CLIENT.id, (False, "missing"))) for face in clients.faces()))


def _client(face: clients.Face, found: bool, hooks: str | None) -> ClientSetup:
    state = face.hooks_status(verify=False).state if hooks is None else hooks
    return ClientSetup(face.CLIENT.id, found, state, tuple(face.setup_lines(state)))
