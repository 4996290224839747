"""Where GitHub Copilot CLI keeps its files ($COPILOT_HOME, else ~/.copilot), and the small files of a session:
its workspace.yaml as 1.0.102 wrote it (a name with a colon and quotes is single-quoted), and the lock files of
the processes that hold it."""

from __future__ import annotations

import shutil
from pathlib import Path

from lunavect.clients.copilot import layout

SAMPLES = Path(__file__).parent / "samples"


def test_its_home_follows_copilot_home(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    monkeypatch.delenv("COPILOT_HOME", raising=False)
    assert layout.home() == tmp_path / "h" / ".copilot"
    monkeypatch.setenv("COPILOT_HOME", str(tmp_path / "c"))
    assert layout.hooks_dir() == tmp_path / "c" / "hooks"
    monkeypatch.setenv("COPILOT_HOME", "relative/c")  # not a folder it names: HOME's
    assert layout.sessions_dir() == tmp_path / "h" / ".copilot" / "session-state"


def test_a_workspace_names_its_title_and_folder(tmp_path) -> None:
    folder = tmp_path / "s"
    folder.mkdir()
    shutil.copy(SAMPLES / "workspace-quoted.yaml", folder / "workspace.yaml")
    found = layout.workspace(str(folder))
    assert found.name == 'fix: the "parser" isn\'t right #1'
    assert found.cwd == "/tmp/copilot-tmp/e3/work"
    shutil.copy(SAMPLES / "workspace.yaml", folder / "workspace.yaml")
    assert layout.workspace(str(folder)).name == "say hello please"


def test_a_workspace_it_cannot_read_names_nothing(tmp_path) -> None:
    assert layout.workspace(str(tmp_path)) == layout.Workspace()
    (tmp_path / "workspace.yaml").write_text("name: |\n  a block\ncwd: relative\n")
    assert layout.workspace(str(tmp_path)) == layout.Workspace()
    (tmp_path / "workspace.yaml").write_text('name: "an \\u00e9scaped name"\n')
    assert layout.workspace(str(tmp_path)).name == "an éscaped name"
    (tmp_path / "workspace.yaml").write_bytes(b"name: x\n" * 20_000)  # larger than Copilot CLI writes
    assert layout.workspace(str(tmp_path)) == layout.Workspace()


def test_events_files_are_a_sessions_own_only(tmp_path) -> None:
    root = tmp_path / "session-state"
    for name in ("s-1", "s-2", ".session-operation-locks", "not an id"):
        (root / name).mkdir(parents=True)
        (root / name / "events.jsonl").write_text("{}\n")
    (root / "s-2" / "sub").mkdir()
    (root / "s-2" / "sub" / "events.jsonl").write_text("{}\n")
    found = sorted(path for path, _st in layout.events_files(root))
    assert found == [str(root / "s-1" / "events.jsonl"), str(root / "s-2" / "events.jsonl")]
    assert layout.is_events_file(str(root / "s-1" / "events.jsonl"), root)
    assert not layout.is_events_file(str(root / "s-2" / "sub" / "events.jsonl"), root)
    assert layout.session_of(found[0]) == "s-1"


def test_the_processes_that_hold_a_session(tmp_path) -> None:
    for name in ("inuse.2826.lock", "inuse.2826.hold", "inuse.31.lock", "inuse.x.lock", "events.jsonl"):
        (tmp_path / name).write_text("")
    assert layout.holders(str(tmp_path)) == [31, 2826]
