"""Where a session lives, decided from invented process tables: the recorded process (with its start time
guarding against pid reuse), a parent's terminal for detached processes, Claude Code's catalog, and the
folder rule that never treats two sessions in one folder as interchangeable."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from process_tables import FakeTable

from lunavect.clients.claude.catalog import CatalogEntry, tmux_pane
from lunavect.host.processes import Proc, ancestry, is_same_process, parse_proc_start
from lunavect.navigation.locate import Status, locate, terminal_of


@dataclass
class S:
    id: str
    provider: str = "claude"
    session_id: str = ""
    cwd: str | None = None
    pid: int | None = None
    tty: str | None = None
    pstart: float | None = None
    client: str | None = None
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.session_id = self.session_id or self.id.split(":", 1)[1]


TMUX = Proc(100, 1, "tmux: server", "tmux", None, 1000.0)
SHELL = Proc(200, 100, "bash", "bash", "/dev/pts/3", 1100.0)
CLAUDE = Proc(300, 200, "claude", "claude", "/dev/pts/3", 1200.0)


def test_recorded_process_and_its_own_terminal() -> None:
    table = FakeTable(TMUX, SHELL, CLAUDE)
    where = locate(S("claude:a", pid=300, tty="/dev/pts/3", pstart=1200.3), table)
    assert (where.status, where.pid, where.tty, where.via) == (Status.LIVE, 300, "/dev/pts/3", "hook")


def test_a_reused_pid_is_not_the_session() -> None:
    """Same pid, started at another time: the session's process has exited."""
    table = FakeTable(TMUX, SHELL, Proc(300, 200, "claude", "claude", "/dev/pts/3", 5000.0))
    where = locate(S("claude:a", pid=300, tty="/dev/pts/3", pstart=1200.0), table)
    assert where.status == Status.FINISHED and where.tty is None


def test_an_exited_process_is_finished_even_if_its_device_is_in_use_again() -> None:
    """The recorded device now belongs to a new shell: never a reason to focus it."""
    table = FakeTable(TMUX, SHELL)
    where = locate(S("claude:a", pid=300, tty="/dev/pts/3", pstart=1200.0), table)
    assert where.status == Status.FINISHED and "exited" in (where.detail or "")


def test_a_zombie_is_not_alive() -> None:
    table = FakeTable(TMUX, SHELL, Proc(300, 200, "claude", "claude", "/dev/pts/3", 1200.0, zombie=True))
    assert locate(S("claude:a", pid=300, pstart=1200.0), table).status == Status.FINISHED


def test_the_device_the_process_has_now_wins_over_the_recorded_one() -> None:
    table = FakeTable(TMUX, SHELL, CLAUDE)
    where = locate(S("claude:a", pid=300, tty="/dev/pts/9", pstart=1200.0), table)
    assert where.tty == "/dev/pts/3" and where.via == "hook"


def test_a_detached_process_takes_its_nearest_parents_terminal() -> None:
    table = FakeTable(
        TMUX,
        Proc(200, 100, "bash", "bash", "/dev/pts/4", 1100.0),
        Proc(250, 200, "nohup-wrapper", "python3", None, 1150.0),
        Proc(300, 250, "claude", "claude", None, 1200.0),
    )
    where = locate(S("claude:a", pid=300, pstart=1200.0), table)
    assert (where.status, where.tty, where.via) == (Status.LIVE, "/dev/pts/4", "ancestry")


def test_a_process_without_any_terminal_runs_in_an_app() -> None:
    table = FakeTable(Proc(50, 1, "Claude", "Claude", None, 10.0), Proc(300, 50, "claude", "claude", None, 1200.0))
    where = locate(S("claude:a", pid=300, pstart=1200.0), table)
    assert where.status == Status.NO_TERMINAL and where.pid == 300


