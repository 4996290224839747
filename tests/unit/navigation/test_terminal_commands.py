"""The commands lunavect sends to terminals, and how it reads their answers: tmux, kitty, WezTerm, iTerm2 and
Terminal (AppleScript), X11/sway/Hyprland windows, resume commands and the clipboard. Terminals that cannot
run here are driven through a scripted runner that records every request."""

from __future__ import annotations

import json
import os

import pytest

from lunavect.host.processes import Proc
from lunavect.navigation import clipboard, resume
from lunavect.navigation.open_result import Outcome
from lunavect.navigation.terminals import desktop, detect, kitty, macos, tmux, wezterm
from lunavect.navigation.terminals.runner import Reply, run


class Script:
    """A runner that answers each request with the next reply whose key occurs in the command."""

    def __init__(self, answers: dict[str, Reply]) -> None:
        self.answers = answers
        self.calls: list[list[str]] = []

    def __call__(self, argv: list[str], **_: object) -> Reply:
        self.calls.append(argv)
        for key, reply in self.answers.items():
            if key in argv:
                return reply
        return Reply(True, "")


OK = Reply(True, "")
TIMEOUT = Reply(False, failure="timeout")


# -- tmux ---------------------------------------------------------------------------------------------------

PANES = "\n".join(
    [
        "%0\t/dev/pts/3\t100\t1\twork\t@0",  # dead pane, same device as the live one below (reused)
        "%4\t/dev/pts/3\t150\t0\twork\t@2",
        "%5\t/dev/pts/6\t160\t0\tother\t@3",
        "garbage line",
    ]
)
CLIENTS = "\n".join(
    [
        "/dev/pts/20\t/dev/pts/20\thome\t900\t100",
        "/dev/pts/21\t/dev/pts/21\tother\t901\t300",
        "/dev/pts/22\t/dev/pts/22\twork\t902\t200",
    ]
)


def test_tmux_pane_listing_is_parsed_and_dead_panes_are_skipped() -> None:
    runner = Script({"list-panes": Reply(True, PANES)})
    pane = tmux.find_pane(["/s"], "/dev/pts/3", runner=runner)
    assert pane is not None and pane.pane_id == "%4" and pane.window_id == "@2"
    assert runner.calls[0] == ["tmux", "-S", "/s", "list-panes", "-a", "-F", tmux.PANE_FORMAT]


def test_tmux_without_a_live_pane_on_the_device_finds_nothing() -> None:
    runner = Script({"list-panes": Reply(True, "%0\t/dev/pts/3\t100\t1\twork\t@0")})
    assert tmux.find_pane(["/s"], "/dev/pts/3", runner=runner) is None


def test_tmux_catalog_pane_hint_is_only_a_cross_check() -> None:
    runner = Script({"list-panes": Reply(True, PANES)})
    assert tmux.find_pane(["/s"], "/dev/pts/3", "%4", runner=runner).pane_id == "%4"
    # A stale hint (the catalog names a pane on another device) does not override the device.
    assert tmux.find_pane(["/s"], "/dev/pts/3", "%5", runner=runner).pane_id == "%4"


def test_tmux_servers_that_do_not_answer_are_skipped() -> None:
    answers = iter([Reply(False, failure="failed", stderr="no server running"), Reply(True, PANES)])
    pane = tmux.find_pane(["/dead", "/live"], "/dev/pts/6", runner=lambda argv: next(answers))
    assert pane is not None and pane.socket == "/live"


def test_tmux_focus_commands() -> None:
    pane = tmux.parse_panes("/s", PANES)[1]
    client = tmux.parse_clients(CLIENTS)[0]
    assert tmux.focus_argvs(pane, client) == [
        ["tmux", "-S", "/s", "select-window", "-t", "@2"],
        ["tmux", "-S", "/s", "select-pane", "-t", "%4"],
        ["tmux", "-S", "/s", "switch-client", "-c", "/dev/pts/20", "-t", "%4"],
    ]
    assert tmux.attach_command(pane) == "tmux -S /s attach-session -t work"


