"""Private text never reaches lunavect's data folder.

A realistic session's payloads, each private field holding a distinctive secret, go through the real shim
(subprocess) and the collector; then the raw bytes of every file under LUNAVECT_HOME are searched for the
secrets, in every encoding they could have been written in.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from privacy_support import SECRETS, SID, S, base, realistic_session
from unit_support import pending_spool_bytes

from lunavect import paths
from lunavect.collector.tick import Collector


def encodings(secret: str) -> list[bytes]:
    forms = {
        secret.encode("utf-8"),
        json.dumps(secret).encode("ascii")[1:-1],  # \uXXXX escapes, as the shim writes non-ASCII
        secret.encode("utf-16-le"),
    }
    # A distinctive fragment, in case a value was cut.
    forms.add(secret[-8:].encode("utf-8"))
    return sorted(forms)


def every_file(root: Path) -> list[Path]:
    """Every regular file (the change feed's socket holds nothing to read: it only ever carries one byte)."""
    return [Path(d) / f for d, _, files in os.walk(root) for f in files if (Path(d) / f).is_file()]


def assert_no_secret(root: Path) -> None:
    files = every_file(root)
    assert files
    for path in files:
        data = path.read_bytes()
        for name, secret in SECRETS.items():
            for form in encodings(secret):
                assert form not in data, f"{name} found in {path}"


@pytest.mark.process
def test_no_private_text_under_lunavect_home(iso_env):
    for payload in realistic_session():
        proc = iso_env.hook(payload)
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    # The cli form too, for one event with everything private in it.
    proc = iso_env.hook(realistic_session()[13], via="cli")
    assert proc.returncode == 0
    # And Codex's events, which carry the same private fields.
    codex = [
        dict(p, session_id="019c8a4c-ed82-79a1-aa28-7738fc5ab61a", turn_id="t1", model="gpt")
        for p in realistic_session()
        if p["hook_event_name"] in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
    ]
    for payload in codex:
        proc = iso_env.hook(payload, client="codex")
        assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")

    records = iso_env.spool_records()
    assert len(records) == len(realistic_session()) + 1 + len(codex)
    assert {r["client"] for r in records} == {"claude", "codex"}
    assert all("rejected" not in r for r in records)
    # What was kept is what lunavect needs: the verdicts, kinds and ids.
    stop = records[13]
    assert stop["question"] is True and stop["crons"] == 1
    assert stop["bg"] == [
        {"kind": "shell", "id": "b0be39e", "status": "running", "service": True},
        {"kind": "agent", "id": "a881341", "status": "running"},
    ]
    assert records[9]["bg_start"] == {"kind": "shell", "id": "b0be39e", "service": True}
    assert records[14]["bg_end"] == [{"id": "b0be39e", "tool_use_id": "toolu_bg", "status": "completed"}]
    assert records[17]["error_detail"] == "ECONNREFUSED"

    conn = iso_env.connect()
    Collector(conn).tick()
    assert conn.execute("SELECT COUNT(*) FROM events").fetchone()[0] == len(records)
    assert pending_spool_bytes(conn, paths.spool_dir()) == 0
    wal = paths.store_path().with_name(paths.STORE_FILE_NAME + "-wal")
    assert wal.exists() and wal.stat().st_size > 0  # the WAL is searched while it still holds the writes
    assert_no_secret(iso_env.data)

    # And through the whole CLI path (a collector process, the log, the snapshot), then after a checkpoint.
    proc = iso_env.cli("list", "--json", "--all")
    assert proc.returncode == 0
    for secret in SECRETS.values():
        assert secret not in proc.stdout
    assert_no_secret(iso_env.data)
    iso_env.close()
    assert_no_secret(iso_env.data)


@pytest.mark.process
def test_rejected_payloads_keep_nothing_either(iso_env):
    for raw in (
        json.dumps({"prompt": S["prompt"], "session_id": SID}).encode(),  # no event name
        f"not json {S['reply']}".encode(),
        json.dumps([S["command"]]).encode(),
        b'{"hook_event_name": "Stop", "last_assistant_message": "' + S["reply"].encode() + b'"',  # truncated
    ):
        assert iso_env.hook(raw).returncode == 0
    Collector(iso_env.connect()).tick()
    assert_no_secret(iso_env.data)


@pytest.mark.process
def test_only_its_owner_can_read_the_data_folder(iso_env):
    """Session ids, paths and times are private too: every folder 0700, every file 0600, under a usual umask."""
    previous = os.umask(0o022)
    try:
        # The shim comes first (it creates the data folder), then a front end starts the collector.
        assert iso_env.hook(base("UserPromptSubmit", prompt="x")).returncode == 0
        proc = iso_env.cli("list", "--json")
        assert proc.returncode == 0, proc.stderr
    finally:
        os.umask(previous)
    assert json.loads(proc.stdout)[0]["session_id"] == SID
    names = set()
    for folder, _dirs, files in os.walk(iso_env.data):
        assert Path(folder).stat().st_mode & 0o777 == 0o700, folder
        for name in files:
            path = Path(folder) / name
            names.add(name)
            assert path.stat().st_mode & 0o077 == 0, f"{path} is readable by others"
    assert {"events.jsonl", "lunavect.sqlite3", "collector.lock", "collector.log"} <= names
