"""An invented process table (`lunavect.host.processes.ProcessTable`): the rules that place a session are tested
on processes, folders and sockets a test names, with no process of its own."""

from __future__ import annotations

from collections.abc import Iterator

from lunavect.host.processes import Proc


class FakeTable:
    def __init__(
        self, *procs: Proc, cwds: dict[int, str] | None = None, sockets: dict[int, list[str]] | None = None
    ) -> None:
        self.procs = {p.pid: p for p in procs}
        self.cwds = cwds or {}
        self.sockets = sockets or {}

    def get(self, pid: int) -> Proc | None:
        return self.procs.get(pid)

    def processes(self) -> Iterator[Proc]:
        return iter(list(self.procs.values()))

    def cwd(self, pid: int) -> str | None:
        return self.cwds.get(pid)

    def unix_sockets(self, pid: int) -> list[str]:
        return self.sockets.get(pid, [])