def test_tmux_client_choice() -> None:
    clients = tmux.parse_clients(CLIENTS)
    pane = tmux.parse_panes("/s", PANES)[1]  # in session "work"
    assert tmux.choose_client(clients, pane, "/dev/pts/21", None).name == "/dev/pts/21"  # the one we run in
    assert tmux.choose_client(clients, pane, None, "home").name == "/dev/pts/20"  # shows our own pane
    assert tmux.choose_client(clients, pane, None, None).name == "/dev/pts/22"  # already shows its session
    other = tmux.parse_panes("/s", PANES)[2]  # session "other"... shown by 21
    assert tmux.choose_client(clients[:1] + clients[2:], other, None, None).name == "/dev/pts/22"  # most recent
    assert tmux.choose_client([], pane, None, None) is None


def test_tmux_focus_outcomes() -> None:
    pane = tmux.parse_panes("/s", PANES)[1]
    focused = tmux.focus(pane, None, runner=Script({"list-clients": Reply(True, CLIENTS)}))
    assert focused.outcome == Outcome.FOCUSED and focused.target == "%4"
    detached = tmux.focus(pane, None, runner=Script({"list-clients": Reply(True, "")}))
    assert detached.outcome == Outcome.ATTACH and detached.command == "tmux -S /s attach-session -t work"
    gone = tmux.focus(
        pane,
        None,
        runner=Script({"select-window": Reply(False, stderr="can't find window: @2", failure="failed", code=1)}),
    )
    assert gone.outcome == Outcome.GONE
    slow = tmux.focus(pane, None, runner=Script({"select-pane": TIMEOUT}))
    assert slow.outcome == Outcome.TIMEOUT


def test_tmux_default_sockets(tmp_path) -> None:
    import socket as sock

    # The folder and its sockets are this user's (sockets of another user are never listed: see
    # tests/unit/hostile/test_other_users_tmux.py), and so is `$TMUX`'s socket.
    folder = tmp_path / f"tmux-{os.getuid()}"
    folder.mkdir(mode=0o700)
    servers = [sock.socket(sock.AF_UNIX), sock.socket(sock.AF_UNIX)]
    servers[0].bind(str(folder / "default"))
    servers[1].bind(str(tmp_path / "other"))
    (folder / "not-a-socket").write_text("")
    try:
        found = tmux.default_sockets(environ={"TMUX_TMPDIR": str(tmp_path), "TMUX": f"{tmp_path}/other,1,0"})
    finally:
        for server in servers:
            server.close()
    assert found == [str(tmp_path / "other"), str(folder / "default")]


def test_tmux_server_sockets_come_from_the_agents_parents(tmp_path) -> None:
    import socket as sock

    path = str(tmp_path / "s.sock")  # a socket of this user's: another user's is never listed

    class Table:
        def get(self, pid):
            return {300: Proc(300, 100, "claude"), 100: Proc(100, 1, "tmux: server", "tmux")}.get(pid)

        def unix_sockets(self, pid):
            return [path, "@abstract"] if pid == 100 else []

    with sock.socket(sock.AF_UNIX) as server:
        server.bind(path)
        assert tmux.server_sockets(Table(), 300) == [path]


# -- kitty and WezTerm ----------------------------------------------------------------------------------------


def test_kitty_commands_and_outcomes() -> None:
    assert kitty.socket_address(["/tmp/kitty-12", "@kitty"]) == "unix:@kitty"
    assert kitty.socket_address(["/tmp/kitty-12"]) == "unix:/tmp/kitty-12"
    assert kitty.socket_address([]) is None
    assert kitty.focus_argv("unix:/tmp/kitty-12", 200) == [
        "kitty",
        "@",
        "--to",
        "unix:/tmp/kitty-12",
        "focus-window",
        "--match",
        "pid:200",
    ]
    assert kitty.focus(None, 200).outcome == Outcome.PERMISSION
    assert kitty.focus("unix:/k", 200, runner=Script({})).outcome == Outcome.FOCUSED
    no_match = Reply(False, stderr="Error: No matching windows for expression: pid:200", failure="failed", code=1)
    assert kitty.focus("unix:/k", 200, runner=Script({"kitty": no_match})).outcome == Outcome.GONE
    refused = Reply(False, stderr="Error: Remote control is disabled", failure="failed", code=1)
    result = kitty.focus("unix:/k", 200, runner=Script({"kitty": refused}))
    assert result.outcome == Outcome.PERMISSION and "allow_remote_control" in result.grant
    assert kitty.focus("unix:/k", 200, runner=Script({"kitty": TIMEOUT})).outcome == Outcome.TIMEOUT


