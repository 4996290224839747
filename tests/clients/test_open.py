"""`lunavect open`: the real Claude Code and Codex in real tmux panes, a real tmux client attached in a pty
this test drives, and the focus checked with tmux itself (`display-message -c <client>`).

Proves: each of two Claude Code sessions and one Codex session is brought to its exact pane, in another
window or tmux session than the client showed; a session whose process exited is never focused (neither its
dead pane nor a live pane that now holds its old device) and is resumed for real against the scripted model
in a new tmux window; two Codex sessions in one folder without a recorded terminal are "ambiguous", while a
folder with a single one is focused.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from anthropic_server import AnthropicServer, has_tools, text, tool_use
from claude_tmux import READY_RE, ClientPaths, IsoHome
from open_support import AttachedClient, ClientsStage, Tmux, write_codex_hooks
from responses_server import ResponsesServer, message

from lunavect.install.command import hook_command

CODEX_READY = r"Ask Codex to do anything|›"


@pytest.fixture
def responses(codex_server: ResponsesServer) -> ResponsesServer:
    """The scripted Responses API the Codex panes talk to (conftest's ``codex_server``)."""
    return codex_server


class Stage(ClientsStage):
    """One tmux server, the clients on PATH, and `lunavect` run in the test's HOME."""

    def __init__(self, iso: IsoHome, clients: ClientPaths, claude_url: str, responses: ResponsesServer) -> None:
        super().__init__(iso, clients, claude_url, responses)
        iso.prepare_claude(cwds=[iso.work])
        self.tmux = Tmux(iso.root, self.env)
        self.tmux.new_session("home", iso.work, "sh")
        self.clients: list[AttachedClient] = []

    def wait_sessions(self, ready, timeout: float = 60) -> list[dict]:
        deadline = time.monotonic() + timeout
        while True:
            sessions = self.sessions()
            if ready(sessions):
                return sessions
            if time.monotonic() > deadline:
                raise TimeoutError(f"sessions not as expected in {timeout}s: {sessions}")
            time.sleep(0.5)

    def claude(self, pane: str, reply: str, server: AnthropicServer) -> None:
        """Wait for Claude Code's prompt in `pane`, then hold one scripted exchange (answered by its prompt,
        so concurrent side requests of other sessions never take its reply)."""
        self.tmux.wait_screen(pane, READY_RE.pattern, timeout=60)
        prompt = f"please answer with {reply.lower()}"
        server.script(text(reply), match=lambda r: has_tools(r) and prompt in r.last_user_text())
        self._submit(pane, prompt, lambda: any(prompt in r.last_user_text() for r in server.requests))
        self.tmux.wait_screen(pane, reply, timeout=60)

    def codex(self, pane: str, reply: str, responses: ResponsesServer) -> None:
        self.tmux.wait_screen(pane, CODEX_READY, timeout=60)
        prompt = f"please answer with {reply.lower()}"
        responses.script(message(reply), match=lambda r: bool(r.tool_names) and prompt in r.last_user_text())
        self._submit(pane, prompt, lambda: any(prompt in r.last_user_text() for r in responses.requests))
        self.tmux.wait_screen(pane, reply, timeout=60)

    def _submit(self, pane: str, prompt: str, sent, timeout: float = 60) -> None:
        """Type the prompt and press Enter until the model server sees it: on a loaded machine an Enter that
        follows the typed text too closely is taken as part of a paste and does not submit."""
        self.tmux.send_text(pane, prompt)
        deadline = time.monotonic() + timeout
        while not sent():
            assert time.monotonic() < deadline, f"the prompt was never submitted:\n{self.tmux.capture(pane)}"
            time.sleep(2.0)
            if not sent():
                self.tmux("send-keys", "-t", pane, "Enter")

    def attach(self, target: str) -> AttachedClient:
        client = AttachedClient(self.tmux, target)
        self.clients.append(client)
        return client

    def close(self) -> None:
        for client in self.clients:
            client.close()
        self.tmux.kill()


@pytest.fixture
def stage(iso_home: IsoHome, client_paths: ClientPaths, model_server: AnthropicServer, responses: ResponsesServer):
    assert iso_home.lunavect_hooks_installed
    staged = Stage(iso_home, client_paths, model_server.url, responses)
    try:
        yield staged
    finally:
        staged.close()


def _by_tty(sessions: list[dict], tty: str) -> dict:
    found = [s for s in sessions if s.get("tty") == tty]
    assert len(found) == 1, (tty, sessions)
    return found[0]


def test_open_brings_each_session_to_its_exact_pane(
    stage: Stage, model_server: AnthropicServer, responses: ResponsesServer
) -> None:
    tmux = stage.tmux
    claude_a = tmux.new_session("work", stage.folder("a"), "claude")
    codex_c = tmux.split(claude_a, stage.folder("c"), "codex", "--dangerously-bypass-hook-trust")
    claude_b = tmux.new_window("work", stage.folder("b"), "claude")
    write_codex_hooks(stage.iso.codex_dir, hook_command("codex"))  # before Codex reads it at its start
    stage.claude(claude_a, "Reply from the first Claude", model_server)
    stage.claude(claude_b, "Reply from the second Claude", model_server)
    stage.codex(codex_c, "Reply from Codex", responses)
    ttys = {pane: tmux.pane_value(pane, "#{pane_tty}") for pane in (claude_a, claude_b, codex_c)}
    sessions = stage.wait_sessions(
        lambda ss: all(any(s.get("tty") == tty and s["state"] == "ready" for s in ss) for tty in ttys.values())
    )
    ids = {pane: _by_tty(sessions, tty)["id"] for pane, tty in ttys.items()}
    assert ids[codex_c].startswith("codex:") and ids[claude_a].startswith("claude:")

    client = stage.attach("home")
    home = tmux.client_pane(client.name)
    assert home not in ids

    # Each exact pane, from another tmux session, another window and another pane of the same window.
    for pane in (claude_b, claude_a, codex_c, claude_b):
        proc = stage.lunavect("open", ids[pane], "--json")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        result = json.loads(proc.stdout)
        assert result["outcome"] == "focused" and result["terminal"] == "tmux" and result["target"] == pane
        assert tmux.client_pane(client.name) == pane
        assert tmux.pane_value(pane, "#{window_active}#{pane_active}") == "11"

    # By its bare session id too, with a one-line answer.
    proc = stage.lunavect("open", ids[claude_a].split(":", 1)[1])
    assert proc.returncode == 0 and proc.stderr == ""
    assert "its tmux pane is in front, in tmux session “work”" in proc.stdout, proc.stdout
    assert tmux.client_pane(client.name) == claude_a


def test_exited_session_is_never_focused_and_resumes_for_real(stage: Stage, model_server: AnthropicServer) -> None:
    tmux = stage.tmux
    direct = tmux.new_session("work", stage.folder("d"), "claude")  # the pane dies with claude
    shell = tmux.new_window("work", stage.folder("e"), "sh")  # the pane's shell outlives claude
    tmux.send_text(shell, "claude")
    stage.claude(direct, "Reply before exit D", model_server)
    stage.claude(shell, "Reply before exit E", model_server)
    ttys = {pane: tmux.pane_value(pane, "#{pane_tty}") for pane in (direct, shell)}
    sessions = stage.wait_sessions(
        lambda ss: all(any(s.get("tty") == tty and s["state"] == "ready" for s in ss) for tty in ttys.values())
    )
    session_d, session_e = _by_tty(sessions, ttys[direct]), _by_tty(sessions, ttys[shell])
    for pane in (direct, shell):
        tmux("send-keys", "-t", pane, "Escape")
        tmux.send_text(pane, "/exit")
    deadline = time.monotonic() + 30
    while tmux.pane_value(direct, "#{pane_dead}") != "1" or any(_alive(s["pid"]) for s in (session_d, session_e)):
        assert time.monotonic() < deadline, "claude did not exit"
        time.sleep(0.2)
    # The shell pane is live and holds the exact device the exited session recorded.
    assert tmux.pane_value(shell, "#{pane_dead} #{pane_tty}") == f"0 {ttys[shell]}"

    client = stage.attach("home")
    home = tmux.client_pane(client.name)
    for session in (session_d, session_e):
        proc = stage.lunavect("open", session["id"], "--json")
        result = json.loads(proc.stdout)
        assert proc.returncode == 0 and result["outcome"] == "resume", proc.stdout + proc.stderr
        assert result["command"] == f"cd {session['cwd']} && claude --resume {session['session_id']}"
        assert tmux.client_pane(client.name) == home  # nothing was focused

    # Resume D for real, in a new window of the tmux session this command "runs in".
    server_pid = tmux.pane_value(direct, "#{pid}")
    session_index = tmux.pane_value(direct, "#{session_id}").lstrip("$")
    inside = dict(stage.env, TMUX=f"{tmux.socket},{server_pid},{session_index}")
    proc = stage.lunavect("open", session_d["id"], "--resume-in", "tmux", "--json", env=inside)
    result = json.loads(proc.stdout)
    assert proc.returncode == 0 and result["outcome"] == "resumed", proc.stdout + proc.stderr
    resumed = result["target"]
    assert tmux.pane_value(resumed, "#{session_name} #{pane_current_path}") == f"work {session_d['cwd']}"
    stage.claude(resumed, "Reply after resume", model_server)
    assert "Reply before exit D" in tmux("capture-pane", "-p", "-S", "-", "-t", resumed)  # the same conversation
    new_tty = tmux.pane_value(resumed, "#{pane_tty}")
    stage.wait_sessions(
        lambda ss: any(s["id"] == session_d["id"] and s.get("tty") == new_tty and s["state"] == "ready" for s in ss)
    )
    # Now live again: open focuses the new pane.
    proc = stage.lunavect("open", session_d["id"])
    assert proc.returncode == 0, proc.stderr
    assert tmux.client_pane(client.name) == resumed


def test_folder_fallback_needs_exactly_one_terminal(
    iso_home: IsoHome, client_paths: ClientPaths, model_server: AnthropicServer, responses: ResponsesServer
) -> None:
    """Hooks run detached (`setsid -f`) cannot see their client, so no session has a recorded process or
    terminal. Codex has no live catalog: only the folder is known. Claude Code's catalog still names each
    session's process and pane, so two Claude sessions sharing a folder are told apart exactly."""
    stage = Stage(iso_home, client_paths, model_server.url, responses)
    try:
        write_codex_hooks(iso_home.codex_dir, f"setsid -f {hook_command('codex')}")
        _detach_claude_hooks(iso_home)
        tmux = stage.tmux
        shared, alone = stage.folder("shared"), stage.folder("alone")
        first = tmux.new_session("work", shared, "codex", "--dangerously-bypass-hook-trust")
        second = tmux.new_window("work", shared, "codex", "--dangerously-bypass-hook-trust")
        single = tmux.new_window("work", alone, "codex", "--dangerously-bypass-hook-trust")
        claude_1 = tmux.new_window("work", shared, "claude")
        claude_2 = tmux.split(claude_1, shared, "claude")
        for pane, reply in ((first, "Reply one"), (second, "Reply two"), (single, "Reply three")):
            stage.codex(pane, reply, responses)
        for pane, reply in ((claude_1, "Reply four"), (claude_2, "Reply five")):
            stage.claude(pane, reply, model_server)
        sessions = stage.wait_sessions(lambda ss: len([s for s in ss if s["state"] == "ready"]) == 5)
        # No hook saw its Codex client: only the folder is known.
        assert all(s["pid"] is None and s["tty"] is None for s in sessions if s["provider"] == "codex"), sessions
        client = stage.attach("home")
        home = tmux.client_pane(client.name)

        claude_panes = {str(e["sessionId"]): e["tmux"].rsplit(".", 1)[1] for e in iso_home.catalog().values()}
        assert sorted(claude_panes.values()) == sorted([claude_1, claude_2])
        for session in (s for s in sessions if s["provider"] == "claude"):
            proc = stage.lunavect("open", session["id"])
            assert proc.returncode == 0, proc.stdout + proc.stderr
            assert tmux.client_pane(client.name) == claude_panes[session["session_id"]]
        stage.lunavect("open", next(s for s in sessions if s["cwd"] == str(alone))["id"])
        tmux("switch-client", "-c", client.name, "-t", "home")

        for session in (s for s in sessions if s["cwd"] == str(shared) and s["provider"] == "codex"):
            proc = stage.lunavect("open", session["id"])
            assert proc.returncode == 1, proc.stdout + proc.stderr
            assert proc.stderr.startswith("lunavect: ambiguous: ") and len(proc.stderr.splitlines()) == 1
            for pane in (first, second):
                assert tmux.pane_value(pane, "#{pane_tty}") in proc.stderr
            assert tmux.client_pane(client.name) == home

        only = next(s for s in sessions if s["cwd"] == str(alone))
        proc = stage.lunavect("open", only["id"], "--json")
        assert proc.returncode == 0 and json.loads(proc.stdout)["target"] == single, proc.stdout + proc.stderr
        assert tmux.client_pane(client.name) == single
    finally:
        stage.close()


def _detach_claude_hooks(iso: IsoHome) -> None:
    """Run lunavect's Claude Code hooks through `setsid -f`, as a hook detached from its client is."""
    settings = iso.read_claude_settings()
    for groups in settings.get("hooks", {}).values():
        for group in groups:
            for handler in group.get("hooks", []):
                handler["command"] = "setsid -f " + handler["command"]
    iso.write_claude_settings(settings)


def _alive(pid: int | None) -> bool:
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


PERMISSION_DIALOG = r"Do you want to proceed\?"


def test_next_opens_the_session_that_needs_its_person_most_as_open_does(
    stage: Stage, model_server: AnthropicServer
) -> None:
    """Two real Claude Code sessions: A's reply is ready first, then B asks permission for a command. `next`
    chooses B (a permission before a ready reply, however long the reply waited) and brings the attached
    client to B's exact pane with what `open` answers for B; once B's permission is answered and its reply is
    ready too, nothing needs the person (a ready reply waits for their next prompt, not for them: README, "What
    needs you"): one line, exit 1, and the client stays where it is; so once both clients exit. The rows say
    open while each client runs and ended once it exited."""
    tmux = stage.tmux
    pane_a = tmux.new_session("work", stage.folder("a"), "claude")
    pane_b = tmux.new_window("work", stage.folder("b"), "claude", "--permission-mode", "default")
    stage.claude(pane_a, "Reply from A", model_server)
    ttys = {pane: tmux.pane_value(pane, "#{pane_tty}") for pane in (pane_a, pane_b)}
    tmux.wait_screen(pane_b, READY_RE.pattern, timeout=60)
    prompt = "please run the marker command"
    model_server.script(
        tool_use("Bash", {"command": "echo approved > marker.txt", "description": "write"}),
        text("Done with B."),  # the server's own "ok" may answer the tool's result instead: only the state matters
        match=lambda r: has_tools(r) and prompt in r.last_user_text(),
    )
    stage._submit(pane_b, prompt, lambda: any(prompt in r.last_user_text() for r in model_server.requests))
    sessions = stage.wait_sessions(
        lambda ss: (
            any(s.get("tty") == ttys[pane_a] and s["state"] == "ready" for s in ss)
            and any(s.get("tty") == ttys[pane_b] and s["state"] == "permission" for s in ss)
        )
    )
    a, b = _by_tty(sessions, ttys[pane_a]), _by_tty(sessions, ttys[pane_b])
    assert a["open"] and b["open"] and a["last_active"] < b["last_active"]

    client = stage.attach("home")
    printed = stage.lunavect("next", "--print")
    assert (
        printed.returncode == 0
        and printed.stdout == f"Permission needed: Bash · {b['title']} (Claude) · lunavect open {b['id']}\n"
    )
    proc = stage.lunavect("next", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["outcome"] == "focused" and result["terminal"] == "tmux" and result["target"] == pane_b
    assert tmux.client_pane(client.name) == pane_b
    assert json.loads(stage.lunavect("open", b["id"], "--json").stdout) == result  # what open says for B

    # B's permission answered at its own dialog: both replies ready, and neither needs the person.
    tmux.wait_screen(pane_b, PERMISSION_DIALOG, timeout=30)
    deadline = time.monotonic() + 30
    while re.search(PERMISSION_DIALOG, tmux.capture(pane_b)) and time.monotonic() < deadline:
        tmux("send-keys", "-t", pane_b, "Enter")  # keys just after the dialog draws are ignored (FACTS.md)
        time.sleep(1.5)
    stage.wait_sessions(lambda ss: any(s["id"] == b["id"] and s["state"] == "ready" for s in ss))
    proc = stage.lunavect("next")
    assert (proc.returncode, proc.stdout) == (1, ""), proc.stdout + proc.stderr
    assert proc.stderr.startswith("lunavect: nothing needs you: ")
    assert tmux.client_pane(client.name) == pane_b

    # Both clients exit: their rows say ended, and still nothing waits for the person.
    for pane in (pane_a, pane_b):
        tmux("send-keys", "-t", pane, "Escape")
        tmux.send_text(pane, "/exit")
    ended = stage.wait_sessions(lambda ss: all(not s["open"] for s in ss if s["id"] in (a["id"], b["id"])))
    assert {s["id"]: s["state"] for s in ended if s["id"] in (a["id"], b["id"])} == {a["id"]: "ready", b["id"]: "ready"}
    nothing = stage.lunavect("next")
    assert (nothing.returncode, nothing.stdout) == (1, "")
    assert nothing.stderr.startswith("lunavect: nothing needs you: ") and len(nothing.stderr.splitlines()) == 1
