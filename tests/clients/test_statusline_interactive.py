"""The status-line wrapper under the real interactive Claude Code 2.1.328 (the only mode that runs a status
line), in tmux, against the scripted model server answering with `anthropic-ratelimit-unified-5h-*` and
`-7d-*` headers.

The person's own status line (a script that prints something distinctive from its stdin JSON, in colour)
shows on the screen byte for byte as it does without lunavect, the wrapper handing it the very input the
client gave; `hooks uninstall --statusline` and `hooks uninstall` put the person's settings back byte for
byte. What the client passes depends on the sign-in: with an API key, no `rate_limits` (the client reads
those headers only for a claude.ai subscription), and the wrapper records nothing; signed in with a
subscription's token (`CLAUDE_CODE_OAUTH_TOKEN`, what `claude setup-token` makes), `rate_limits` with the
headers' figures, which lunavect then shows exactly.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from anthropic_server import AnthropicServer, text
from claude_tmux import SUBSCRIPTION
from codex_harness import lunavect

from lunavect.core.clients import ids as client_ids

MARK = "◆mine"
# The person's status line: coloured, built from fields that are the same in two sessions of this test; it
# also keeps each input it gets (the person's own file), so the test sees what the client passed.
PERSON_LINE = r"""import json, sys
data = sys.stdin.buffer.read()
with open(sys.argv[1], "ab") as kept:
    kept.write(data + b"\n")
j = json.loads(data)
limits = j.get("rate_limits")
sys.stdout.write("\x1b[1;35m%s\x1b[0m %s · v%s · %s tokens · limits %s" % (
    sys.argv[2], j["model"]["display_name"], j["version"], j["context_window"]["context_window_size"],
    "none" if limits is None else json.dumps(limits, sort_keys=True)))
"""
# The person's settings, in their own style (four spaces, a key order of their own, a padding).
PERSON_SETTINGS = """{
    "statusLine": {
        "padding": 1,
        "type": "command",
        "command": %s
    },
    "model": "opus",
    "hooks": {}
}
"""


def _headers(five_hour_resets: int, seven_day_resets: int) -> dict[str, str]:
    return {
        "anthropic-ratelimit-unified-status": "allowed",
        "anthropic-ratelimit-unified-5h-status": "allowed",
        "anthropic-ratelimit-unified-5h-utilization": "0.42",
        "anthropic-ratelimit-unified-5h-reset": str(five_hour_resets),
        "anthropic-ratelimit-unified-7d-status": "allowed",
        "anthropic-ratelimit-unified-7d-utilization": "0.08",
        "anthropic-ratelimit-unified-7d-reset": str(seven_day_resets),
    }


def _write_person_s_settings(iso_home) -> tuple[Path, bytes]:
    """The person's status line and settings; returns where it keeps its inputs, and the settings' bytes."""
    script = iso_home.root / "my-status.py"
    script.write_text(PERSON_LINE)
    inputs = iso_home.root / "status-inputs.jsonl"
    command = f"{sys.executable} {script} {inputs} {MARK}"
    iso_home.claude_settings.parent.mkdir(parents=True, exist_ok=True)
    iso_home.claude_settings.write_text(PERSON_SETTINGS % json.dumps(command))
    return inputs, iso_home.claude_settings.read_bytes()


def _plain(line: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", line)


def _person_line(claude, expect: str, timeout: float = 30) -> str:
    """The screen's line that holds the person's status line, with its colours (`capture-pane -e`), once the
    client has redrawn it after the reply."""
    claude.wait_for_screen("Answered[.]", timeout=timeout)
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in claude.capture(escapes=True).splitlines() if MARK in line]
        if len(lines) == 1 and expect in lines[0]:
            return lines[0]
        assert time.monotonic() < deadline, claude.capture()
        time.sleep(0.1)


def _inputs(kept: Path) -> list[dict]:
    return [json.loads(line) for line in kept.read_bytes().splitlines() if line.strip()]


def _session(
    claude_tmux,
    server: AnthropicServer,
    headers: dict[str, str],
    env: dict[str, str] | None = None,
    expect: str = "limits",
) -> str:
    """One interactive session, one reply: the person's line once it shows `expect`."""
    step = text("Answered.")
    step.headers = headers
    server.script(step)
    claude = claude_tmux(env=env)
    claude.send_text("say something")
    line = _person_line(claude, expect)
    claude.exit()
    return line