WEZ_LIST = json.dumps(
    [
        {"window_id": 0, "tab_id": 0, "pane_id": 3, "tty_name": "/dev/pts/7", "title": "x"},
        {"window_id": 0, "tab_id": 1, "pane_id": 4, "tty_name": "/dev/pts/8"},
    ]
)


def test_wezterm_commands_and_outcomes() -> None:
    assert wezterm.LIST_ARGV == ["wezterm", "cli", "--no-auto-start", "list", "--format", "json"]
    assert wezterm.activate_argv(4) == ["wezterm", "cli", "--no-auto-start", "activate-pane", "--pane-id", "4"]
    assert wezterm.panes_on(WEZ_LIST, "/dev/pts/8") == [4]
    assert wezterm.panes_on("not json", "/dev/pts/8") == []
    assert wezterm.socket_path(["/run/user/0/wezterm/gui-sock-55", "/x"]) == "/run/user/0/wezterm/gui-sock-55"
    runner = Script({"list": Reply(True, WEZ_LIST)})
    result = wezterm.focus("/run/user/0/wezterm/gui-sock-55", "/dev/pts/8", runner=runner)
    assert result.outcome == Outcome.FOCUSED and runner.calls[-1] == wezterm.activate_argv(4)
    assert wezterm.focus(None, "/dev/pts/9", runner=runner).outcome == Outcome.GONE


# -- macOS ---------------------------------------------------------------------------------------------------


def test_iterm2_script_never_launches_and_selects_exactly_one_session() -> None:
    script = macos.iterm2_script("/dev/ttys003")
    assert script.startswith("with timeout of 10 seconds")
    assert 'if application id "com.googlecode.iterm2" is not running then return "not-running"' in script
    assert script.index("is not running") < script.index('tell application id "com.googlecode.iterm2"')
    assert 'if tty of s is "/dev/ttys003"' in script
    assert '"ambiguous "' in script and "tell s to select" in script and "select w" in script


def test_terminal_script_skips_tabs_whose_process_exited() -> None:
    script = macos.terminal_script("/dev/ttys004")
    assert 'if application id "com.apple.Terminal" is not running then return "not-running"' in script
    assert 'tty of t is "/dev/ttys004" and (count of processes of t) > 0' in script
    assert "set selected of t to true" in script and "set index of w to 1" in script


def test_scripts_refuse_odd_device_names() -> None:
    with pytest.raises(macos.UnsafeDevice):
        macos.iterm2_script('/dev/ttys0" & do shell script "x')
    assert macos.focus("Terminal", "/dev/tty s", runner=Script({})).outcome == Outcome.FAILED


def test_osascript_argv_and_resume_script_quoting() -> None:
    assert macos.osascript_argv("x") == ["osascript", "-e", "x"]
    script = macos.resume_script('cd "/a b" && claude --resume x')
    assert 'do script "cd \\"/a b\\" && claude --resume x"' in script


@pytest.mark.parametrize(
    ("reply", "outcome"),
    [
        (Reply(True, "focused\n"), Outcome.FOCUSED),
        (Reply(True, "missing\n"), Outcome.GONE),
        (Reply(True, "not-running\n"), Outcome.GONE),
        (Reply(True, "ambiguous 2\n"), Outcome.AMBIGUOUS),
        (
            Reply(
                False,
                stderr="execution error: Not authorized to send Apple events to Terminal. (-1743)",
                failure="failed",
                code=1,
            ),
            Outcome.PERMISSION,
        ),
        (
            Reply(
                False,
                stderr="execution error: Terminal got an error: AppleEvent timed out. (-1712)",
                failure="failed",
                code=1,
            ),
            Outcome.TIMEOUT,
        ),
        (TIMEOUT, Outcome.TIMEOUT),
        (Reply(False, stderr="syntax error", failure="failed", code=1), Outcome.FAILED),
    ],
)
def test_applescript_answers_map_to_distinct_outcomes(reply: Reply, outcome: Outcome) -> None:
    result = macos.interpret("Terminal", "/dev/ttys003", reply)
    assert result.outcome == outcome
    if outcome == Outcome.PERMISSION:
        assert "Privacy & Security → Automation" in result.grant


