"""Who has a file open for writing, and the Codex writer proof built on it: with real processes.

A child process opens a file the way Codex holds its rollout (O_RDWR|O_APPEND) or only reads it; the scan must
tell the two apart by device and inode, never by path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lunavect.clients.codex.appserver import NativeExecutable, _signature
from lunavect.clients.codex.writer_proof import HOLD_S, CodexWriterProof
from lunavect.core.rules import Facts
from lunavect.host.writers import file_id, processes_by_executable, reconcile_ownership, scan_writers

HOLDER = """
import os, sys, time
flags = {"write": os.O_RDWR | os.O_APPEND, "read": os.O_RDONLY}[sys.argv[2]]
fd = os.open(sys.argv[1], flags)
print("open", flush=True)
time.sleep(60)
"""


def hold(path: Path, mode: str, interpreter: str = sys.executable) -> subprocess.Popen:
    proc = subprocess.Popen([interpreter, "-c", HOLDER, str(path), mode], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "open"
    return proc


@pytest.fixture
def rollout(tmp_path: Path) -> Path:
    path = tmp_path / "rollout.jsonl"
    path.write_text("{}\n")
    return path


@pytest.mark.process
def test_a_writer_is_found_and_a_reader_is_not(rollout: Path) -> None:
    writer, reader = hold(rollout, "write"), hold(rollout, "read")
    try:
        target = file_id(rollout)
        scan = scan_writers([writer.pid, reader.pid], [target])
        assert scan.writers[target] == {writer.pid}
        assert scan.proof(target) is True
        only_reader = scan_writers([reader.pid], [target])
        assert only_reader.proof(target) is False
    finally:
        writer.kill(), reader.kill()
        writer.wait(), reader.wait()


@pytest.mark.process
def test_the_file_is_matched_by_device_and_inode_not_by_path(rollout: Path, tmp_path: Path) -> None:
    writer = hold(rollout, "write")
    try:
        old = file_id(rollout)
        replacement = tmp_path / "new.jsonl"
        replacement.write_text("{}\n")
        os.replace(replacement, rollout)  # same path, another file: the writer holds the old one
        new = file_id(rollout)
        assert new != old
        scan = scan_writers([writer.pid], [new, old])
        assert scan.proof(new) is False and scan.proof(old) is True
    finally:
        writer.kill()
        writer.wait()


@pytest.mark.process
def test_a_gone_process_is_inaccessible_and_proves_nothing(rollout: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    scan = scan_writers([proc.pid], [file_id(rollout)])
    assert scan.proof(file_id(rollout)) is None
    assert scan_writers([], [file_id(rollout)]).proof(file_id(rollout)) is False


def test_candidates_are_found_by_executable_only() -> None:
    mine = os.getpid()
    exe = os.path.realpath(sys.executable)
    assert mine in processes_by_executable(set(), {exe})
    assert mine in processes_by_executable({os.path.basename(exe)}, set())
    assert mine not in processes_by_executable({"codex"}, set())


def test_one_missed_snapshot_keeps_ownership_and_the_second_retires_it() -> None:
    misses: dict[str, int] = {}
    owned = reconcile_ownership(set(), {"a", "b"}, misses)
    assert owned == {"a", "b"}
    owned = reconcile_ownership(owned, {"a"}, misses)
    assert owned == {"a", "b"} and misses == {"b": 1}
    owned = reconcile_ownership(owned, {"a", "b"}, misses)  # seen again: the miss is forgotten
    assert owned == {"a", "b"} and misses == {}
    owned = reconcile_ownership(owned, {"a"}, misses)
    owned = reconcile_ownership(owned, {"a"}, misses)
    assert owned == {"a"} and misses == {}


# -- the Codex writer proof ----------------------------------------------------------------------------------


def _facts(rollout: Path, confirmed: float, phase: str = "working") -> Facts:
    return Facts(
        "codex",
        "t1",
        phase=phase,
        confirmed_at=confirmed,
        last_event_at=confirmed,
        transcript=str(rollout),
        turn_open=True,
    )


@pytest.mark.process
def test_checks_are_batched_near_the_limit_held_ten_seconds_and_retired_after_two_misses(
    rollout: Path, tmp_path: Path
) -> None:
    """A stand-in for a native Codex that is not named `codex`: a copy of this interpreter, which the proof
    recognises only as the learned native executable behind a launcher."""
    native_path = tmp_path / "native-codex"
    shutil.copy2(os.path.realpath(sys.executable), native_path)
    learned = NativeExecutable(
        str(native_path), _signature(str(native_path)), str(native_path), _signature(str(native_path))
    )
    proof = CodexWriterProof(native=lambda: learned, names=frozenset())  # only the learned executable
    writer = hold(rollout, "write", interpreter=str(native_path))
    try:
        now = 1_800_000_000.0
        fresh = {"codex:t1": _facts(rollout, now - 10)}
        assert proof.proofs(fresh, now) == {} and proof.checks == 0  # far from the limit: nothing is checked
        near = {"codex:t1": _facts(rollout, now - 100), "codex:t2": _facts(rollout, now - 110)}
        assert proof.proofs(near, now) == {"codex:t1": True, "codex:t2": True}
        assert proof.checks == 1  # one batched scan for both
        assert proof.proofs(near, now + HOLD_S - 1) == {"codex:t1": True, "codex:t2": True}
        assert proof.checks == 1  # the result holds
        ready = {"codex:t1": _facts(rollout, now - 200, phase="ready")}
        assert proof.proofs(ready, now + 20) == {}  # a finished reply needs no proof

        writer.kill()
        writer.wait()
        assert proof.proofs(near, now + 20) == {"codex:t1": True, "codex:t2": True}  # one miss keeps it
        assert proof.proofs(near, now + 40) == {"codex:t1": False, "codex:t2": False}  # the second retires it
        assert proof.checks == 3
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()


def test_a_changed_native_executable_is_forgotten(tmp_path: Path) -> None:
    native_path = tmp_path / "native-codex"
    native_path.write_bytes(b"one")
    learned = NativeExecutable(
        str(native_path), _signature(str(native_path)), str(native_path), _signature(str(native_path))
    )
    assert learned.valid()
    native_path.write_bytes(b"an update")
    assert not learned.valid()


def test_a_rollout_gone_has_no_writer(tmp_path: Path) -> None:
    proof = CodexWriterProof()
    facts = {"codex:t1": _facts(tmp_path / "gone.jsonl", time.time() - 200)}
    assert proof.proofs(facts, time.time()) == {"codex:t1": False}
