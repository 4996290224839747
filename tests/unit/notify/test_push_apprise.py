"""Push through Apprise (issue 46, item 1), with the real Apprise against a local server that answers as ntfy
and Gotify do: a session's permission and its reply reach both with the desktop notification's words, the
urgent one with a raised priority, each with the link to its row in the web panel and never a token or private
text; a failing server is reported with its reason, counted, shown by doctor, and the notifier goes on. lunavect
keeps only the configuration's path and a tag."""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("apprise", reason="the push extra is not installed")

from push_servers import GOTIFY_TOKEN, NTFY_TOPIC, PushServer, apprise_config  # noqa: E402

from lunavect import store  # noqa: E402
from lunavect.notify import push  # noqa: E402

pytestmark = pytest.mark.process
PUBLIC = "https://desk.example.ts.net:8765"
SECRETS = ("secret prompt", "rm -rf secret-folder", "secret reply")


@pytest.fixture
def server():
    running = PushServer().start()
    yield running
    running.stop()


def event(iso_env, sid: str, name: str, **fields) -> None:
    payload = {"session_id": sid, "hook_event_name": name, "cwd": "/tmp/pushed", **fields}
    assert iso_env.hook(payload).returncode == 0


def wait_for(what, within: float = 30.0):
    deadline = time.monotonic() + within
    while not (found := what()):
        assert time.monotonic() < deadline, "waited in vain"
        time.sleep(0.1)
    return found


def test_set_keeps_only_the_path_and_the_tag_and_refuses_what_it_cannot_use(iso_env, server, tmp_path):
    config = apprise_config(tmp_path, server)
    missing = iso_env.cli("notifications", "push", "set", str(tmp_path / "nope.yml"))
    assert missing.returncode == 1 and "is not a file" in missing.stderr and missing.stderr.count("\n") == 1
    untagged = iso_env.cli("notifications", "push", "set", str(config), "--tag", "desk")
    assert untagged.returncode == 1 and "names no Apprise service with the tag desk" in untagged.stderr
    done = iso_env.cli("notifications", "push", "set", str(config), "--tag", "phone", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"ok": True, "config": str(config), "tag": "phone", "services": 2}
    status = json.loads(iso_env.cli("notifications", "push", "status", "--json").stdout)
    assert (status["config"], status["tag"], status["sent"], status["failed"]) == (str(config), "phone", 0, 0)
    # The services' URLs (with their tokens) stay in the person's file: the store names only the file.
    stored = "\n".join(str(row) for row in iso_env.connect().execute("SELECT * FROM settings"))
    assert GOTIFY_TOKEN not in stored and NTFY_TOPIC not in stored and str(config) in stored
    assert iso_env.cli("notifications", "push", "off").returncode == 0
    assert json.loads(iso_env.cli("notifications", "push", "status", "--json").stdout)["config"] is None


def test_push_test_reaches_ntfy_and_gotify_and_a_failing_server_is_reported(iso_env, server, tmp_path):
    config = apprise_config(tmp_path, server)
    assert iso_env.cli("notifications", "push", "set", str(config)).returncode == 0
    sent = iso_env.cli("notifications", "push", "test", "--json")
    assert sent.returncode == 0 and json.loads(sent.stdout) == {"ok": True, "reason": None}
    [ntfy], [gotify] = server.ntfy(), server.gotify()
    assert ntfy.body["topic"] == NTFY_TOPIC and ntfy.body["title"] == "lunavect test notification"
    assert gotify.headers["x-gotify-key"] == GOTIFY_TOKEN and gotify.body["title"] == "lunavect test notification"
    server.failing = True
    failed = iso_env.cli("notifications", "push", "test")
    assert failed.returncode == 1 and failed.stderr.count("\n") == 1
    assert "push failed: Failed to send" in failed.stderr and "error=500" in failed.stderr  # Apprise's last line
    status = json.loads(iso_env.cli("notifications", "push", "status", "--json").stdout)
    assert (status["sent"], status["failed"], status["failing"]) == (1, 1, True)
    assert "error=500" in status["last_failure"]["reason"]
    doctor = iso_env.cli("doctor")
    assert "push: 1 sent, 1 failed; the last failure: Failed to send" in doctor.stdout