def test_the_person_s_status_line_is_the_same_on_screen_with_the_wrapper(
    claude_tmux, model_server: AnthropicServer, iso_home
):
    """An API key: the person's line unchanged, no rate limits passed, none recorded, the settings back."""
    env = dict(iso_home.env)
    inputs, original = _write_person_s_settings(iso_home)
    now = int(time.time())
    headers = _headers(now + 3600, now + 5 * 86400)

    without = _session(claude_tmux, model_server, headers)
    seen_without = _inputs(inputs)

    assert lunavect(env, "hooks", "install", *client_ids()).returncode == 0
    hooks_only = iso_home.claude_settings.read_bytes()
    done = lunavect(env, "hooks", "install", *client_ids(), "--statusline")
    assert done.returncode == 0, done.stderr
    wrapped = json.loads(iso_home.claude_settings.read_text())["statusLine"]
    assert "lunavect.shim.statusline" in wrapped["command"] and wrapped["padding"] == 1

    with_lunavect = _session(claude_tmux, model_server, headers)
    assert with_lunavect == without  # byte for byte, colours included
    assert _plain(without).endswith("limits none"), without

    # What the client passed the status line: no rate limits for an API key, though the server sent them.
    payloads = _inputs(inputs)
    assert len(payloads) > len(seen_without)
    assert all("rate_limits" not in p for p in payloads)
    assert {"session_id", "model", "cost", "context_window", "version"} <= set(payloads[-1])
    assert not (Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json").exists()
    report = json.loads(lunavect(env, "usage", "--json").stdout)
    assert [a for a in report["limits"] if a["client"] == "claude"] == []

    # Back: the status line alone, then everything, each byte for byte.
    done = lunavect(env, "hooks", "uninstall", "--statusline")
    assert done.returncode == 0, done.stderr
    assert iso_home.claude_settings.read_bytes() == hooks_only
    assert lunavect(env, "hooks", "uninstall").returncode == 0
    assert iso_home.claude_settings.read_bytes() == original


def test_a_subscription_s_rate_limits_are_recorded_exactly(claude_tmux, model_server: AnthropicServer, iso_home):
    """Signed in with a subscription's token: the client passes the headers' windows, the person's line shows
    them the same with and without the wrapper, and lunavect shows exactly those numbers."""
    env = dict(iso_home.env)
    inputs, original = _write_person_s_settings(iso_home)
    now = int(time.time())
    five_hour, seven_day = now + 3600, now + 5 * 86400
    headers = _headers(five_hour, seven_day)

    without = _session(claude_tmux, model_server, headers, SUBSCRIPTION, expect="five_hour")
    passed = {
        "five_hour": {"resets_at": five_hour, "used_percentage": 42},
        "seven_day": {"resets_at": seven_day, "used_percentage": 8},
    }
    assert _plain(without).endswith("limits " + json.dumps(passed, sort_keys=True)), without
    assert lunavect(env, "hooks", "install", *client_ids(), "--statusline").returncode == 0
    with_lunavect = _session(claude_tmux, model_server, headers, SUBSCRIPTION, expect="five_hour")
    assert with_lunavect == without
    assert _inputs(inputs)[-1]["rate_limits"] == passed

    report = json.loads(lunavect(env, "usage", "--json").stdout)
    [claude] = [a for a in report["limits"] if a["client"] == "claude"]
    assert [
        (w["name"], w["used_percent"], w["window_minutes"], w["resets_at"], w["stale"]) for w in claude["windows"]
    ] == [
        ("five_hour", 42.0, 300, five_hour, False),
        ("seven_day", 8.0, 10080, seven_day, False),
    ]
    status = lunavect(env, "status")
    assert "claude 5 h 42 %" in status.stdout, status.stdout
    assert lunavect(env, "hooks", "uninstall").returncode == 0
    assert iso_home.claude_settings.read_bytes() == original


def test_the_windows_say_how_long_they_last_at_the_pace_of_the_last_hour(
    claude_tmux, model_server: AnthropicServer, iso_home
):
    """Two subscription sessions through the wrapper: the first reports 12 % of the 5 h window and 8 % of the
    week, the second 42 % and 8 %. No test waits an hour, so between them the first figure is moved an hour
    back in the wrapper's file (as if it had been kept then): at 30 points an hour the 5 h window runs out in
    1 h 56 m, before its reset in 3 h; the week's did not grow and lasts. The wrapper kept both real figures in
    its history, numbers only, and every front end that shows the windows says the verdict."""
    env = dict(iso_home.env)
    _write_person_s_settings(iso_home)
    assert lunavect(env, "hooks", "install", *client_ids(), "--statusline").returncode == 0
    now = int(time.time())
    five_hour, seven_day = now + 3 * 3600, now + 5 * 86400
    first = {**_headers(five_hour, seven_day), "anthropic-ratelimit-unified-5h-utilization": "0.12"}
    _session(claude_tmux, model_server, first, SUBSCRIPTION, expect='"used_percentage": 12')
    kept_path = Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json"
    kept = json.loads(kept_path.read_text())
    assert [point[1:] for point in kept["history"]] == [[12, 8]]
    kept["history"] = [[at - 3600, *figures] for at, *figures in kept["history"]]
    kept["at"] -= 3600
    kept_path.write_text(json.dumps(kept))

    _session(claude_tmux, model_server, _headers(five_hour, seven_day), SUBSCRIPTION, expect='"used_percentage": 42')
    kept = json.loads(kept_path.read_text())
    assert [point[1:] for point in kept["history"]] == [[12, 8], [42, 8]]
    assert set(kept) == {"at", "primary", "secondary", "history"}  # numbers only
    report = json.loads(lunavect(env, "usage", "--json").stdout)
    [claude] = [a for a in report["limits"] if a["client"] == "claude"]
    windows = {w["name"]: w for w in claude["windows"]}
    assert (windows["five_hour"]["used_percent"], windows["five_hour"]["pace"]) == (42.0, "runs_out")
    assert abs(windows["five_hour"]["runs_out_at"] - (time.time() + 58 / 30 * 3600)) < 300
    assert (windows["seven_day"]["pace"], windows["seven_day"]["runs_out_at"]) == ("lasts", None)
    status = lunavect(env, "status").stdout
    assert "claude 5 h 42 %" in status and "runs out in 1 h 5" in status, status
    assert "lasts to reset" in lunavect(env, "usage").stdout
    assert lunavect(env, "hooks", "uninstall").returncode == 0