def test_an_editor_launched_from_a_terminal_does_not_lend_it_its_terminal() -> None:
    table = FakeTable(
        Proc(20, 1, "bash", "bash", "/dev/pts/1", 5.0),
        Proc(50, 20, "code", "code", "/dev/pts/1", 10.0),
        Proc(60, 50, "node", "node", None, 11.0),
        Proc(300, 60, "claude", "claude", None, 1200.0),
    )
    assert locate(S("claude:a", pid=300, pstart=1200.0), table).status == Status.NO_TERMINAL
    assert terminal_of(table, table.get(300), None) == (None, "process")


def test_desktop_and_editor_sessions_are_never_placed_in_a_terminal() -> None:
    table = FakeTable(TMUX, SHELL, CLAUDE, cwds={300: "/p"})
    assert (
        locate(S("codex:x", provider="codex", pid=300, pstart=1200.0, client="desktop"), table).status
        == Status.NO_TERMINAL
    )
    assert locate(S("claude:a", cwd="/p", client="vscode"), table).status == Status.NO_TERMINAL


def test_catalog_names_the_process_and_pane_of_a_session_without_hooks() -> None:
    table = FakeTable(TMUX, SHELL, CLAUDE)
    entry = CatalogEntry(pid=300, session_id="a", started=1200.2, tmux="%7", entrypoint="cli", cwd="/p")
    where = locate(S("claude:a", cwd="/p"), table, [entry])
    assert (where.status, where.pid, where.tty, where.tmux_pane, where.via) == (
        Status.LIVE,
        300,
        "/dev/pts/3",
        "%7",
        "catalog",
    )


def test_a_stale_catalog_entry_names_nothing() -> None:
    table = FakeTable(TMUX, SHELL, Proc(300, 200, "claude", "claude", "/dev/pts/3", 9999.0))
    entry = CatalogEntry(pid=300, session_id="a", started=1200.0, tmux="%7", entrypoint="cli", cwd="/p")
    where = locate(S("claude:a", cwd="/nowhere"), table, [entry])
    assert where.status == Status.FINISHED


def test_catalog_after_a_resume_moves_the_session_to_its_new_process() -> None:
    """The hooks recorded an exited process; the catalog names the resumed one."""
    table = FakeTable(TMUX, SHELL, Proc(301, 200, "claude", "claude", "/dev/pts/3", 2000.0))
    entry = CatalogEntry(pid=301, session_id="a", started=2000.0, tmux="%2", entrypoint="cli", cwd="/p")
    where = locate(S("claude:a", pid=300, pstart=1200.0, cwd="/p"), table, [entry])
    assert (where.status, where.pid, where.via) == (Status.LIVE, 301, "catalog")


def test_a_catalog_entry_of_an_editor_session_is_no_terminal() -> None:
    table = FakeTable(TMUX, SHELL, CLAUDE)
    entry = CatalogEntry(pid=300, session_id="a", started=1200.0, tmux=None, entrypoint="claude-vscode", cwd="/p")
    where = locate(S("claude:a"), table, [entry])
    assert where.status == Status.NO_TERMINAL and where.app == "claude-vscode"


def _folder_table(*agents: tuple[int, str, str | None]) -> FakeTable:
    procs = [TMUX] + [Proc(pid, 100, "codex", "codex", tty, 1000.0 + pid) for pid, _cwd, tty in agents]
    return FakeTable(*procs, cwds={pid: cwd for pid, cwd, _tty in agents})


def test_folder_with_exactly_one_terminal_places_the_session(tmp_path) -> None:
    table = _folder_table((401, str(tmp_path), "/dev/pts/5"))
    where = locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table)
    assert (where.status, where.pid, where.tty, where.via) == (Status.LIVE, 401, "/dev/pts/5", "folder")


def test_folder_paths_are_resolved_before_comparing(tmp_path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    table = _folder_table((401, str(real), "/dev/pts/5"))
    where = locate(S("codex:x", provider="codex", cwd=str(tmp_path / "link") + "/../link"), table)
    assert where.status == Status.LIVE and where.pid == 401


def test_folder_with_two_terminals_is_ambiguous(tmp_path) -> None:
    table = _folder_table((401, str(tmp_path), "/dev/pts/5"), (402, str(tmp_path), "/dev/pts/6"))
    where = locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table)
    assert where.status == Status.AMBIGUOUS
    assert where.candidates == ("pid 401 on /dev/pts/5", "pid 402 on /dev/pts/6")


