"""Which transcripts a tick looks at: all at the first; after it the hot ones, new files (their folder's
mtime changed), the files of sessions the live catalog names, those the reader still owes a read, and a share
of the slow safety sweep. Old, untouched files cost nothing."""

from __future__ import annotations

import os
import time

from lunavect.clients.claude import discovery
from lunavect.clients.claude.discovery import TranscriptFinder, transcript_path

S1 = "aaaaaaaa-1111-2222-3333-444444444444"
S2 = "bbbbbbbb-1111-2222-3333-444444444444"
S3 = "cccccccc-1111-2222-3333-444444444444"
OLD = time.time() - 86400


def paths_of(found):
    return sorted(os.path.basename(path)[:8] for path, _, _ in found)


def test_sweep_then_hot_new_and_running_files(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "SWEEP_S", 3600.0)
    project = tmp_path / "projects" / "-work"
    project.mkdir(parents=True)
    old = project / f"{S1}.jsonl"
    old.write_text("{}\n")
    os.utime(old, (OLD, OLD))
    (project / "agent-a1.jsonl").write_text("{}\n")  # a subagent's own file: never a session
    (project / "notes.txt").write_text("x")
    finder = TranscriptFinder()

    look = finder.find(tmp_path)
    assert look.everything is not None and paths_of(look.files) == ["aaaaaaaa"]

    look = finder.find(tmp_path)
    assert look.everything is None and look.files == []  # old and untouched: not even stat'ed

    time.sleep(0.01)
    (project / f"{S2}.jsonl").write_text("{}\n")  # a new session in a known folder
    other = tmp_path / "projects" / "-elsewhere"
    other.mkdir()
    time.sleep(0.01)
    (other / f"{S3}.jsonl").write_text("{}\n")  # and one in a new folder
    look = finder.find(tmp_path)
    # Without a sweep; the changed folder's other files are stat'ed too, their cursors say nothing is new.
    assert look.everything is None and {"bbbbbbbb", "cccccccc"} <= set(paths_of(look.files))

    look = finder.find(tmp_path, running=[("/work", S1)])
    assert "aaaaaaaa" in paths_of(look.files)  # the catalog names it: looked at, however old

    assert "aaaaaaaa" not in paths_of(finder.find(tmp_path).files)


def test_the_safety_sweep_stats_each_old_file_once_per_period_a_share_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setattr(discovery, "SWEEP_S", 100.0)
    clock = [1000.0]
    monkeypatch.setattr(discovery.time, "monotonic", lambda: clock[0])
    project = tmp_path / "projects" / "-work"
    project.mkdir(parents=True)
    for n in range(10):
        path = project / f"{n:08d}-1111-2222-3333-444444444444.jsonl"
        path.write_text("{}\n")
        os.utime(path, (OLD, OLD))
    finder = TranscriptFinder()
    assert len(finder.find(tmp_path).files) == 10
    seen = []
    for tick in range(10):
        clock[0] += 10.0  # a tenth of the period: a tenth of the files
        look = finder.find(tmp_path)
        assert len(look.files) == 1
        # Once the period is over, every folder is listed again (deleted files are noticed then).
        assert (look.everything is not None) == (tick == 9)
        seen += paths_of(look.files)
    assert len(set(seen)) == 10


def test_transcript_path_follows_the_clients_folder_names(tmp_path):
    assert transcript_path(tmp_path, "/home/u/my_proj.v2", S1) == str(
        tmp_path / "projects" / "-home-u-my-proj-v2" / f"{S1}.jsonl"
    )


def test_missing_folders_are_nothing(tmp_path):
    look = TranscriptFinder().find(tmp_path / "absent")
    assert look.everything == set() and look.files == []