# -- desktop windows -----------------------------------------------------------------------------------------


def test_x11_window_of_a_tabless_terminal() -> None:
    runner = Script({"search": Reply(True, "41943042\n")})
    result = desktop.focus("xterm", 500, {"DISPLAY": ":0"}, runner=runner)
    assert result.outcome == Outcome.FOCUSED
    assert runner.calls == [["xdotool", "search", "--pid", "500"], ["xdotool", "windowactivate", "41943042"]]
    several = Script({"search": Reply(True, "1\n2\n")})
    assert desktop.focus("alacritty", 500, {"DISPLAY": ":0"}, runner=several).outcome == Outcome.AMBIGUOUS
    assert len(several.calls) == 1  # nothing was focused


def test_tabbed_or_unreachable_desktop_terminals_are_unsupported() -> None:
    assert desktop.focus("gnome-terminal-server", 5, {"DISPLAY": ":0"}).outcome == Outcome.UNSUPPORTED
    assert desktop.focus("xterm", 5, {}).outcome == Outcome.UNSUPPORTED


def test_sway_and_hyprland_windows() -> None:
    tree = json.dumps(
        {"id": 1, "nodes": [{"id": 2, "nodes": [{"id": 7, "pid": 500}]}], "floating_nodes": [{"id": 9, "pid": 600}]}
    )
    assert desktop.sway_windows(tree, 500) == [7] and desktop.sway_windows(tree, 600) == [9]
    runner = Script({"get_tree": Reply(True, tree)})
    assert desktop.focus("foot", 500, {"SWAYSOCK": "/s"}, runner=runner).outcome == Outcome.FOCUSED
    assert runner.calls[-1] == ["swaymsg", "[con_id=7]", "focus"]
    clients = json.dumps([{"address": "0xabc", "pid": 500}])
    assert desktop.hyprland_windows(clients, 500) == ["0xabc"]
    assert desktop.hyprland_focus_argv("0xabc") == ["hyprctl", "dispatch", "focuswindow", "address:0xabc"]


def test_terminal_detection_from_parent_names() -> None:
    agent = Proc(300, 200, "claude")
    shell = Proc(200, 100, "zsh")
    for name, kind in [
        ("kitty", detect.KITTY),
        ("wezterm-gui", detect.WEZTERM),
        ("iTerm2", detect.ITERM2),
        ("iTermServer-3.5.4", detect.ITERM2),
        ("Terminal", detect.TERMINAL_APP),
        ("xterm", detect.DESKTOP_TERMINAL),
        ("code", detect.EDITOR),
        ("sshd", detect.SSH),
    ]:
        host = detect.terminal_host([agent, shell, Proc(100, 1, name)])
        assert host is not None and host.kind == kind and host.child == shell, name
    assert detect.terminal_host([agent, shell]) is None


# -- resuming and the clipboard --------------------------------------------------------------------------------


def test_resume_plan_needs_the_cli_and_the_folder(tmp_path) -> None:
    plan = resume.plan("claude", "abc", str(tmp_path), which=lambda name: f"/bin/{name}")
    assert isinstance(plan, resume.ResumePlan)
    assert plan.argv == ["/bin/claude", "--resume", "abc"]
    assert plan.display == f"cd {tmp_path} && claude --resume abc"
    codex = resume.plan("codex", "t1", str(tmp_path), which=lambda name: f"/bin/{name}")
    assert codex.argv == ["/bin/codex", "resume", "t1"]
    no_cli = resume.plan("claude", "abc", str(tmp_path), which=lambda name: None)
    assert no_cli.outcome == Outcome.UNAVAILABLE and "`claude` command is not on PATH" in no_cli.message
    moved = resume.plan("claude", "abc", str(tmp_path / "gone"), which=lambda name: "/bin/claude")
    assert moved.outcome == Outcome.UNAVAILABLE and "no longer exists" in moved.message
    assert resume.plan("claude", "abc", None).outcome == Outcome.UNAVAILABLE


