"""Off Linux's inotify the collector waits through watchfiles' Rust backend, a private API: when a watchfiles
release changes it, the collector still wakes for every hook event, poke, commit and request (looking at its
folders each step), says so in its log, and doctor names it."""

from __future__ import annotations

import logging
import sys
import threading
import time

import pytest

from lunavect.collector import wake as wake_module
from lunavect.collector.wake import ACTIVE_STEP_MS, Wake, rust_problem
from lunavect.files import inotify


@pytest.fixture
def no_inotify(monkeypatch):
    monkeypatch.setattr(inotify, "available", lambda: False)


class ChangedRustNotify:
    """A RustNotify whose constructor takes other arguments, as a new watchfiles' might."""

    def __init__(self, paths, debug):
        raise TypeError("RustNotify() takes 2 positional arguments but 6 were given")

    def watch(self, *args):
        raise AssertionError("never called")

    def close(self):
        pass


@pytest.fixture(params=["gone", "changed"])
def broken_watchfiles(request, monkeypatch):
    if request.param == "gone":
        monkeypatch.setitem(sys.modules, "watchfiles._rust_notify", None)
    else:
        import watchfiles._rust_notify as rust

        monkeypatch.setattr(rust, "RustNotify", ChangedRustNotify)


def test_the_backend_this_watchfiles_has_is_used(tmp_path, no_inotify):
    spool = tmp_path / "spool"
    spool.mkdir()
    wake = Wake(tmp_path, spool, tmp_path / "store.sqlite3-wal", threading.Event())
    try:
        assert wake.polls and wake._notify is not None and wake._stats is None
    finally:
        wake.close()
    assert rust_problem(tmp_path) is None


def test_a_changed_backend_still_wakes_for_everything(tmp_path, no_inotify, broken_watchfiles, caplog):
    spool = tmp_path / "spool"
    spool.mkdir()
    (spool / "events.jsonl").write_text("{}\n")
    stop = threading.Event()
    with caplog.at_level(logging.WARNING, logger="lunavect.collector"):
        wake = Wake(tmp_path, spool, tmp_path / "store.sqlite3-wal", stop)
    try:
        assert wake._stats is not None
        assert [r.message for r in caplog.records if "watchfiles' Rust backend cannot be used" in r.message]
        woken = wake.wait(0.2, ACTIVE_STEP_MS)
        assert not (woken.spooled or woken.committed or woken.files)
        writer = threading.Timer(0.1, lambda: (spool / "events.jsonl").open("a").write("{}\n"))
        writer.start()
        started = time.monotonic()
        assert wake.wait(5.0, ACTIVE_STEP_MS).spooled and time.monotonic() - started < 1.0
        writer.join()
        (spool / wake_module.POKE_FILE_NAME).write_text("1")
        assert wake.wait(5.0, ACTIVE_STEP_MS).poked
        (tmp_path / "store.sqlite3-wal").write_bytes(b"x")
        assert wake.wait(5.0, ACTIVE_STEP_MS).committed
        wake.set()
        assert wake.wait(5.0, ACTIVE_STEP_MS).files
    finally:
        stop.set()
        wake.close()
    assert "upgrade lunavect" in (rust_problem(tmp_path) or "")


def test_doctor_names_the_fallback(iso_env, no_inotify, broken_watchfiles):
    from lunavect.collector import doctor

    report = doctor.examine()
    assert [f for f in report.fallbacks if f.startswith("watchfiles' Rust backend cannot be used")]
    assert [line for line in doctor.lines(report) if line.startswith("fallback: watchfiles' Rust backend")]
    assert not report.problems or all("watchfiles" not in p.what for p in report.problems)  # nothing to fix


def test_doctor_is_quiet_when_every_private_api_is_as_expected(iso_env):
    from lunavect.collector import doctor

    assert doctor.examine().fallbacks == []
