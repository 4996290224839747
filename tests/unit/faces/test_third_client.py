"""Adding a client is one package and one descriptor: a stand-in client (tests/unit/standin_client),
registered beside Claude Code and Codex, flows through the collector's sources and hook mapping, `hooks
install|status|uninstall`, doctor, the setup report, resume, notifications' names and the panel's and the web
page's provider filter, with no other module edited."""

from __future__ import annotations

import json

import pytest
import standin_client

from lunavect import clients
from lunavect.core import clients as descriptors
from lunavect.core.clients import ids as client_ids


@pytest.fixture
def standin(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(descriptors, "CLIENTS", (*descriptors.CLIENTS, standin_client.CLIENT))
    standin_client.home().joinpath("sessions").mkdir(parents=True)
    return standin_client


def test_its_sessions_come_from_its_source_with_its_resume_command(iso_env, standin) -> None:
    from lunavect.collector.loop import default_sources
    from lunavect.collector.tick import Collector
    from lunavect.listing.sessions import read_sessions

    sources = default_sources()
    names = [type(s).__name__ for s in sources]
    assert names == [
        "ClaudeFilesSource",
        "CodexSource",
        "GeminiSource",
        "OpenCodeSource",
        "CopilotSource",
        "PiSource",
        "QwenSource",
        "StandinSource",
        "PaneTitles",
    ]
    for source in sources:
        source.close()
    (standin.home() / "sessions" / "s1.json").write_text(json.dumps({"cwd": "/work/p"}))
    conn = iso_env.connect()
    Collector(conn, sources=[standin.FACE.new_source()]).tick()
    (row,) = read_sessions(conn)
    assert (row.id, row.provider, row.cwd) == ("standin:s1", "standin", "/work/p")
    assert row.resume == "cd /work/p && standin --continue s1"


def test_its_hook_records_are_mapped_by_its_face(iso_env, standin) -> None:
    from lunavect.collector.tick import Collector
    from lunavect.listing.sessions import read_sessions
    from lunavect.shim.entry import handle

    payload = {"hook_event_name": "UserPromptSubmit", "session_id": "s2", "cwd": "/work/q", "prompt": "hi"}
    record = handle("standin", json.dumps(payload).encode(), None, environ=dict(iso_env.env))
    assert record["client"] == "standin" and "rejected" not in record
    conn = iso_env.connect()
    Collector(conn, sources=[]).tick()
    (row,) = read_sessions(conn)
    assert (row.id, row.state) == ("standin:s2", "working")


@pytest.mark.process
def test_hooks_install_status_and_uninstall_include_it(iso_env, standin) -> None:
    assert f"standin: installed in {standin.hooks_path()}" in iso_env.cli("hooks", "install", *client_ids()).stdout
    report = json.loads(iso_env.cli("hooks", "status", "--json").stdout)
    assert list(report) == ["claude", "codex", "gemini", "opencode", "copilot", "pi", "qwen", "standin"]
    assert report["standin"]["state"] == "installed" and report["standin"]["last_event_age_s"] is None
    assert f"standin: installed ({standin.hooks_path()})" in iso_env.cli("hooks", "status").stdout
    assert f"standin: removed in {standin.hooks_path()}" in iso_env.cli("hooks", "uninstall").stdout


def test_doctor_and_the_setup_report_include_it(iso_env, standin) -> None:
    from lunavect.collector import setup_probe, setup_report
    from lunavect.collector.doctor import examine

    report = examine()
    assert report.clients["standin"]["hooks"] == "missing"
    assert any(p.what == "standin: hooks missing" for p in report.problems)
    lines = setup_report.explain(setup_probe.probe())
    assert "Stand-in CLI" in next(line for line in lines if line.startswith("Clients found: "))  # its home is here
    assert "Stand-in CLI hooks: missing." in lines


@pytest.mark.process
def test_what_it_can_tell_is_said_by_doctor_its_rows_and_list_json(iso_env, standin) -> None:
    """Its descriptor says it tells only that it works and that a reply is ready: doctor, the row's detail in the
    panel and on the web page, and `list --json` say what it cannot report, with nothing else edited."""
    import json as jsonlib

    from lunavect.collector import doctor
    from lunavect.collector.tick import Collector
    from lunavect.frontends import rows
    from lunavect.frontends.web.document import page_row
    from lunavect.listing.sessions import read_sessions

    report = doctor.examine()
    assert report.clients["standin"]["tells"] == {"working": ["hook"], "ready": ["hook"]}
    assert "  cannot report: the running tool, background tasks, compaction, permission prompts, questions and " in (
        "\n".join(doctor.lines(report))
    )
    (standin.home() / "sessions" / "s4.json").write_text(jsonlib.dumps({"cwd": "/work/t"}))
    conn = iso_env.connect()
    Collector(conn, sources=[standin.FACE.new_source()]).tick()
    (row,) = read_sessions(conn)
    sentence = (
        "Stand-in CLI cannot report the running tool, background tasks, compaction, permission prompts, questions "
        "and forms, API errors and their reason or that it ended."
    )
    assert sentence in rows.tooltip(row, 0.0).splitlines()
    assert page_row(row).cannot_report == sentence
    (listed,) = jsonlib.loads(iso_env.cli("list", "--json").stdout)
    assert listed["tells"] == {"working": ["hook"], "ready": ["hook"]}


def test_resume_names_and_the_provider_filters_include_it(iso_env, standin) -> None:
    from lunavect.core.resume_command import display_command
    from lunavect.frontends.tui import filters
    from lunavect.frontends.web import assets
    from lunavect.notify.decide import client_name

    assert display_command("standin", "s3", "/p") == "cd /p && standin --continue s3"
    assert client_name("standin", None) == "Stand-in CLI"
    assert filters.providers() == ("all", "claude", "codex", "gemini", "opencode", "copilot", "pi", "qwen", "standin")
    assert filters.provider_label("standin") == "Stand-in"
    assert filters.loads('{"provider": "standin"}').provider == "standin"
    page = assets.load()["index.html"].body.decode()
    assert 'data-provider="standin" data-name="Stand-in CLI" aria-pressed="false">Stand-in</button>' in page
    assert clients.face_of("standin") is standin.FACE