def test_two_sessions_in_one_folder_are_not_interchangeable(tmp_path) -> None:
    """One terminal, but another session without a known process shares the folder: it may be that one."""
    table = _folder_table((401, str(tmp_path), "/dev/pts/5"))
    other = S("codex:y", provider="codex", cwd=str(tmp_path))
    where = locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table, others=[other])
    assert where.status == Status.AMBIGUOUS and "codex:y" in where.candidates


def test_a_terminal_that_belongs_to_another_known_session_is_not_a_candidate(tmp_path) -> None:
    table = _folder_table((401, str(tmp_path), "/dev/pts/5"))
    other = S("codex:y", provider="codex", cwd=str(tmp_path), pid=401)
    where = locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table, others=[other])
    assert where.status == Status.FINISHED


def test_the_catalog_excludes_processes_of_other_sessions_from_the_folder_rule(tmp_path) -> None:
    table = FakeTable(TMUX, Proc(401, 100, "claude", "claude", "/dev/pts/5", 1401.0), cwds={401: str(tmp_path)})
    entry = CatalogEntry(
        pid=401, session_id="someone-else", started=1401.0, tmux=None, entrypoint="cli", cwd=str(tmp_path)
    )
    assert locate(S("claude:a", cwd=str(tmp_path)), table, [entry]).status == Status.FINISHED


def test_folder_rule_skips_processes_without_terminal_or_of_another_client(tmp_path) -> None:
    table = FakeTable(
        TMUX,
        Proc(401, 100, "codex", "codex", None, 1.0),  # e.g. Codex's app-server daemon
        Proc(402, 100, "claude", "claude", "/dev/pts/7", 2.0),
        Proc(403, 100, "codex", "codex", "/dev/pts/8", 3.0, zombie=True),
        cwds={401: str(tmp_path), 402: str(tmp_path), 403: str(tmp_path)},
    )
    assert locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table).status == Status.FINISHED


def test_a_desktop_origin_in_the_log_stops_the_folder_rule(tmp_path) -> None:
    table = _folder_table((401, str(tmp_path), "/dev/pts/5"))
    where = locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table, origin=lambda: "Codex Desktop")
    assert where.status == Status.NO_TERMINAL and where.app == "Codex Desktop"
    cli = locate(S("codex:x", provider="codex", cwd=str(tmp_path)), table, origin=lambda: "codex-tui")
    assert cli.status == Status.LIVE


def test_nothing_known_is_unknown() -> None:
    assert locate(S("claude:a"), FakeTable()).status == Status.UNKNOWN


def test_ancestry_is_bounded_and_survives_loops() -> None:
    table = FakeTable(Proc(10, 11, "a"), Proc(11, 10, "b"))
    assert [p.pid for p in ancestry(table, 10)] == [10, 11]


def test_same_process_needs_the_same_start_time() -> None:
    table = FakeTable(CLAUDE)
    assert is_same_process(table, 300, 1200.9) is CLAUDE
    assert is_same_process(table, 300, 1202.0) is None
    assert is_same_process(table, 300, None) is CLAUDE
    assert is_same_process(table, 301, None) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [("w:@0.%0", "%0"), ("main:@12.%345", "%345"), ("", None), (None, None), ("w:@1", None)],
)
def test_catalog_tmux_field_gives_the_pane_id(value, expected) -> None:
    assert tmux_pane(value) == expected


def test_catalog_proc_start_in_both_formats() -> None:
    import os

    ticks = os.sysconf("SC_CLK_TCK")
    assert parse_proc_start(str(250 * ticks), boot_time=1000.0) == pytest.approx(1250.0)
    import time

    text = time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(1_800_000_000))
    assert parse_proc_start(text) == pytest.approx(1_800_000_000, abs=1)
    assert parse_proc_start("yesterday") is None and parse_proc_start(None) is None
