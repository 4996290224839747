"""Run the real Codex CLI 0.169.0 in an isolated HOME against the scripted Responses API, and read lunavect.

- :func:`codex_env`: the iso environment plus what Codex and lunavect need (the provider key, and
  ``LUNAVECT_CODEX`` so that lunavect's collector and ``hooks install`` find this Codex).
- :func:`run_exec` / :func:`start_exec`: ``codex exec`` to completion, or in the background.
- :class:`CodexTmux`: the interactive TUI in a private tmux server (type with ``send-keys -l``, then Enter).
- :func:`lunavect` / :func:`wait_session`: ``lunavect`` in the iso installation, polling its JSON for a state.

Observed with 0.169.0: the TUI needs no onboarding against a custom provider; hooks run only once trusted
(``lunavect hooks install`` has Codex trust its own entries); the process tree is ``node codex.js`` → the native
``codex`` (which runs the hooks and holds the rollout open for writing, also while idle).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from claude_tmux import ClaudeTmux, ClientPaths, IsoHome, descendants, process_under, wait_process_under
from lunavect_probe import installed_lunavect as lunavect
from lunavect_probe import listed, wait_listed
from responses_server import API_KEY_ENV, ResponsesServer, exec_command, input_contains, message

from lunavect.core.clients import ids as client_ids

#: The TUI's input prompt is drawn (its placeholder or the typed text after "›").
READY_RE = re.compile(r"^› ", re.M)


def codex_env(iso: IsoHome, paths: ClientPaths, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(iso.env)
    env[API_KEY_ENV] = "sk-test-not-a-secret"
    env["LUNAVECT_CODEX"] = str(paths.codex)
    env["RUST_LOG"] = "error"
    if extra:
        env.update(extra)
    return env


def write_config(
    iso: IsoHome,
    server: ResponsesServer,
    *,
    approval: str = "never",
    sandbox: str = "danger-full-access",
    extra: str = "",
) -> None:
    text = server.config_toml(extra=extra)
    text = text.replace('approval_policy = "never"', f'approval_policy = "{approval}"')
    text = text.replace('sandbox_mode = "danger-full-access"', f'sandbox_mode = "{sandbox}"')
    (iso.codex_dir / "config.toml").write_text(text)


def install_hooks(env: dict[str, str]) -> str:
    """`lunavect hooks install` with Codex findable: installs and trusts lunavect's Codex hooks."""
    proc = lunavect(env, "hooks", "install", *client_ids())
    assert proc.returncode == 0, proc.stderr
    assert "codex: " in proc.stdout and "(trusted)" in proc.stdout, proc.stdout
    return proc.stdout


def sessions(env: dict[str, str], *, all_: bool = True) -> list[dict]:
    """Every client's sessions in `lunavect list --json` (with `--all`: also the finished ones)."""
    return listed(env, all_=all_)


def wait_session(
    env: dict[str, str], where: Callable[[dict], bool], *, timeout: float = 60, interval: float = 0.3
) -> dict:
    """Poll `lunavect list --json --all` until a Codex session satisfies `where`; return it."""
    return wait_listed(env, "codex", where, timeout=timeout, interval=interval)


def run_exec(
    paths: ClientPaths, env: dict[str, str], cwd: Path, prompt: str, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(paths.codex), "exec", "--skip-git-repo-check", *args, prompt],
        env=env,
        cwd=str(cwd),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def start_exec(paths: ClientPaths, env: dict[str, str], cwd: Path, prompt: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [str(paths.codex), "exec", "--skip-git-repo-check", *args, prompt],
        env=env,
        cwd=str(cwd),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )


def _is_native_codex(info: dict) -> bool:
    return info["comm"] == "codex" and not (info["exe"] or "").endswith("/node")


def native_codex(root_pid: int, timeout: float = 20) -> int:
    """The native `codex` process under a launcher (the one that runs hooks and writes the rollout)."""
    return wait_process_under(root_pid, _is_native_codex, "native codex", timeout)


def rollouts(iso: IsoHome) -> list[Path]:
    return sorted((iso.codex_dir / "sessions").rglob("rollout-*.jsonl"))


def wait_rollout_record(iso: IsoHome, needle: str, timeout: float = 30) -> Path:
    """Wait until some rollout holds a line containing `needle`; return that rollout."""
    deadline = time.monotonic() + timeout
    while True:
        for path in rollouts(iso):
            try:
                if needle in path.read_text(errors="replace"):
                    return path
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"no rollout holds {needle!r} within {timeout}s")
        time.sleep(0.1)


def _codex_ready(screen: str) -> bool:
    if "need review before they can run" in screen:
        raise RuntimeError(
            "Codex asks to review untrusted hooks (install them with Codex findable, or remove them):\n" + screen
        )
    return bool(READY_RE.search(screen)) and "OpenAI Codex" in screen