def test_resume_in_tmux_opens_a_window_in_the_callers_session(tmp_path) -> None:
    import socket as sock

    plan = resume.ResumePlan("/bin/claude", ("--resume", "abc"), str(tmp_path), "x")
    server = sock.socket(sock.AF_UNIX)
    server.bind(str(tmp_path / "s"))  # this user's socket, as a tmux server of theirs binds it
    try:
        argv = resume.tmux_argv(plan, tmux.own_server({"TMUX": f"{tmp_path}/s,123,4"}))
    finally:
        server.close()
    assert argv[:6] == ["tmux", "-S", f"{tmp_path}/s", "new-window", "-t", "$4:"]
    assert argv[-3:] == ["-c", str(tmp_path), "/bin/claude --resume abc"]
    outside = resume.tmux_argv(plan, None)
    assert outside[:3] == ["tmux", "new-session", "-d"]


def test_a_tmux_variable_naming_no_socket_of_this_users_opens_nothing_and_copies_nothing(tmp_path) -> None:
    """`$TMUX` is used only when its socket is this user's (tests/unit/hostile/test_other_users_tmux.py has a
    real server of another user's): no new window, no `tmux -S` to it, no clipboard text for it."""
    plan = resume.ResumePlan("/bin/claude", ("--resume", "abc"), str(tmp_path), "claude --resume abc")
    (tmp_path / "plain").write_text("")  # no socket at all
    for socket_path in (tmp_path / "missing", tmp_path / "plain"):
        environ = {"TMUX": f"{socket_path},1,0"}
        refused = resume.in_tmux(plan, environ, runner=pytest.fail)
        assert refused.outcome == Outcome.UNAVAILABLE and refused.command == "claude --resume abc"
        assert "not yours" in refused.message
        assert tmux.own_server(environ) is None
        assert not [argv for argv in clipboard.copy_argvs({**environ, "DISPLAY": ":0"}, "linux") if argv[0] == "tmux"]


def test_resume_in_a_terminal_window(tmp_path) -> None:
    plan = resume.ResumePlan("/bin/claude", ("--resume", "abc"), str(tmp_path), "x")
    mac = resume.terminal_argv(plan, {}, platform="darwin")
    assert mac[:2] == ["osascript", "-e"] and "do script" in mac[2]
    assert resume.terminal_argv(plan, {}, platform="linux") is None
    linux = resume.terminal_argv(
        plan, {"DISPLAY": ":0"}, platform="linux", which=lambda name: "/usr/bin/xterm" if name == "xterm" else None
    )
    assert linux[:4] == ["/usr/bin/xterm", "-e", "sh", "-c"] and "/bin/claude --resume abc" in linux[4]
    gnome = resume.terminal_argv(
        plan,
        {"DISPLAY": ":0", "TERMINAL": "gnome-terminal"},
        platform="linux",
        which=lambda name: "/usr/bin/gnome-terminal" if name == "gnome-terminal" else None,
    )
    assert gnome[1] == "--"


def test_clipboard_commands_per_desktop(tmp_path) -> None:
    import socket as sock

    assert clipboard.copy_argvs({}, "darwin") == [["pbcopy"]]
    assert clipboard.copy_argvs({"WAYLAND_DISPLAY": "w"}, "linux") == [["wl-copy"]]
    server = sock.socket(sock.AF_UNIX)
    server.bind(str(tmp_path / "s"))
    try:
        argvs = clipboard.copy_argvs({"DISPLAY": ":0", "TMUX": f"{tmp_path}/s,1,0"}, "linux")
    finally:
        server.close()
    assert argvs == [
        ["xclip", "-selection", "clipboard"],
        ["xsel", "--clipboard", "--input"],
        ["tmux", "-S", f"{tmp_path}/s", "load-buffer", "-w", "-"],
    ]
    with pytest.raises(clipboard.ClipboardError):
        clipboard.copy("x", {"PATH": "/nonexistent"})


@pytest.mark.process
def test_runner_reports_missing_programs_and_timeouts() -> None:
    assert run(["lunavect-no-such-program"]).failure == "missing"
    assert run(["sleep", "5"], timeout=0.2).failure == "timeout"
    assert run(["sh", "-c", "echo oops >&2; exit 3"]).error_line == "oops"
