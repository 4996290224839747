"""`lunavect hooks install --http`: Claude Code's tool events as HTTP hooks into the collector (issue 21).

Only the events claude/http_hooks.py names go by HTTP (their loss is proven harmless in
test_http_hook_loss.py); every other event keeps the command shim. The port and secret are the install's own,
a person's `allowedHttpHookUrls` keeps working, the running collector follows the setup, and the events that
arrive by HTTP get their process from Claude's live catalog.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from unit_support import wait_until

from lunavect.cli.root import cli
from lunavect.clients.claude import http_hooks, install
from lunavect.clients.claude.live_process import process_facts
from lunavect.collector import process as collector_process
from lunavect.core.clients import ids as client_ids
from lunavect.host.processes import start_ticks
from lunavect.listener import secret as hook_secret
from lunavect.listener import service as hook_service
from lunavect.listener.server import HookListener

SID = "3fd75c2e-f60a-47a1-9b70-087f2037adbf"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def settings_file(iso_env) -> Path:
    return iso_env.claude / "settings.json"


def read_settings(iso_env) -> dict:
    return json.loads(settings_file(iso_env).read_text(encoding="utf-8"))


def ours(settings: dict, event: str) -> list[dict]:
    return [h for g in settings.get("hooks", {}).get(event, []) for h in g.get("hooks", []) if install.is_ours(h)]


def answers(iso_env) -> bool:
    return bool((hook_service.probe(iso_env.data) or {}).get("answers"))


def post(port: int, secret: str, payload: dict) -> int:
    request = urllib.request.Request(
        http_hooks.url(port),
        data=json.dumps(payload).encode(),
        headers={http_hooks.SECRET_HEADER: secret, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as reply:
        return reply.status


@pytest.mark.process
def test_install_http_sends_only_the_tool_events_by_http_and_the_collector_follows(iso_env):
    assert collector_process.ensure_running()  # a collector that runs before HTTP hooks are set up
    result = run("hooks", "install", *client_ids(), "--http")
    assert result.exit_code == 0, result.output
    port = hook_service.configured_port(iso_env.data)
    secret = hook_secret.load_or_create(iso_env.data)
    assert port is not None and f"127.0.0.1:{port} answers" in result.output
    assert os.stat(hook_service.config_path(iso_env.data)).st_mode & 0o777 == 0o600
    settings = read_settings(iso_env)
    for event in install.EVENTS:
        (handler,) = ours(settings, event)
        if event in http_hooks.HTTP_EVENTS:
            assert handler == {
                "type": "http",
                "url": f"http://127.0.0.1:{port}/lunavect/hook/claude",
                "headers": {"X-Lunavect-Secret": secret},
                "timeout": http_hooks.TIMEOUT_S,
            }
        else:
            assert handler["type"] == "command" and handler["command"] == install.hook_command()
    assert set(http_hooks.HTTP_EVENTS) == {"PreToolUse", "PostToolUse", "PostToolUseFailure"}
    report = json.loads(run("hooks", "status", "--json").stdout)["claude"]
    assert report["state"] == "installed"
    assert report["http_events"] == list(http_hooks.HTTP_EVENTS)
    assert report["http_listener"] == {"port": port, "answers": True}
    text = run("hooks", "status").stdout
    assert "by HTTP: PreToolUse, PostToolUse, PostToolUseFailure" in text and "answers" in text
    # An event by HTTP reaches the store.
    assert post(port, secret, {"hook_event_name": "PreToolUse", "session_id": SID, "tool_name": "Read"}) == 200
    wait_until(
        lambda: iso_env.connect().execute("SELECT count(*) FROM events WHERE kind='PreToolUse'").fetchone()[0] == 1,
        "the event by HTTP never reached the store",
    )
    # Installing again changes nothing and keeps the port.
    assert "already installed" in run("hooks", "install", *client_ids(), "--http").output
    assert hook_service.configured_port(iso_env.data) == port
    # Uninstall: the handlers and the setup go, and the running collector closes its listener.
    assert run("hooks", "uninstall").exit_code == 0
    assert not hook_service.config_path(iso_env.data).exists()
    assert not settings_file(iso_env).exists() or "lunavect" not in settings_file(iso_env).read_text()
    wait_until(lambda: not _port_open(port), "the listener stayed open after uninstall")


def _port_open(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def test_without_a_collector_install_says_what_is_lost(iso_env, monkeypatch):
    monkeypatch.setattr(collector_process, "ensure_running", lambda: False)
    result = run("hooks", "install", *client_ids(), "--http")
    assert result.exit_code == 0
    assert "tool events are lost until the collector runs" in result.output
    assert hook_service.probe(iso_env.data) == {"port": hook_service.configured_port(iso_env.data), "answers": False}


def test_plain_install_puts_the_command_shim_back_everywhere(iso_env, monkeypatch):
    monkeypatch.setattr(collector_process, "ensure_running", lambda: False)
    run("hooks", "install", *client_ids(), "--http")
    result = run("hooks", "install", *client_ids())
    assert "HTTP hooks replaced by the command shim" in result.output
    settings = read_settings(iso_env)
    for event in install.EVENTS:
        (handler,) = ours(settings, event)
        assert handler["type"] == "command"
    assert hook_service.configured_port(iso_env.data) is None
    assert json.loads(run("hooks", "status", "--json").stdout)["claude"]["state"] == "installed"


def test_a_handler_with_another_secret_or_port_is_stale(iso_env, monkeypatch):
    monkeypatch.setattr(collector_process, "ensure_running", lambda: False)
    run("hooks", "install", *client_ids(), "--http")
    settings = read_settings(iso_env)
    settings["hooks"]["PreToolUse"][-1]["hooks"][0]["headers"]["X-Lunavect-Secret"] = "old"
    settings_file(iso_env).write_text(json.dumps(settings))
    report = json.loads(run("hooks", "status", "--json").stdout)["claude"]
    assert report["state"] == "stale" and report["detail"] == "points at another lunavect installation"
    run("hooks", "install", *client_ids(), "--http")
    assert json.loads(run("hooks", "status", "--json").stdout)["claude"]["state"] == "installed"


def test_a_persons_allow_list_gets_our_url_and_gets_it_back_out(iso_env, monkeypatch):
    monkeypatch.setattr(collector_process, "ensure_running", lambda: False)
    theirs = b'{\n  "allowedHttpHookUrls": ["https://hooks.example.com/*"],\n  "model": "opus"\n}\n'
    settings_file(iso_env).parent.mkdir(parents=True, exist_ok=True)
    settings_file(iso_env).write_bytes(theirs)
    run("hooks", "install", *client_ids(), "--http")
    port = hook_service.configured_port(iso_env.data)
    assert read_settings(iso_env)["allowedHttpHookUrls"] == ["https://hooks.example.com/*", http_hooks.url(port)]
    run("hooks", "install", *client_ids(), "--http")  # no second copy
    assert read_settings(iso_env)["allowedHttpHookUrls"].count(http_hooks.url(port)) == 1
    run("hooks", "install", *client_ids())  # back to the shim: our URL leaves their list
    assert read_settings(iso_env)["allowedHttpHookUrls"] == ["https://hooks.example.com/*"]
    run("hooks", "install", *client_ids(), "--http")
    run("hooks", "uninstall")
    assert settings_file(iso_env).read_bytes() == theirs  # their exact bytes


def test_without_an_allow_list_none_is_added(iso_env, monkeypatch):
    monkeypatch.setattr(collector_process, "ensure_running", lambda: False)
    run("hooks", "install", *client_ids(), "--http")
    assert "allowedHttpHookUrls" not in read_settings(iso_env)
    settings_file(iso_env).write_text(json.dumps({**read_settings(iso_env), "allowedHttpHookUrls": []}))
    run("hooks", "install", *client_ids(), "--http")  # an empty list blocks every URL: ours is added to it
    port = hook_service.configured_port(iso_env.data)
    assert read_settings(iso_env)["allowedHttpHookUrls"] == [http_hooks.url(port)]
    run("hooks", "uninstall")
    assert read_settings(iso_env)["allowedHttpHookUrls"] == []  # their list, as it was


# -- process facts for events that come by HTTP -----------------------------------------------------------


@pytest.fixture
def claude_process(iso_env):
    """A live process with a catalog entry naming SID, as Claude Code writes one."""
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        wait_until(lambda: start_ticks(sleeper.pid) is not None, "the process never started")
        folder = iso_env.claude / "sessions"
        folder.mkdir(parents=True)
        entry = {"pid": sleeper.pid, "sessionId": SID, "procStart": start_ticks(sleeper.pid), "status": "busy"}
        (folder / f"{sleeper.pid}.json").write_text(json.dumps(entry))
        yield sleeper
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.process
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procStart is clock ticks on Linux")
def test_an_http_event_takes_its_process_from_the_live_catalog(iso_env, claude_process):
    facts = process_facts(SID, iso_env.claude)
    assert facts is not None and facts["pid"] == claude_process.pid and facts["pstart"] > 0
    assert process_facts("00000000-0000-4000-8000-000000000000", iso_env.claude) is None
    hook_service.configure(iso_env.data)
    listener = hook_service.start(iso_env.data)
    assert listener is not None
    try:
        secret = hook_secret.load_or_create(iso_env.data)
        assert post(listener.port, secret, {"hook_event_name": "PostToolUse", "session_id": SID}) == 200
        wait_until(lambda: listener.accepted == 1, "the listener accepted no event")
    finally:
        listener.close()
    (line,) = iso_env.spool.read_text().splitlines()
    record = json.loads(line)
    assert record["via"] == "http" and record["pid"] == claude_process.pid and record["pstart"] == facts["pstart"]


@pytest.mark.process
def test_a_process_that_ended_gives_no_facts(iso_env, claude_process):
    claude_process.kill()
    claude_process.wait()
    assert process_facts(SID, iso_env.claude) is None


def test_without_process_facts_the_event_still_counts(tmp_path):
    def broken(_sid: str) -> dict:
        raise OSError("no catalog")

    listener = HookListener(str(tmp_path / "events.jsonl"), "s" * 64, process_of=broken).start()
    try:
        assert post(listener.port, "s" * 64, {"hook_event_name": "PreToolUse", "session_id": SID}) == 200
        wait_until(lambda: listener.accepted == 1, "the listener accepted no event")
    finally:
        listener.close()
    assert "pid" not in json.loads((tmp_path / "events.jsonl").read_text())


def test_a_settings_file_that_holds_the_secret_is_readable_by_its_owner_only(iso_env, monkeypatch):
    """The secret proves a request is the person's own hook: a settings.json others may read gives it away."""
    monkeypatch.setattr(collector_process, "ensure_running", lambda: False)
    theirs = b'{\n  "model": "opus",\n  "env": {"A": "1"}\n}\n'
    settings_file(iso_env).parent.mkdir(parents=True, exist_ok=True)
    settings_file(iso_env).write_bytes(theirs)
    os.chmod(settings_file(iso_env), 0o644)
    run("hooks", "install", *client_ids())
    assert settings_file(iso_env).stat().st_mode & 0o777 == 0o644  # no secret in it: their mode stays
    run("hooks", "install", *client_ids(), "--http")
    assert settings_file(iso_env).stat().st_mode & 0o777 == 0o600
    os.chmod(settings_file(iso_env), 0o664)  # opened up again by hand, or by a sync of dotfiles
    run("hooks", "install", *client_ids(), "--http")  # nothing to change in it, yet it is made private again
    assert settings_file(iso_env).stat().st_mode & 0o777 == 0o600
    run("hooks", "uninstall")
    assert settings_file(iso_env).read_bytes() == theirs  # their exact bytes
