"""`lunavect doctor [--json]`: every connection checked, each problem with the one command that fixes it."""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from unit_support import LUNAVECT_BIN

from lunavect import store
from lunavect.collector.doctor import examine
from lunavect.files import quarantine


def test_a_fresh_machine_names_the_missing_hooks_and_their_fix(iso_env):
    result = iso_env.cli("doctor")
    assert result.returncode == 1
    assert "claude: hooks missing" in result.stdout and "fix: lunavect hooks install" in result.stdout
    report = json.loads(iso_env.cli("doctor", "--json").stdout)
    assert report["clients"]["claude"]["hooks"] == "missing"
    assert report["store"]["ok"] is True
    assert {p["fix"] for p in report["problems"]} >= {"lunavect hooks install"}


def test_last_event_and_quarantined_files_and_the_collector_s_last_error(iso_env):
    conn = iso_env.connect()
    with store.transaction(conn):
        conn.execute(
            "INSERT INTO events (event_id, provider, session_id, kind, at, data, stored_at) "
            "VALUES ('e1', 'claude', 's1', 'Stop', strftime('%s','now'), '{}', 0)"
        )
        conn.execute(
            "INSERT INTO collector (key, value) VALUES (?, ?)",
            ("last_error", json.dumps({"where": "source codex", "error": "RuntimeError: x", "at": 1.0})),
        )
    q = quarantine.Quarantine("codex.rollouts")
    bad = iso_env.root / "bad.jsonl"
    bad.write_text("x")
    q.put(str(bad), RuntimeError("a bug"), 5.0)
    with store.transaction(conn):
        q.save(conn)
    report = examine()
    assert report.clients["claude"]["last_event"]["session"] == "claude:s1"
    assert report.quarantined[0]["path"] == str(bad)
    assert any(str(bad) in p.what for p in report.problems)
    assert report.collector["last_error"]["where"] == "source codex"


def test_a_foreign_store_and_an_open_data_folder_are_problems(iso_env):
    import sqlite3

    from lunavect import paths

    paths.ensure_private_dir(paths.store_path().parent)
    foreign = sqlite3.connect(paths.store_path())
    foreign.execute("CREATE TABLE mine (x)")
    foreign.commit()
    foreign.close()
    report = examine()
    assert report.store["ok"] is False and "not a lunavect store" in report.store["error"]
    os.chmod(paths.data_dir(), 0o777)
    report = examine()
    assert report.store["ok"] is False
    whats = " ".join(p.what for p in report.problems)
    assert "not yours alone" in whats
    result = iso_env.cli("doctor", "--json")
    assert result.returncode == 1 and json.loads(result.stdout)["store"]["ok"] is False


def _read_only(folder) -> list[str]:
    """A shell line that runs the rest with `folder` read-only: a bind mount of its own, in a mount namespace of
    its own (nothing else on the machine sees it)."""
    return ["unshare", "-m", "sh", "-c", f'mount --bind "{folder}" "{folder}" && mount -o remount,bind,ro "{folder}" '
            f'"{folder}" && exec "$0" "$@"']  # fmt: skip


@pytest.mark.process
def test_a_read_only_data_folder_is_a_problem_not_a_traceback(iso_env):
    iso_env.connect()  # a store, and the collector's lock file, as a collector that ran left them
    (iso_env.data / "collector.lock").write_text("")
    probe = subprocess.run([*_read_only(iso_env.data), "true"], capture_output=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a read-only folder here: {probe.stderr.decode(errors='replace').strip()}")
    done = subprocess.run(
        [*_read_only(iso_env.data), LUNAVECT_BIN, "doctor"], env=iso_env.env, capture_output=True, text=True, timeout=60
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1 and "collector: not running" in done.stdout
    assert f"data folder {iso_env.data}: cannot be written" in done.stdout
