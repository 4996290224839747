"""`lunavect doctor [--json]`: every connection checked, each problem with the one command that fixes it."""

from __future__ import annotations

import json
import os

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
