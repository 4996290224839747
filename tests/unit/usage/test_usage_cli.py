"""`lunavect usage` and `lunavect hooks install --statusline` as a person types them: JSON and text, a clear
one-line error for a bad duration, the status line wrapped and put back."""

from __future__ import annotations

import json

import pytest

from lunavect.core.clients import ids as client_ids


@pytest.mark.process
def test_usage_prints_json_and_text_and_refuses_a_bad_duration(iso_env) -> None:
    result = iso_env.cli("usage", "--json", "--since", "30d", "--by", "model")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["by"] == "model" and report["rows"] == [] and report["prices"]["date"]
    text = iso_env.cli("usage")
    assert text.returncode == 0 and "est. cost" in text.stdout
    off = iso_env.cli("usage", "--prices", "off", "--json")
    assert json.loads(off.stdout)["prices"] is None
    assert json.loads(iso_env.cli("usage", "--json").stdout)["prices"] is None  # kept
    bad = iso_env.cli("usage", "--since", "yesterday")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--since" in bad.stderr  # bad usage


def test_hooks_install_statusline_wraps_and_uninstall_puts_it_back(iso_env) -> None:
    settings = iso_env.claude / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"statusLine": {"type": "command", "command": "echo mine"}}))
    result = iso_env.cli("hooks", "install", *client_ids(), "--statusline")
    assert result.returncode == 0, result.stderr
    assert "status line wrapped" in result.stdout
    line = json.loads(settings.read_text())["statusLine"]
    assert "lunavect.shim.statusline" in line["command"] and line["command"].endswith("'echo mine'")
    assert iso_env.cli("hooks", "uninstall").returncode == 0
    assert json.loads(settings.read_text())["statusLine"] == {"type": "command", "command": "echo mine"}
