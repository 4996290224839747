"""Links and foreign folders in lunavect's data folder are refused, never followed (issue 12, defect 6)."""

from __future__ import annotations

import os

import pytest

from lunavect import paths, store
from lunavect.collector import process as collector_process


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


@pytest.mark.process
def test_the_hook_never_appends_through_a_link(iso_env, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    spool = paths.ensure_private_dir(paths.spool_dir())
    os.symlink(victim, spool / "events.jsonl")
    result = iso_env.hook({"session_id": "s1", "hook_event_name": "Stop", "cwd": "/w"})
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""
    assert victim.read_text() == "precious"


STOP = {"session_id": "s1", "hook_event_name": "Stop", "cwd": "/w"}


def _hook_is_silent(iso_env) -> None:
    result = iso_env.hook(STOP)
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")


@pytest.mark.process
def test_the_hook_writes_nothing_into_a_spool_folder_others_may_write(iso_env):
    spool = paths.ensure_private_dir(paths.spool_dir())
    os.chmod(spool, 0o777)
    _hook_is_silent(iso_env)
    assert list(spool.iterdir()) == []
    os.chmod(spool, 0o700)  # made private again: the next event is kept
    _hook_is_silent(iso_env)
    assert [r["event"] for r in iso_env.spool_records()] == ["Stop"]


@pytest.mark.process
@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_the_hook_writes_nothing_into_a_spool_folder_of_another_user(iso_env):
    spool = paths.ensure_private_dir(paths.spool_dir())
    os.chown(spool, 65534, 65534)  # nobody's
    _hook_is_silent(iso_env)
    assert list(spool.iterdir()) == []


@pytest.mark.process
def test_the_hook_writes_nothing_through_a_spool_folder_that_is_a_link(iso_env, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    paths.ensure_private_dir(paths.data_dir())
    os.symlink(elsewhere, paths.spool_dir())
    _hook_is_silent(iso_env)
    assert list(elsewhere.iterdir()) == []
