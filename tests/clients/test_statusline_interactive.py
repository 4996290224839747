"""The status-line wrapper under the real interactive Claude Code 2.1.328 (the only mode that runs a status
line), in tmux, against the scripted model server.

The person's own status line (a script that prints something distinctive from its stdin JSON, in colour)
shows on the screen byte for byte as it does without lunavect; the wrapper hands it the very input the client
gave; `hooks uninstall --statusline` and `hooks uninstall` put the person's settings back byte for byte.

What the client passes: with an API key, Claude Code gives the status line no `rate_limits` even when the
server answers with `anthropic-ratelimit-unified-5h-*` / `-7d-*` headers (its code reads them only when
signed in with a claude.ai subscription or a Claude gateway login, neither of which a local server can
stand in for); it passes the session, model, version, cost and context_window, and the wrapper then records
nothing. The recording of windows that do come is proven with their shape in tests/unit/test_usage_statusline.py.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

from anthropic_server import AnthropicServer, text
from codex_harness import lunavect

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


def _headers() -> dict[str, str]:
    now = int(time.time())
    return {
        "anthropic-ratelimit-unified-status": "allowed",
        "anthropic-ratelimit-unified-5h-status": "allowed",
        "anthropic-ratelimit-unified-5h-utilization": "0.42",
        "anthropic-ratelimit-unified-5h-reset": str(now + 3600),
        "anthropic-ratelimit-unified-7d-status": "allowed",
        "anthropic-ratelimit-unified-7d-utilization": "0.08",
        "anthropic-ratelimit-unified-7d-reset": str(now + 5 * 86400),
    }


def _person_line(claude, timeout: float = 30) -> str:
    """The screen's line that holds the person's status line, with its colours (`capture-pane -e`), once the
    client has redrawn it after the reply."""
    claude.wait_for_screen("Answered[.]", timeout=timeout)
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in claude.capture(escapes=True).splitlines() if MARK in line]
        if len(lines) == 1 and "tokens" in lines[0]:
            return lines[0]
        assert time.monotonic() < deadline, claude.capture()
        time.sleep(0.1)


def _inputs(kept: Path) -> list[dict]:
    return [json.loads(line) for line in kept.read_bytes().splitlines() if line.strip()]


def _session(claude_tmux, server: AnthropicServer) -> str:
    step = text("Answered.")
    step.headers = _headers()
    server.script(step)
    claude = claude_tmux()
    claude.send_text("say something")
    line = _person_line(claude)
    claude.exit()
    return line


def test_the_person_s_status_line_is_the_same_on_screen_with_the_wrapper(
    claude_tmux, model_server: AnthropicServer, iso_home
):
    env = dict(iso_home.env)
    script = iso_home.root / "my-status.py"
    script.write_text(PERSON_LINE)
    inputs = iso_home.root / "status-inputs.jsonl"
    command = f"{sys.executable} {script} {inputs} {MARK}"
    iso_home.claude_settings.parent.mkdir(parents=True, exist_ok=True)
    iso_home.claude_settings.write_text(PERSON_SETTINGS % json.dumps(command))
    original = iso_home.claude_settings.read_bytes()

    without = _session(claude_tmux, model_server)
    seen_without = _inputs(inputs)

    assert lunavect(env, "hooks", "install").returncode == 0
    hooks_only = iso_home.claude_settings.read_bytes()
    done = lunavect(env, "hooks", "install", "--statusline")
    assert done.returncode == 0, done.stderr
    wrapped = json.loads(iso_home.claude_settings.read_text())["statusLine"]
    assert "lunavect.shim.statusline" in wrapped["command"] and wrapped["padding"] == 1

    with_lunavect = _session(claude_tmux, model_server)
    assert with_lunavect == without  # byte for byte, colours included
    assert re.search(r"limits none$", re.sub(r"\x1b\[[0-9;]*m", "", without)), without

    # What the client passed the status line: no rate limits for an API key, even with the headers.
    payloads = _inputs(inputs)
    assert len(payloads) > len(seen_without)
    assert all("rate_limits" not in p for p in payloads)
    assert {"session_id", "model", "cost", "context_window", "version"} <= set(payloads[-1])
    limits_file = Path(env["LUNAVECT_HOME"]) / "limits" / "claude.json"
    assert not limits_file.exists()
    report = json.loads(lunavect(env, "usage", "--json").stdout)
    assert [a for a in report["limits"] if a["client"] == "claude"] == []

    # Back: the status line alone, then everything, each byte for byte.
    done = lunavect(env, "hooks", "uninstall", "--statusline")
    assert done.returncode == 0, done.stderr
    assert iso_home.claude_settings.read_bytes() == hooks_only
    assert lunavect(env, "hooks", "uninstall").returncode == 0
    assert iso_home.claude_settings.read_bytes() == original
