"""`lunavect tmux install|uninstall|publish` with real tmux servers: the marked block, the user options the
collector publishes on change only, several servers and none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from docs_support import page
from unit_support import stop_collector

from lunavect import store
from lunavect.navigation.terminals.runner import Reply, run
from lunavect.tmux_status import conf, publish

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: tmux)")

PROMPT = {"session_id": "tmux-1", "hook_event_name": "UserPromptSubmit", "cwd": "/tmp/p", "prompt": "x"}
ASK = {"session_id": "tmux-1", "hook_event_name": "PermissionRequest", "cwd": "/tmp/p", "tool_name": "Bash"}
USER_CONF = "set -g mouse on\n# my own comment\nset -g status-right 'mine'"


@pytest.fixture
def tmux_dir(iso_env, monkeypatch):
    """tmux's socket folder for this test ($TMUX_TMPDIR), in the environment of lunavect and its collector."""
    folder = Path(iso_env.env["HOME"]) / "t"
    (folder / f"tmux-{os.getuid()}").mkdir(parents=True, mode=0o700)
    monkeypatch.setenv("TMUX_TMPDIR", str(folder))
    monkeypatch.delenv("TMUX", raising=False)
    iso_env.env["TMUX_TMPDIR"] = str(folder)
    iso_env.env.pop("TMUX", None)
    started: list[str] = []
    yield folder / f"tmux-{os.getuid()}", started
    for name in started:
        subprocess.run(["tmux", "-L", name, "kill-server"], env=iso_env.env, capture_output=True, timeout=10)
    # The block's `run-shell -b '... tmux publish'` may still be starting a collector: let it finish, then
    # stop that collector too (the iso_env fixture's own stop may come before it).
    deadline = time.monotonic() + 15
    while _block_publishers(iso_env.env["LUNAVECT_HOME"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    stop_collector(iso_env.data)


def _block_publishers(data: str) -> list[int]:
    """The `lunavect tmux publish` processes of this test's installation."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"publish" in argv and b"tmux" in argv and f"LUNAVECT_HOME={data}".encode() in environ:
            found.append(int(entry.name))
    return found


def tmux(env, name: str, *args: str) -> str:
    proc = subprocess.run(["tmux", "-L", name, *args], env=env, capture_output=True, text=True, timeout=10)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.rstrip("\n")


def start_server(iso_env, tmux_dir, name: str) -> None:
    tmux(iso_env.env, name, "-f", "/dev/null", "new-session", "-d", "-s", "main", "sh")
    tmux_dir[1].append(name)


def wait_option(env, name: str, option: str, value: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while (shown := tmux(env, name, "show-options", "-gqv", option)) != value:
        assert time.monotonic() < deadline, f"{option} stayed {shown!r}, never {value!r}"
        time.sleep(0.05)


@pytest.mark.process
def test_install_is_idempotent_backs_up_and_uninstall_restores(iso_env, tmux_dir):
    path = Path(iso_env.env["HOME"]) / ".tmux.conf"
    path.write_text(USER_CONF)
    first = iso_env.cli("tmux", "install")
    assert first.returncode == 0 and "added" in first.stdout, first.stderr
    installed = path.read_text()
    assert installed.startswith(USER_CONF + "\n") and installed.count(conf.BEGIN) == 1
    assert (path.parent / (".tmux.conf" + conf.BACKUP_SUFFIX)).read_text() == USER_CONF

    again = iso_env.cli("tmux", "install")
    assert "already" in again.stdout and path.read_text() == installed

    assert iso_env.cli("tmux", "uninstall").returncode == 0
    assert path.read_text() == USER_CONF + "\n"
    assert "no lunavect block" in iso_env.cli("tmux", "uninstall").stdout


@pytest.mark.process
def test_install_and_uninstall_keep_the_persons_file_mode_and_leave_no_temporary_file(iso_env, tmux_dir):
    path = Path(iso_env.env["HOME"]) / ".tmux.conf"
    path.write_text(USER_CONF)
    path.chmod(0o600)
    assert iso_env.cli("tmux", "install").returncode == 0
    assert path.stat().st_mode & 0o777 == 0o600
    assert iso_env.cli("tmux", "uninstall").returncode == 0
    assert path.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.parent.glob(".tmux.conf*")) == [".tmux.conf", ".tmux.conf" + conf.BACKUP_SUFFIX]


@pytest.mark.process
def test_the_block_parses_in_tmux_and_sourcing_twice_appends_once(iso_env, tmux_dir):
    start_server(iso_env, tmux_dir, "one")
    assert iso_env.cli("tmux", "install").returncode == 0
    path = Path(iso_env.env["HOME"]) / ".tmux.conf"
    tmux(iso_env.env, "one", "source-file", str(path))
    tmux(iso_env.env, "one", "source-file", str(path))
    assert tmux(iso_env.env, "one", "show-options", "-gv", "status-right").count(conf.STATUS_FRAGMENT) == 1
    assert "tmux popup" in tmux(iso_env.env, "one", "list-keys", "-T", "prefix", conf.POPUP_KEY)
    # Beside the popup's key, the one that opens the session that needs the person most.
    following = tmux(iso_env.env, "one", "list-keys", "-T", "prefix", conf.NEXT_KEY)
    assert "display-popup -EE" in following and following.endswith(' -m lunavect next"'), following
    _wait_block_publishers(iso_env)
    assert iso_env.cli("tmux", "uninstall").returncode == 0
    keys = subprocess.run(["tmux", "-L", "one", "list-keys", "-T", "prefix"], env=iso_env.env, capture_output=True)
    assert b"lunavect" not in keys.stdout  # both keys gone from the running server


@pytest.mark.process
def test_the_collector_publishes_to_every_server_on_change(iso_env, tmux_dir):
    start_server(iso_env, tmux_dir, "one")
    start_server(iso_env, tmux_dir, "two")
    out = iso_env.cli("tmux", "install")
    assert "2 running tmux server(s)" in out.stdout, out.stdout
    for name in ("one", "two"):
        assert tmux(iso_env.env, name, "show-options", "-gv", "@lunavect_awaiting") == "0"

    assert iso_env.hook(PROMPT).returncode == 0
    assert iso_env.hook(ASK).returncode == 0
    iso_env.cli("list")  # the collector (started by install) catches up with the spool
    for name in ("one", "two"):
        wait_option(iso_env.env, name, "@lunavect_awaiting", "1")
        assert "◆ 1" in tmux(iso_env.env, name, "show-options", "-gv", "@lunavect_status")

    # A server started later gets the options from the block's own `tmux publish`.
    path = Path(iso_env.env["HOME"]) / ".tmux.conf"
    tmux(iso_env.env, "three", "-f", str(path), "new-session", "-d", "-s", "main", "sh")
    tmux_dir[1].append("three")
    wait_option(iso_env.env, "three", "@lunavect_awaiting", "1")

    # The third server's own `tmux publish` has finished before the uninstall (one that lands after an
    # uninstall would set the options again).
    wait_gone = time.monotonic() + 15
    while _block_publishers(iso_env.env["LUNAVECT_HOME"]) and time.monotonic() < wait_gone:
        time.sleep(0.1)
    assert iso_env.cli("tmux", "uninstall").returncode == 0
    for name in ("one", "two", "three"):
        assert tmux(iso_env.env, name, "show-options", "-gqv", "@lunavect_awaiting") == ""
        assert conf.STATUS_FRAGMENT not in tmux(iso_env.env, name, "show-options", "-gv", "status-right")


@pytest.mark.process
def test_publishing_sets_only_what_changed(iso_env, tmux_dir):
    start_server(iso_env, tmux_dir, "one")
    calls: list[list[str]] = []

    def recording(argv: list[str]) -> Reply:
        calls.append(argv)
        return run(argv)

    servers = publish.Servers(runner=recording)
    conn = store.connect()
    assert servers.publish(conn) == 1
    assert tmux(iso_env.env, "one", "show-options", "-gv", "@lunavect_working") == "0"
    calls.clear()
    assert servers.publish(conn) == 0  # nothing changed: no option set, no client refreshed
    assert [argv for argv in calls if "set-option" in argv or "refresh-client" in argv] == []
    conn.close()


@pytest.mark.process
def test_without_any_tmux_server_nothing_fails(iso_env, tmux_dir):
    assert iso_env.cli("tmux", "install").returncode == 0
    assert iso_env.cli("tmux", "publish").returncode == 0
    conn = store.connect()
    assert publish.Servers().publish(conn) == 0
    conn.close()
    assert json.loads(iso_env.cli("status", "--format", "json").stdout)["working"] == 0


def test_the_readme_shows_the_block_install_writes():
    assert f"```tmux\n{conf.block('lunavect')}```" in page("bars.md")


def _wait_block_publishers(iso_env) -> None:
    """The block's own `run-shell 'lunavect tmux publish'` has finished (one that lands after an uninstall would
    set the options again)."""
    deadline = time.monotonic() + 15
    while _block_publishers(iso_env.env["LUNAVECT_HOME"]) and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.mark.process
def test_install_adds_the_state_to_the_persons_border_format_and_uninstall_gives_theirs_back(iso_env, tmux_dir):
    theirs = "#{?pane_active,#[bold],}#{pane_index}: mine ##1 #{pane_current_command}"
    path = Path(iso_env.env["HOME"]) / ".tmux.conf"
    own = f"{USER_CONF}\nset -g pane-border-format '{theirs}'\n"
    path.write_text(own)
    # One server that read the person's file before the install, one with tmux's own default border format.
    tmux(iso_env.env, "one", "-f", str(path), "new-session", "-d", "-s", "main", "sh")
    tmux_dir[1].append("one")
    start_server(iso_env, tmux_dir, "plain")
    default = tmux(iso_env.env, "plain", "show-options", "-gv", "pane-border-format")
    # And one that an older block gave lunavect's own border format, in place of the person's.
    start_server(iso_env, tmux_dir, "older")
    tmux(iso_env.env, "older", "set-option", "-g", "pane-border-format", conf.OLD_BORDER_FORMAT)
    assert tmux(iso_env.env, "one", "show-options", "-gv", "pane-border-format") == theirs

    assert iso_env.cli("tmux", "install").returncode == 0
    # A server started after the install reads the person's format, then the block adds to it.
    tmux(iso_env.env, "later", "-f", str(path), "new-session", "-d", "-s", "main", "sh")
    tmux_dir[1].append("later")
    for name, before in (("one", theirs), ("plain", default), ("later", theirs)):
        assert tmux(iso_env.env, name, "show-options", "-gv", "pane-border-format") == before + conf.BORDER_FRAGMENT
    tmux(iso_env.env, "later", "source-file", str(path))  # sourcing again adds nothing twice
    assert tmux(iso_env.env, "later", "show-options", "-gv", "pane-border-format") == theirs + conf.BORDER_FRAGMENT

    _wait_block_publishers(iso_env)
    assert iso_env.cli("tmux", "uninstall").returncode == 0
    for name, before in (("one", theirs), ("plain", default), ("later", theirs), ("older", default)):
        assert tmux(iso_env.env, name, "show-options", "-gv", "pane-border-format") == before
    assert path.read_text() == own


@pytest.mark.process
def test_the_block_runs_a_python_whose_path_holds_quotes_and_formats_and_nothing_else(iso_env, tmux_dir):
    """The block names the installing Python: under a folder such as `proj#1` or `it's`, tmux must still run
    that Python (its `run-shell` expands `#`, its parser reads quotes), and nothing the path holds."""
    home = Path(iso_env.env["HOME"])
    x, y = home / "X", home / "Y"
    folder = home / f'py#(touch {x}) it\'s "$(touch {y})" `touch {y}` #{{pane_id}} #[fg=red] ~ a;b'
    folder.mkdir(parents=True)
    record = home / "record"
    python = folder / "python"
    python.write_text(f"#!/bin/sh\nprintf '%s ' \"$@\" >> {record}\n")
    python.chmod(0o755)
    block = home / "block.conf"
    block.write_text(conf.block(conf.lunavect_command(str(python))))
    start_server(iso_env, tmux_dir, "one")
    tmux(iso_env.env, "one", "source-file", str(block))

    def recorded() -> str:
        return record.read_text() if record.exists() else ""

    deadline = time.monotonic() + 15
    while "-m lunavect tmux publish " not in recorded():
        assert time.monotonic() < deadline, f"run-shell did not run the Python: {recorded()!r}"
        time.sleep(0.05)
    # The popup's key, pressed by a real client: one attached from a pane of a second server.
    start_server(iso_env, tmux_dir, "outer")
    tmux(iso_env.env, "outer", "respawn-pane", "-k", "-t", "main", "env -u TMUX tmux -L one attach -t main")
    while not tmux(iso_env.env, "one", "list-clients"):
        assert time.monotonic() < deadline + 15, "no client attached"
        time.sleep(0.05)
    tmux(iso_env.env, "outer", "send-keys", "-t", "main", "C-b", "a")
    while "-m lunavect tmux popup " not in recorded():
        assert time.monotonic() < deadline + 30, f"the popup did not run the Python: {recorded()!r}"
        time.sleep(0.05)
    # The popup closes once its command exits; until it has, the key goes to the popup, so it is pressed again
    # each second (a loaded machine may take a moment to close it).
    pressed = 0.0
    while "-m lunavect next " not in recorded():
        assert time.monotonic() < deadline + 45, f"the next key did not run the Python: {recorded()!r}"
        if time.monotonic() - pressed > 1.0:
            tmux(iso_env.env, "outer", "send-keys", "-t", "main", "C-b", "N")
            pressed = time.monotonic()
        time.sleep(0.05)
    assert not x.exists() and not y.exists()


@pytest.mark.process
def test_the_publisher_survives_a_failed_step_and_publishes_the_next_change(iso_env, tmux_dir):
    from unit_support import a_session, seed_snapshot

    from lunavect import faults
    from lunavect.core.model import State

    start_server(iso_env, tmux_dir, "one")
    conn = store.connect()
    store.set_setting(conn, publish.SETTING, "1")
    injected = [RuntimeError("injected into one publish")]

    def failing_once(argv: list[str]) -> Reply:
        if injected and "set-option" in argv:
            raise injected.pop()
        return run(argv)

    publishing = publish.Publishing(store.connect, servers=publish.Servers(runner=failing_once))
    try:
        deadline = time.monotonic() + 15
        while not faults.loop_failures(conn):  # the first publish (at the thread's start) failed, and is noted
            assert time.monotonic() < deadline, "the failed publish was never recorded"
            time.sleep(0.05)
        [failure] = faults.loop_failures(conn)
        assert failure.loop == publish.LOOP_NAME and "injected" in failure.error
        seed_snapshot(conn, a_session("asks", state=State.PERMISSION))
        publishing.notify()
        wait_option(iso_env.env, "one", "@lunavect_awaiting", "1", timeout=15)
    finally:
        publishing.close()
        conn.close()


def test_the_keys_the_person_binds_after_the_prefix_are_read_from_their_own_file():
    text = "\n".join(
        [
            "set -g prefix C-a",
            "bind a send-prefix  # C-a a sends the prefix",
            "bind -n N next-window",  # a key of the root table, not after the prefix
            "bind-key -r -T prefix x kill-pane",
            conf.block("lunavect").rstrip("\n"),  # lunavect's own block binds both: not the person's
        ]
    )
    assert conf.persons_keys(text) == frozenset({"a"})
    assert conf.persons_keys(text + "\nunbind a") == frozenset()
    assert conf.persons_keys("bind-key -N 'my note' N choose-tree") == frozenset({"N"})
    assert conf.persons_keys("bind 'unbalanced") == frozenset()
    without_a = conf.block("lunavect", taken=frozenset({"a"}))
    assert "bind-key a " not in without_a and "bind-key N " in without_a


def test_install_never_replaces_the_persons_own_key_and_says_what_tmux_needs(iso_env, tmux_dir):
    """A person with `bind a send-prefix` keeps it: the block binds no popup key, the running server's `a` is
    still theirs after install and after uninstall, and install says so, with the line to bind another key; it
    also says that the panes' states need pane-border-status, which tmux leaves off."""
    path = Path(iso_env.env["HOME"]) / ".tmux.conf"
    own = f"{USER_CONF}\nbind a send-prefix\n"
    path.write_text(own)
    tmux(iso_env.env, "one", "-f", str(path), "new-session", "-d", "-s", "main", "sh")
    tmux_dir[1].append("one")
    out = iso_env.cli("tmux", "install")
    assert out.returncode == 0, out.stderr
    assert "prefix a is your own binding, so lunavect binds no key for its popup" in out.stdout
    assert "bind-key KEY display-popup -E" in out.stdout
    assert "set -g pane-border-status top" in out.stdout
    assert f"bind-key {conf.POPUP_KEY} " not in path.read_text() and f"bind-key {conf.NEXT_KEY} " in path.read_text()
    assert "send-prefix" in tmux(iso_env.env, "one", "list-keys", "-T", "prefix", "a")
    assert "lunavect next" in tmux(iso_env.env, "one", "list-keys", "-T", "prefix", conf.NEXT_KEY)
    _wait_block_publishers(iso_env)
    assert iso_env.cli("tmux", "uninstall").returncode == 0
    assert "send-prefix" in tmux(iso_env.env, "one", "list-keys", "-T", "prefix", "a")
    assert path.read_text() == own
    # With the borders drawn, install has nothing to say of them.
    tmux(iso_env.env, "one", "set-option", "-g", "pane-border-status", "top")
    assert "pane-border-status" not in iso_env.cli("tmux", "install").stdout
    _wait_block_publishers(iso_env)


def test_a_pane_whose_agent_recorded_no_terminal_is_marked_from_its_process(iso_env, tmux_dir, tmp_path):
    """Codex's hooks record no terminal: its pane is found as `lunavect open` finds it (its client's one
    process in its folder) and gets its state on its border."""
    from unit_support import a_session, seed_snapshot

    start_server(iso_env, tmux_dir, "one")
    folder = tmp_path / "infra"
    folder.mkdir()
    codex = tmp_path / "bin" / "codex"
    codex.parent.mkdir()
    codex.symlink_to(shutil.which("sleep"))  # the kernel names the process after the path it ran: "codex"
    # Two arguments: tmux runs the stand-in itself, no shell between (a shell left waiting in the same folder,
    # its command line naming "codex", would make two candidates).
    pane = tmux(iso_env.env, "one", "new-window", "-P", "-F", "#{pane_id}", "-c", str(folder), str(codex), "120")
    device = tmux(iso_env.env, "one", "display-message", "-p", "-t", pane, "#{pane_tty}")
    session = a_session("c1", provider="codex", state="input", waiting_for="question", cwd=str(folder), open=True)
    conn = iso_env.connect()
    seed_snapshot(conn, session)
    store.set_setting(conn, publish.SETTING, "1")
    deadline = time.monotonic() + 60
    while publish.placed([session])[0].tty != device:
        assert time.monotonic() < deadline, "the stand-in's pane was never found"
        time.sleep(0.1)
    publish.Servers(sockets=lambda: [str(tmux_dir[0] / "one")]).publish(conn, force=True)
    assert tmux(iso_env.env, "one", "show-options", "-pqv", "-t", pane, publish.PANE_OPTION) == "Input needed: question"
