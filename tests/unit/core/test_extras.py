"""A missing extra is named with the three ways to add it (uv and pipx, as the README installs lunavect, and pip),
its name quoted for zsh, by every front end that needs one."""

from __future__ import annotations

import sys

import pytest

from lunavect.cli.common import Failure

WAYS = ("uv tool install 'lunavect[{0}]'", "pipx install --force 'lunavect[{0}]'", "pip install 'lunavect[{0}]'")


def says_every_way(text: str, extra: str) -> bool:
    return all(way.format(extra) in text for way in WAYS)


def test_sync_without_nats_py(monkeypatch):
    from lunavect.sync.connect import missing_extra

    monkeypatch.setitem(sys.modules, "nats", None)
    assert says_every_way(missing_extra() or "", "sync")


def test_the_web_panel_without_its_extra(monkeypatch):
    from lunavect.cli import web

    monkeypatch.setitem(sys.modules, "segno", None)
    with pytest.raises(Failure) as failed:
        web._web_modules()
    assert says_every_way(failed.value.format_message(), "web")


def test_the_tray_without_its_extra(monkeypatch):
    from lunavect.frontends.tray.presence import missing_tray

    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.setitem(sys.modules, "Xlib", None)
    assert says_every_way(missing_tray({"DISPLAY": ":99"}) or "", "tray")
