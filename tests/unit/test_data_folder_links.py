"""Links and foreign folders in lunavect's data folder are refused, never followed (issue 12, defect 6)."""

from __future__ import annotations

import os

import pytest

from lunavect import collector_process, paths, store


def test_a_data_folder_writable_by_others_is_refused(iso_env):
    paths.ensure_private_dir(paths.data_dir())
    os.chmod(paths.data_dir(), 0o777)
    with pytest.raises(PermissionError, match="not yours alone"):
        paths.ensure_private_dir(paths.data_dir())
    result = iso_env.cli("list")
    assert result.returncode == 1 and "not yours alone" in result.stderr


def test_a_data_folder_that_is_a_link_is_refused(iso_env, tmp_path):
    elsewhere = tmp_path / "someone-elses"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, paths.data_dir())
    with pytest.raises(PermissionError, match="symbolic link"):
        paths.ensure_private_dir(paths.data_dir())


def test_poke_lock_and_store_never_follow_a_link(iso_env, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    spool = paths.ensure_private_dir(paths.spool_dir())
    os.symlink(victim, spool / collector_process.POKE_FILE_NAME)
    collector_process.poke()
    assert victim.read_text() == "precious"  # not truncated through the link
    os.symlink(victim, paths.store_path())
    with pytest.raises(store.StoreError, match="symbolic link"):
        store.connect()
    assert victim.read_text() == "precious"


def test_the_hook_never_appends_through_a_link(iso_env, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    spool = paths.ensure_private_dir(paths.spool_dir())
    os.symlink(victim, spool / "events.jsonl")
    result = iso_env.hook({"session_id": "s1", "hook_event_name": "Stop", "cwd": "/w"})
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    assert victim.read_text() == "precious"
