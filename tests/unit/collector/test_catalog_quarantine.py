"""A catalog that cannot be read is set aside and named by `lunavect doctor`, like a transcript (issue 12, 5).

Claude Code's `sessions/<pid>.json` files are read on every tick: one that no client version writes (cut
short, an id that is no id, another pid's) is set aside until it changes, and leaves the list once it is fixed
or gone. Codex's app-server is asked by a scripted server speaking its protocol over stdio, as the real one
does: a reply or a thread in it that no reader takes is recorded by where it came from, for as long as the
server keeps answering so, and the rest of the reply is still taken.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest
from claude_files_support import S1
from codex_source_support import A, B, Home, T

from lunavect import store
from lunavect.collector.doctor import examine
from lunavect.files import quarantine

SCRIPTED_APP_SERVER = """#!{python}
import json, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    with open(os.environ["SCRIPTED_REPLIES"]) as f:
        replies = json.load(f)
    result = {{}} if message["method"] == "initialize" else replies.get(message["method"], {{}})
    sys.stdout.write(json.dumps({{"id": message["id"], "result": result}}) + "\\n")
    sys.stdout.flush()
"""


def _catalog_entries(conn, source: str) -> dict[str, str]:
    return {e.path: e.error for e in quarantine.entries(conn) if e.source == source}


@pytest.mark.process
def test_unusable_claude_catalog_files_are_set_aside_until_fixed_or_gone(world):
    pid = world.runtime()
    world.catalog(pid, S1, "busy", time.time())
    sessions = world.config / "sessions"
    cut = sessions / "2.json"
    cut.write_text('{"pid": 2, "sessionId": ')
    hostile = sessions / "3.json"
    hostile.write_text(json.dumps({"pid": 3, "sessionId": "../../x", "status": "busy"}))
    world.tick()
    found = _catalog_entries(world.conn, "claude.catalog")
    assert set(found) == {str(cut), str(hostile)}
    assert "not a JSON object" in found[str(cut)] and "no session id" in found[str(hostile)]
    assert world.sessions()[S1].state == "working"  # the healthy entry is read as ever
    world.tick()
    assert set(_catalog_entries(world.conn, "claude.catalog")) == {str(cut), str(hostile)}  # still aside
    cut.unlink()
    hostile.write_text(json.dumps({"pid": 3, "sessionId": "c" * 8 + "-1111-2222-3333-444444444444"}))
    world.tick()
    assert _catalog_entries(world.conn, "claude.catalog") == {}


def _scripted_home(tmp_path: Path, replies: dict) -> tuple[Home, Path]:
    home = Home(tmp_path / "codex-world")
    script = tmp_path / "codex"
    script.write_text(SCRIPTED_APP_SERVER.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    replies_file = tmp_path / "replies.json"
    replies_file.write_text(json.dumps(replies))
    home.source.catalog.env = dict(home.env, LUNAVECT_CODEX=str(script), SCRIPTED_REPLIES=str(replies_file))
    return home, replies_file


def _replace(replies: Path, content: dict) -> None:
    """New replies in one step: a refresh runs meanwhile, and must never read a file half written."""
    partial = replies.with_suffix(".new")
    partial.write_text(json.dumps(content))
    os.replace(partial, replies)


@pytest.fixture(autouse=True)
def refresh_at_every_tick(monkeypatch):
    from lunavect.clients.codex import source

    monkeypatch.setattr(source, "CATALOG_INTERVAL_S", 0.0)


def _refresh(home: Home, now: float) -> None:
    home.tick(now)  # starts a refresh in the background
    home.source.catalog.wait()
    home.tick(now + 1)  # takes it


@pytest.mark.process
def test_codex_app_server_replies_no_reader_takes_are_recorded_and_the_rest_taken(tmp_path: Path):
    good = {"id": A, "name": "Fix the build", "cwd": "/w", "updatedAt": int(T), "source": "cli"}
    listed = {"data": [good, {"id": "../../x", "name": "n"}, "junk"]}
    home, replies = _scripted_home(tmp_path, {"thread/list": listed})
    try:
        _refresh(home, T)
        found = _catalog_entries(home.conn, "codex.catalog")
        assert found == {"app-server thread/list": "a thread whose id is no thread id (and 1 more)"}
        assert home.source.threads.titles == {A: "Fix the build"}
        _replace(replies, {"thread/list": {"data": [good, dict(good, id=B)]}})
        home.source.catalog.wait()  # the refresh the last tick started, with the old replies
        _refresh(home, T + 10)
        assert _catalog_entries(home.conn, "codex.catalog") == {}
    finally:
        home.close()


@pytest.mark.process
def test_a_codex_list_reply_of_the_wrong_shape_is_recorded_and_no_complete_list(tmp_path: Path):
    home, _ = _scripted_home(tmp_path, {"thread/list": {"data": {"not": "a list"}}})
    try:
        _refresh(home, T)
        assert _catalog_entries(home.conn, "codex.catalog") == {
            "app-server thread/list": "a page whose data is no list (dict)"
        }
    finally:
        home.close()


def test_doctor_names_set_aside_catalog_files_and_answers_with_their_fix(iso_env):
    conn = iso_env.connect()
    files, answers = quarantine.Quarantine("claude.catalog"), quarantine.Quarantine("codex.catalog")
    bad = iso_env.root / "2.json"
    bad.write_text("{")
    files.put(str(bad), ValueError("not a JSON object"), 5.0)
    answers.note({"app-server thread/list": "a thread whose id is no thread id"}, 6.0)
    with store.transaction(conn):
        files.save(conn)
        answers.save(conn)
    report = examine()
    assert {q["source"] for q in report.quarantined} == {"claude.catalog", "codex.catalog"}
    problems = {p.what: p.fix for p in report.problems}
    assert (
        problems[f"claude.catalog: set aside {bad} (ValueError: not a JSON object)"] == f"move {bad} away, or report it"
    )
    what = "codex.catalog: ignored part of what app-server thread/list answered (a thread whose id is no thread id)"
    assert problems[what] == "update the client, or report it with its version"
    assert os.path.exists(bad)


def test_a_new_collector_drops_what_an_earlier_one_set_aside_and_it_does_not_find_again(iso_env):
    conn = iso_env.connect()
    earlier = quarantine.Quarantine("claude.catalog")
    fixed, broken = iso_env.root / "2.json", iso_env.root / "3.json"
    for path in (fixed, broken):
        path.write_text("{")
        earlier.put(str(path), ValueError("cut short"), 1.0)
    with store.transaction(conn):
        earlier.save(conn)
    later = quarantine.Quarantine("claude.catalog")
    later.put(str(broken), ValueError("cut short"), 2.0)
    with store.transaction(conn):
        later.save(conn)
    assert [e.path for e in quarantine.entries(conn)] == [str(broken)]


@pytest.mark.process
def test_a_varying_number_of_bad_codex_threads_is_logged_once_while_it_lasts(tmp_path: Path, caplog):
    """The "(and N more)" count changes with every reply: doctor shows the newest, the log says it once."""
    good = {"id": A, "name": "Fix the build", "cwd": "/w", "updatedAt": int(T), "source": "cli"}

    def bad_threads(count: int) -> dict:
        return {"thread/list": {"data": [good] + [{"id": f"../{n}", "name": "n"} for n in range(count)]}}

    home, replies = _scripted_home(tmp_path, bad_threads(2))
    caplog.set_level("WARNING", logger="lunavect.quarantine")
    try:
        _refresh(home, T)
        assert caplog.records  # the first failure is logged
        for step, count in enumerate((3, 5, 4), start=1):
            _replace(replies, bad_threads(count))
            home.source.catalog.wait()  # the refresh the last tick started, with the old replies
            _refresh(home, T + 10 * step)
        found = _catalog_entries(home.conn, "codex.catalog")
        assert found["app-server thread/list"].endswith("(and 3 more)")
        ignored = [r for r in caplog.records if "ignored what app-server thread/list answered" in r.getMessage()]
        assert len(ignored) == 1
        _replace(replies, {"thread/list": {"data": [good]}})
        home.source.catalog.wait()
        _refresh(home, T + 100)
        assert _catalog_entries(home.conn, "codex.catalog") == {}
        _replace(replies, bad_threads(1))
        home.source.catalog.wait()
        _refresh(home, T + 110)
        ignored = [r for r in caplog.records if "ignored what app-server thread/list answered" in r.getMessage()]
        assert len(ignored) == 2  # failing again after a healthy answer is news
    finally:
        home.close()
