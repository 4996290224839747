"""OpenCode 2 is detected and said, never shown as nothing without a word: its database's session table, or an
`opencode` on PATH of version 2. (OpenCode 2 is not on the registry this project installs from: the version
check runs a stand-in `opencode` that prints what OpenCode 2 prints; the database is a real SQLite file.)"""

from __future__ import annotations

import os
import sqlite3
import stat

import pytest

from lunavect.clients.opencode import major, places


@pytest.fixture(autouse=True)
def fresh_cache():
    major.binary_major.cache_clear()
    yield
    major.binary_major.cache_clear()


def _on_path(monkeypatch: pytest.MonkeyPatch, folder, output: str) -> None:
    script = folder / "opencode"
    script.write_text(f"#!/bin/sh\necho '{output}'\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def test_the_version_s_major_is_read_only_from_what_a_version_looks_like() -> None:
    assert major.major_of(b"2.3.1\n") == 2 and major.major_of(b"v1.18.33") == 1
    assert major.major_of(b"opencode 2\n") is None and major.major_of(b"") is None


@pytest.mark.process
def test_an_opencode_2_on_path_is_said_by_doctor_and_the_empty_panel(iso_env, monkeypatch, tmp_path) -> None:
    from lunavect.clients.opencode import FACE
    from lunavect.collector import doctor

    _on_path(monkeypatch, tmp_path, "2.3.1")
    sentence = FACE.not_read()
    assert sentence == (
        "OpenCode 2 found (the opencode on PATH is version 2): lunavect does not read OpenCode 2's sessions yet, "
        "only OpenCode 1's."
    )
    assert sentence in FACE.setup_lines("missing")
    report = doctor.examine()
    assert report.clients["opencode"]["not_read"] == sentence
    assert f"  not read yet: {sentence}" in doctor.lines(report)
    assert report.clients["claude"]["not_read"] is None


@pytest.mark.process
def test_a_database_of_opencode_2_is_said_though_no_binary_answers(iso_env, monkeypatch, tmp_path) -> None:
    from lunavect.clients.opencode import FACE

    _on_path(monkeypatch, tmp_path, "1.18.33")
    assert FACE.not_read() is None
    path = places.database_path()
    assert path is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE session_v2 (id TEXT PRIMARY KEY)")
    assert "its database holds OpenCode 2's sessions (session_v2)" in (FACE.not_read() or "")