def test_a_session_pushes_the_desktop_words_with_priority_and_link_and_nothing_private(iso_env, server, tmp_path):
    config = apprise_config(tmp_path, server)
    assert iso_env.cli("notifications", "set", "--no-desktop", "--no-focus").returncode == 0
    assert iso_env.cli("notifications", "push", "set", str(config), "--tag", "phone").returncode == 0
    store.set_setting(iso_env.connect(), push.PUBLIC_URL_SETTING, PUBLIC)  # what `web --public-url` stores
    assert iso_env.cli("list").returncode == 0  # a collector (with its notifier) runs from here on
    sid = "5e55e55e-0000-4000-8000-0000000000b1"
    bash = {"tool_name": "Bash", "tool_input": {"command": "rm -rf secret-folder"}}
    event(iso_env, sid, "UserPromptSubmit", prompt="secret prompt")
    event(iso_env, sid, "PreToolUse", tool_use_id="t1", **bash)
    event(iso_env, sid, "PermissionRequest", **bash)
    ntfy = wait_for(lambda: server.ntfy())[0]
    gotify = wait_for(lambda: server.gotify())[0]
    link = f"{PUBLIC}/#session=claude:{sid}"
    assert ntfy.headers["x-priority"] == "high" and ntfy.headers["x-click"] == link
    assert gotify.body["priority"] == 8
    for arrived in (ntfy, gotify):
        assert "permission" in arrived.body["message"].lower() and "Bash" in arrived.body["message"]
        assert arrived.body["message"].endswith("\n" + link) and arrived.body["title"]
    # The person answers; the reply that ends is pushed at the normal priority.
    event(iso_env, sid, "PostToolUse", tool_use_id="t1", tool_response={"stdout": ""}, **bash)
    event(iso_env, sid, "Stop", stop_hook_active=False, last_assistant_message="secret reply")
    wait_for(lambda: len(server.ntfy()) == 2 and len(server.gotify()) == 2)
    ready_ntfy, ready_gotify = server.ntfy()[1], server.gotify()[1]
    assert "x-priority" not in ready_ntfy.headers and ready_gotify.body["priority"] == 5
    assert "response ready" in ready_ntfy.body["message"]
    assert json.loads(iso_env.cli("notifications", "push", "status", "--json").stdout)["sent"] == 2
    everything = json.dumps([[r.path, r.headers, r.body] for r in server.received])
    assert not any(secret in everything for secret in SECRETS)
    assert "token" not in everything.lower().replace("x-gotify-key", "")


def test_a_failing_server_never_stops_the_notifier(iso_env, server, tmp_path):
    server.failing = True
    config = apprise_config(tmp_path, server)
    assert iso_env.cli("notifications", "set", "--no-desktop", "--no-focus").returncode == 0
    assert iso_env.cli("notifications", "push", "set", str(config)).returncode == 0
    assert iso_env.cli("list").returncode == 0
    for n, sid in enumerate(["5e55e55e-0000-4000-8000-0000000000c1", "5e55e55e-0000-4000-8000-0000000000c2"]):
        event(iso_env, sid, "UserPromptSubmit", prompt="secret prompt")
        event(iso_env, sid, "Stop", stop_hook_active=False, last_assistant_message="secret reply")
        wait_for(lambda n=n: json.loads(iso_env.cli("notifications", "push", "status", "--json").stdout)["failed"] > n)
    status = json.loads(iso_env.cli("notifications", "push", "status", "--json").stdout)
    assert status["failed"] == 2 and status["failing"] and "error=500" in status["last_failure"]["reason"]
    # The collector's log says each failure with its reason, and nothing private.
    log = wait_for(lambda: (text := (iso_env.data / "collector.log").read_text()).count("push failed:") >= 2 and text)
    assert "push failed: Failed to send" in log and "error=500" in log
    assert not any(secret in log for secret in SECRETS)


@pytest.mark.parametrize(
    "bad", ["ftp://desk", "https://me:pw@desk", "https://desk/?token=abc", "https://desk/#x", "desk"]
)
def test_the_web_panel_takes_a_public_url_that_can_carry_no_token(iso_env, bad):
    done = iso_env.cli("web", "--public-url", bad)
    assert done.returncode == 2 and "--public-url" in done.stderr and done.stderr.count("\n") == 1
    assert push.check_public_url("https://desk.example.ts.net:8765/") == "https://desk.example.ts.net:8765"
