"""The connection gate rides on uvicorn's private H11Protocol: this uvicorn has what it relies on, and one that
has not (a method gone, an attribute renamed) serves the panel with uvicorn's own h11 protocol, saying why."""

from __future__ import annotations

import logging

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("uvicorn", reason="the web extra is not installed")

from lunavect.frontends.web import connections, server  # noqa: E402
from lunavect.frontends.web.app import Settings, create_app  # noqa: E402
from lunavect.store import connect  # noqa: E402


def test_this_uvicorn_has_what_the_gate_relies_on():
    assert connections.h11_problem() is None


class NoResponseHook:
    """An h11 protocol of a later uvicorn: the response's end is told some other way."""

    def __init__(self) -> None:
        self.conn = self.transport = self.loop = None

    def connection_made(self, transport): ...
    def connection_lost(self, exc): ...
    def data_received(self, data): ...


class RenamedState:
    def __init__(self) -> None:
        self.h11_conn = self.transport = self.loop = None

    def connection_made(self, transport): ...
    def connection_lost(self, exc): ...
    def data_received(self, data): ...
    def on_response_complete(self): ...


@pytest.mark.parametrize(("protocol", "named"), [(NoResponseHook, "on_response_complete()"), (RenamedState, "conn")])
def test_a_changed_protocol_is_named(protocol, named):
    problem = connections.h11_problem(protocol)
    assert problem is not None and f"has no {named}" in problem and "upgrade lunavect" in problem


def test_the_panel_is_served_without_the_gate_when_uvicorn_changed(iso_env, monkeypatch, caplog):
    app = create_app(Settings(connect=connect, hostname="devbox"))
    assert server.uvicorn_config(app).http not in ("h11", "auto")  # the gate's protocol class
    monkeypatch.setattr(connections, "H11Protocol", NoResponseHook)
    monkeypatch.setattr(connections.h11_problem, "__defaults__", (NoResponseHook,))
    with caplog.at_level(logging.WARNING, logger="lunavect.web"):
        assert server.uvicorn_config(app).http == "h11"
    assert any("on_response_complete()" in record.message for record in caplog.records)


def test_doctor_names_the_web_fallback(iso_env, monkeypatch):
    import json

    monkeypatch.setattr(connections.h11_problem, "__defaults__", (NoResponseHook,))
    report = json.loads(iso_env.cli("doctor", "--json").stdout)
    assert [f for f in report["fallbacks"] if "on_response_complete()" in f]