class CodexTmux(ClaudeTmux):
    """The real Codex TUI in a pane of a private tmux server."""

    client = "codex"
    #: When each Enter that submits a prompt was pressed (a failure's message shows them).
    enters: list[float]

    def start(self) -> CodexTmux:
        self.enters = []
        super().start()
        return self

    def wait_ready(self, timeout: float = 30.0) -> str:
        return self._wait_screen(_codex_ready, timeout)

    def send_text(
        self,
        text: str,
        *,
        enter: bool = True,
        pause: float = 1.0,
        timeout: float = 20.0,
        taken: Callable[[], bool] | None = None,
    ) -> None:
        """Type `text` literally, wait until the input box shows it, then press Enter until it is submitted.

        Text and Enter arriving together are taken as a paste (FACTS.md): the TUI holds keys that come in a
        burst and may deliver such an Enter late, where it would answer whatever dialog the prompt opened. So
        Enter comes a full second after the text showed, and is repeated only if the text still sits in the
        input box after a loaded machine had time to redraw. A prompt that opens a dialog should say what
        proves it `taken` (the model server saw its request): a loaded machine has kept the text on screen for
        5.5 s after an Enter it did take, and a second Enter then answered the dialog.
        """
        self.tmux("send-keys", "-t", self.target, "-l", text)
        line = re.compile(r"^› " + re.escape(text[:40]), re.M)
        self.wait_for_screen(line, timeout=timeout)
        if not enter:
            return
        deadline = time.monotonic() + timeout
        while True:
            time.sleep(pause)
            self.tmux("send-keys", "-t", self.target, "Enter")
            self.enters.append(time.time())
            # Give a loaded machine time to redraw before judging: a second Enter pressed too early would
            # answer whatever dialog the submitted prompt opened.
            settle = time.monotonic() + (max(15.0, pause * 15) if taken else max(3.0, pause * 5))
            while time.monotonic() < settle:
                time.sleep(0.1)
                if taken is not None:
                    if taken():
                        return
                    continue
                screen = self.capture()
                # Submitted: the input box (the last "› " line) no longer holds the text; it is echoed above.
                inputs = [row.rstrip() for row in screen.splitlines() if row.startswith("› ")]
                if not inputs or inputs[-1] != ("› " + text).rstrip():
                    return
            if time.monotonic() > deadline:
                raise TimeoutError(f"codex did not take the prompt {text!r}; screen:\n{self.capture()}")

    def pid(self, timeout: float = 10.0) -> int:
        """The native codex process (below the node launcher)."""
        return self._find_pid(lambda pane: process_under(pane, _is_native_codex), timeout)


def without_hooks(iso: IsoHome) -> None:
    """No lunavect hooks for Codex (the fixture installed them untrusted: the TUI would ask to review them)."""
    (iso.codex_dir / "hooks.json").unlink(missing_ok=True)


def start_tui(paths: ClientPaths, iso: IsoHome, env: dict[str, str], *args: str, name: str = "codex") -> CodexTmux:
    tui = CodexTmux(paths.codex, env, iso.work, args, root=iso.root, session=name)
    tui.start()
    tui.wait_ready(45)
    return tui


def kill_tree(pid: int) -> None:
    for p in [pid, *descendants(pid)]:
        try:
            os.kill(p, 9)
        except OSError:
            pass


#: Codex's approval dialog for a command.
APPROVAL_RE = re.compile(r"Would you like to run the following command\?")


@contextmanager
def at_the_marker_approval(
    codex: tuple[ClientPaths, IsoHome, dict[str, str]], server: ResponsesServer, *, hooks: bool, before: str = ""
) -> Iterator[tuple[CodexTmux, Path]]:
    """The TUI (asking before it runs a command, in a workspace sandbox; with lunavect's hooks installed if
    ``hooks``) told to "write the marker", the model scripted as :func:`script_marker_approval` says (the
    command first runs ``before``, if given): (the TUI at its approval dialog, the marker's path). The TUI is
    killed on leaving."""
    paths, iso, env = codex
    write_config(iso, server, approval="on-request", sandbox="workspace-write")
    if hooks:
        install_hooks(env)  # after the config: it writes its trust there
    marker = iso.work / "marker.txt"
    script_marker_approval(server, marker, before=before)
    tui = start_tui(paths, iso, env)
    try:
        tui.send_text("write the marker", taken=lambda: server.pending("ask") == 0)
        try:
            tui.wait_for_screen(APPROVAL_RE, timeout=40)
        except TimeoutError as exc:
            enters = ", ".join(_clock(t) for t in tui.enters)
            log = request_log(server, "write the marker")
            raise TimeoutError(f"{exc}\nEnter pressed at {enters}\nthe model requests:\n{log}") from None
        yield tui, marker
    finally:
        tui.kill()


def _clock(t: float) -> str:
    """A wall-clock time to the hundredth of a second, to set Enter presses beside the server's requests."""
    return datetime.fromtimestamp(t).strftime("%H:%M:%S.%f")[:-4]


def request_log(server: ResponsesServer, prompt: str) -> str:
    """One line per request the server saw: what answered it and what it carried (whether `prompt` is in it,
    not its text), so that a failure says which request took a scripted step."""
    lines = []
    requests = server.requests
    start = requests[0].time if requests else 0.0
    for r in requests:
        turn = r.turn_metadata.get("turn_id") if r.is_responses else None
        lines.append(
            f"  {r.seq} {_clock(r.time)} +{r.time - start:.2f}s {r.method} {r.path} route={r.route} "
            f"answer={r.answer} items={len(r.input)} prompt={prompt in json.dumps(r.input)} "
            f"outputs={len(r.function_outputs())} turn={turn} headers={sorted(r.headers)}"
        )
    return "\n".join(lines) or "  (none)"


def script_marker_approval(server: ResponsesServer, marker: Path, *, before: str = "") -> None:
    """A prompt "write the marker" gets a command that needs approval (running ``before`` first, if given, and
    waited for to its end); its output gets "Marker written".

    Routed by content, not by arrival: any other request the TUI makes (a retry, a warm-up) must not take the
    scripted command; the follow-up carrying the command's output gets the closing message.
    """
    server.script(message("Marker written"), match=input_contains("permitted"), route="after")
    server.script(
        exec_command(
            f"{before}; echo permitted > {marker}" if before else f"echo permitted > {marker}",
            sandbox_permissions="require_escalated",
            justification="Write the marker?",
            yield_time_ms=60000 if before else None,
        ),
        match=lambda req: "write the marker" in json.dumps(req.input) and not req.function_outputs(),
        route="ask",
    )
