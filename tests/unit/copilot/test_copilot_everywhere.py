"""GitHub Copilot CLI is named, filtered, resumed and told honestly everywhere a client is, from its descriptor alone:
the panel's and the web page's filter, notifications, the resume command, doctor and a row's detail."""

from __future__ import annotations

from unit_support import a_session


def test_its_filters_names_and_resume_command() -> None:
    from lunavect.core.resume_command import display_command
    from lunavect.frontends.tui import filters
    from lunavect.frontends.web import assets
    from lunavect.notify.decide import client_name

    assert "copilot" in filters.providers() and filters.provider_label("copilot") == "Copilot"
    page = assets.load()["index.html"].body.decode()
    assert 'data-provider="copilot" data-name="GitHub Copilot CLI" aria-pressed="false">Copilot</button>' in page
    assert client_name("copilot", None) == "GitHub Copilot CLI"
    assert display_command("copilot", "s-1", "/w/p") == "cd /w/p && copilot --resume s-1"


def test_what_it_cannot_report_is_said(iso_env) -> None:
    from lunavect.collector import doctor
    from lunavect.frontends import rows

    report = doctor.examine()
    assert report.clients["copilot"]["tells"]["permission"] == ["hook"]
    assert "background" not in report.clients["copilot"]["tells"]
    row = a_session("s-1", provider="copilot")
    assert "GitHub Copilot CLI cannot report background tasks." in rows.tooltip(row, 0.0).splitlines()
