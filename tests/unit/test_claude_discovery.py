"""Which transcripts a tick looks at: all at a sweep; between sweeps the hot ones, new files (their folder's
mtime changed) and the files of sessions the live catalog names. Old, untouched files cost nothing."""

from __future__ import annotations

import os
import time

from lunavect.claude import discovery
from lunavect.claude.discovery import TranscriptFinder, transcript_path

S1 = "aaaaaaaa-1111-2222-3333-444444444444"
S2 = "bbbbbbbb-1111-2222-3333-444444444444"
S3 = "cccccccc-1111-2222-3333-444444444444"
OLD = time.time() - 86400


def paths_of(found):
    return sorted(os.path.basename(path)[:8] for path, _, _ in found)


def test_sweep_then_hot_new_and_running_files(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "FULL_SWEEP_S", 3600.0)
    project = tmp_path / "projects" / "-work"
    project.mkdir(parents=True)
    old = project / f"{S1}.jsonl"
    old.write_text("{}\n")
    os.utime(old, (OLD, OLD))
    (project / "agent-a1.jsonl").write_text("{}\n")  # a subagent's own file: never a session
    (project / "notes.txt").write_text("x")
    finder = TranscriptFinder()

    found, swept = finder.find(tmp_path)
    assert swept and paths_of(found) == ["aaaaaaaa"]

    found, swept = finder.find(tmp_path)
    assert not swept and found == []  # old and untouched: not even stat'ed

    time.sleep(0.01)
    (project / f"{S2}.jsonl").write_text("{}\n")  # a new session in a known folder
    other = tmp_path / "projects" / "-elsewhere"
    other.mkdir()
    time.sleep(0.01)
    (other / f"{S3}.jsonl").write_text("{}\n")  # and one in a new folder
    found, swept = finder.find(tmp_path)
    # Without a sweep; the changed folder's other files are stat'ed too, their cursors say nothing is new.
    assert not swept and {"bbbbbbbb", "cccccccc"} <= set(paths_of(found))

    found, _ = finder.find(tmp_path, running=[("/work", S1)])
    assert "aaaaaaaa" in paths_of(found)  # the catalog names it: looked at, however old


def test_transcript_path_follows_the_clients_folder_names(tmp_path):
    assert transcript_path(tmp_path, "/home/u/my_proj.v2", S1) == str(
        tmp_path / "projects" / "-home-u-my-proj-v2" / f"{S1}.jsonl"
    )


def test_missing_folders_are_nothing(tmp_path):
    found, swept = TranscriptFinder().find(tmp_path / "absent")
    assert swept and found == []
