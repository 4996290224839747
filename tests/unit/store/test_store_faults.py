"""A store that fails after it opened, or is not lunavect's, gives one clear line (issue 12, defects 7 and 8)."""

from __future__ import annotations

import sqlite3

import pytest

from lunavect import paths, store


def test_a_foreign_database_at_the_store_path_is_refused_and_left_as_it_was(iso_env):
    path = paths.store_path()
    paths.ensure_private_dir(path.parent)
    foreign = sqlite3.connect(path)
    foreign.execute("CREATE TABLE mine (x)")
    foreign.execute("INSERT INTO mine VALUES (42)")
    foreign.commit()
    foreign.close()
    before = path.read_bytes()
    with pytest.raises(store.StoreError, match="not a lunavect store"):
        store.connect()
    result = iso_env.cli("list")
    assert result.returncode == 1
    assert result.stderr.startswith("lunavect: cannot open the store") and "not a lunavect store" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert path.read_bytes() == before  # its tables, journal mode and user_version untouched


def test_an_older_lunavect_store_without_the_mark_is_recognised_and_marked(tmp_path):
    path = tmp_path / "store.sqlite3"
    conn = store.connect(path)
    conn.execute("PRAGMA application_id = 0")
    conn.close()
    conn = store.connect(path)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    conn.close()


def test_a_new_store_is_marked(tmp_path):
    conn = store.connect(tmp_path / "store.sqlite3")
    assert conn.execute("PRAGMA application_id").fetchone()[0] == store.APPLICATION_ID
    conn.close()


def overwrite_pages(path, table: str) -> None:
    """Garble the root page of `table` (and every page after it): the store opens and migrates, reading
    that table fails as overwritten pages do."""
    conn = sqlite3.connect(path)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()
    conn.close()
    data = bytearray(path.read_bytes())
    start = (root - 1) * page_size
    data[start : start + page_size] = b"\xa5" * page_size
    path.write_bytes(bytes(data))


@pytest.mark.process
@pytest.mark.parametrize("command", [("list",), ("counts",), ("pin", "aaaa"), ("open", "aaaa"), ("hide", "0001")])
def test_overwritten_pages_give_one_line_not_a_traceback(iso_env, command):
    conn = store.connect()
    with store.transaction(conn):
        for i in range(400):  # several pages of rows
            conn.execute(
                "INSERT INTO snapshot (id, state, listed, data, updated) VALUES (?, 'ready', 1, ?, 0)",
                (f"claude:{i:04d}aaaa", "{" + "x" * 200 + "}"),
            )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    overwrite_pages(paths.store_path(), "snapshot")
    # The counters read the snapshot through its state index (`listing.sessions.COUNTED_STATES`): garbled too.
    overwrite_pages(paths.store_path(), "snapshot_by_state")
    result = iso_env.cli(*command)  # CliRunner re-raises anything but a clean exit: a traceback fails here
    assert result.returncode == 1, result.stdout
    lines = [line for line in result.stderr.splitlines() if not line.startswith("lunavect: warning:")]
    assert len(lines) == 1 and lines[0].startswith("lunavect: "), result.stderr
    assert "the store cannot be used" in lines[0] and "doctor" in lines[0]
