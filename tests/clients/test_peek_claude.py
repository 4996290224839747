"""`lunavect show|reply|answer` against the real Claude Code under tmux and the scripted model server.

Proves: show prints the scripted reply and the tool call; --follow prints a new message while the client
writes it; a reply reaches the model server as exactly the next user message and the state goes working;
answer allow runs the tool (the server sees its result) and deny does not; a reply to a working session, to a
session whose pane now runs another program in its foreground, and to a session that needs a permission is
refused without typing; nothing of what was shown or typed reaches any file lunavect wrote.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

from anthropic_server import AnthropicServer, has_tools, text, tool_use
from lunavect_probe import lunavect, wait_for, wait_state

PERMISSION_DIALOG = r"Do you want to proceed\?"


def _last_user_blocks(request) -> list[str]:
    """The text blocks of a request's last user message, one by one (Claude Code adds reminders beside the
    person's text as blocks of their own)."""
    for message in reversed(request.messages):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return [content]
            return [b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"]
    return []


def _answers_tool(request) -> bool:
    """A request whose last user message carries a tool's result."""
    last = next((m for m in reversed(request.messages) if m.get("role") == "user"), {})
    content = last.get("content")
    return isinstance(content, list) and any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _prompted(prompt: str):
    return lambda r: has_tools(r) and prompt in _last_user_blocks(r)


class Follow:
    """`lunavect show ID --follow` running, its lines read by a thread into a queue."""

    def __init__(self, env: dict[str, str], session_id: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "lunavect", "show", session_id, "--follow", "--last", "5"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_line(self, needle: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.seen:
                if needle in line:
                    return line
            try:
                self.seen.append(self.lines.get(timeout=max(0.01, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"--follow never printed {needle!r}: {self.seen}") from None

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _secrets_in(root: Path, secrets: list[str]) -> list[str]:
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            if not path.is_file():  # the collector's socket
                continue
            data = path.read_bytes()
            found += [f"{name}: {s}" for s in secrets if s.encode() in data or s.encode("utf-16-le") in data]
    return found


def test_show_follow_reply_and_answer(claude_tmux, model_server: AnthropicServer, iso_home) -> None:
    env = iso_home.env
    model_server.script(text("Scripted reply ALPHA-4711"), match=_prompted("first prompt OMEGA"), route="first")
    model_server.script(
        text("Answer to the reply GAMMA-0815", delay=4), match=_prompted("reply text KAPPA-17"), route="reply"
    )
    marker, refused = iso_home.work / "made.txt", iso_home.work / "denied.txt"
    model_server.script(
        tool_use("Bash", {"command": f"touch {marker}", "description": "make the marker"}),
        text("Made it DELTA-99"),
        match=lambda r: _prompted("make a file SIGMA")(r) or (_answers_tool(r) and "TAU" not in json.dumps(r.messages)),
        route="allow",
    )
    claude = claude_tmux("--permission-mode", "default")
    claude.send_text("first prompt OMEGA")
    ready = wait_state(env, "ready", timeout=40)
    sid = ready["id"]

    shown = lunavect(env, "show", sid)
    assert shown.returncode == 0, shown.stderr
    assert "› first prompt OMEGA" in shown.stdout and "● Scripted reply ALPHA-4711" in shown.stdout
    as_json = json.loads(lunavect(env, "show", sid, "--json").stdout)
    assert [m["kind"] for m in as_json["messages"]] == ["prompt", "text"]

    follow = Follow(env, sid)
    try:
        follow.wait_line("Scripted reply ALPHA-4711")
        sent = lunavect(env, "reply", sid, "reply text KAPPA-17", "--json")
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert json.loads(sent.stdout)["outcome"] == "sent"
        request = model_server.wait_for(lambda r: has_tools(r) and "KAPPA" in r.last_user_text(), timeout=20)
        assert [b for b in _last_user_blocks(request) if not b.startswith("<")] == ["reply text KAPPA-17"]
        wait_state(env, "working", timeout=20)
        follow.wait_line("› reply text KAPPA-17")

        # Working: refused, nothing typed.
        busy = lunavect(env, "reply", sid, "never typed WORKING")
        assert busy.returncode == 1 and "(Working)" in busy.stderr and "nothing was typed" in busy.stderr
        assert "never typed" not in claude.capture()
        follow.wait_line("● Answer to the reply GAMMA-0815")
    finally:
        follow.stop()
    wait_state(env, "ready", timeout=30)

    # A permission: a reply is refused, answer allow runs the tool and the server sees its result.
    assert lunavect(env, "reply", sid, "make a file SIGMA").returncode == 0
    wait_state(env, "permission", timeout=30)
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    blocked = lunavect(env, "reply", sid, "never typed PERMISSION")
    assert blocked.returncode == 1 and "lunavect answer" in blocked.stderr
    allowed = lunavect(env, "answer", sid, "allow")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    model_server.wait_for(lambda r: any(b.get("tool_use_id") for b in r.tool_results()), timeout=20)
    assert marker.exists()
    wait_state(env, "ready", timeout=30)
    shown = lunavect(env, "show", sid, "--last", "6").stdout
    assert f"⏺ Bash  touch {marker}" in shown and "Made it DELTA-99" in shown

    # Deny: the tool does not run.
    model_server.script(
        tool_use("Bash", {"command": f"touch {refused}", "description": "make another"}),
        match=_prompted("make another file TAU"),
        route="deny",
    )
    assert lunavect(env, "reply", sid, "make another file TAU").returncode == 0
    wait_state(env, "permission", timeout=30)
    claude.wait_for_screen(PERMISSION_DIALOG, timeout=20)
    denied = lunavect(env, "answer", sid, "deny")
    assert denied.returncode == 0, denied.stdout + denied.stderr
    wait_for(env, lambda s: s["state"] not in ("permission", "working"), timeout=30)
    assert not refused.exists()

    # Nothing shown or typed reached a file lunavect wrote (the first prompt is the session's title, kept by
    # design; every other text here went through show, follow, reply or answer).
    secrets = ["ALPHA-4711", "KAPPA-17", "GAMMA-0815", "SIGMA", "DELTA-99", "TAU", "WORKING", "PERMISSION"]
    assert _secrets_in(iso_home.lunavect_home, secrets) == []


def test_a_pane_whose_foreground_is_another_program_is_refused(claude_tmux, model_server, iso_home) -> None:
    env = iso_home.env
    model_server.script(text("Reply EPSILON"))
    claude = claude_tmux("--permission-mode", "default", via_shell=True)
    claude.send_text("hello there")
    sid = wait_state(env, "ready", timeout=40)["id"]
    claude.send_keys("C-z")  # the client is suspended; its shell takes the terminal
    claude.wait_for_screen(r"Stopped|suspended|\$ $", timeout=20)
    claude.send_text("cat")
    time.sleep(1)
    before = len(model_server.requests)
    refused = lunavect(env, "reply", sid, "never typed FOREGROUND")
    assert refused.returncode == 1, refused.stdout
    assert "foreground" in refused.stderr and "nothing was typed" in refused.stderr
    assert "FOREGROUND" not in claude.capture() and len(model_server.requests) == before


def test_answer_allow_always_presses_dont_ask_again_for_a_command(claude_tmux, model_server, iso_home) -> None:
    """Claude Code 2.1.328 offers `2. Yes, and don’t ask again for: <command>` (a typographic apostrophe and a
    colon) for a command it does not know: `answer allow-always` presses it (issue 48, item 6: it was refused,
    advising a resume of the live session)."""
    env = iso_home.env
    marker = iso_home.work / "always.txt"
    command = f'python3 -c \'open("{marker}", "w").write("ok")\''
    model_server.script(tool_use("Bash", {"command": command, "description": "write it"}), text("Wrote it."))
    claude = claude_tmux("--permission-mode", "default")
    claude.send_text("write it always")
    sid = wait_state(env, "permission", timeout=40)["id"]
    claude.wait_for_screen(r"don’t ask again for:", timeout=20)

    answered = lunavect(env, "answer", sid, "allow-always")

    assert answered.returncode == 0, answered.stdout + answered.stderr
    assert "pressed 2" in answered.stdout, answered.stdout
    wait_state(env, "ready", timeout=30)
    assert marker.read_text() == "ok"
    local = json.loads((iso_home.work / ".claude" / "settings.local.json").read_text())
    assert any("python3" in rule for rule in local["permissions"]["allow"]), local
