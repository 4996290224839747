"""The tmux sink's one escaper (`lunavect.core.tmux_text`) against a real tmux server: whatever a folder, a title or
an id holds reaches tmux as that text, in every way lunavect hands tmux a value (an expanded argument such as
`new-window -c`, a plain argument, a word of tmux.conf), and nothing in it runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tmux_server import TmuxServer, tmux_server
from unit_support import wait_until

from lunavect.core import tmux_text
from lunavect.navigation.terminals.runner import run

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (Debian: tmux)")


def hostile(folder: Path) -> list[str]:
    """Texts that act when tmux or a shell reads them as more than text; X and Y must never appear."""
    x, y = folder / "X", folder / "Y"
    return [
        f"#(touch {x})",
        f"proj#(touch {x})",
        "#[fg=red]red#[default]",
        "#{pane_id} #{session_name} #D #S #{?1,yes,no} #{E:pane_id}",
        f"$(touch {y})",
        f"`touch {y}`",
        f"a; touch {y}",
        "ends with;",
        ";",
        "ends with\\;",
        "line\nbreak\n",
        "\x1b]0;retitled\x07\x1b[31mred\x1b[0m\r",
        "#",
        "##",
        "a#",
        "'\"\\ $HOME ~ %H:%M",
        "-c",
    ]


@pytest.fixture
def server(iso_env):
    with tmux_server(iso_env.env) as started:
        yield started


def nothing_ran(server: TmuxServer) -> None:
    assert not (server.folder / "X").exists() and not (server.folder / "Y").exists()


@pytest.mark.process
def test_an_expanded_argument_arrives_as_its_text(server):
    for text in hostile(server.folder):
        # `set-option -F` expands its value as `new-window -c` and `run-shell` do; the value shows what came.
        server("set-option", "-g", "-F", "@probe", tmux_text.expanded_argument(text))
        assert server("show-options", "-gv", "@probe") == text, text
    nothing_ran(server)


@pytest.mark.process
def test_a_plain_argument_arrives_whole(server):
    for text in hostile(server.folder):
        server("set-option", "-g", "@probe", tmux_text.argument(text))
        assert server("show-options", "-gv", "@probe") == text, text
    nothing_ran(server)


@pytest.mark.process
def test_a_new_window_opens_in_a_hostile_folder_and_nothing_runs(server):
    base = server.folder / "projects"
    for number, text in enumerate(hostile(server.folder)):
        folder = base / f"{number} {text}"  # a `/` in a text makes nested folders: the path holds the text
        folder.mkdir(parents=True)
        out = server.folder / f"pwd-{number}"
        server("new-window", "-d", "-c", tmux_text.expanded_argument(str(folder)), f'printf %s "$PWD" > {out}')
        wait_until(lambda out=out: out.exists() and out.stat().st_size, f"the window for {text!r} did not start")
        assert out.read_bytes().decode() == str(folder), text
    nothing_ran(server)


@pytest.mark.process
def test_too_long_a_value_is_refused_by_tmux_without_a_traceback(server):
    text = f"#(touch {server.folder / 'X'})" + "a" * 100_000
    reply = run(["tmux", "-S", server.socket, "set-option", "-g", "-F", "@probe", tmux_text.expanded_argument(text)])
    assert not reply.ok and "too long" in reply.error_line
    nul = run(["tmux", "-S", server.socket, "set-option", "-g", "@probe", tmux_text.argument("a\0b")])
    assert not nul.ok  # no program can be given a NUL: a failed request, not an exception
    # JSON's "\\ud800" decodes to a lone surrogate, which no argument can hold either.
    assert not run(["tmux", "-S", server.socket, "set-option", "-g", "@probe", tmux_text.argument("\ud800")]).ok
    nothing_ran(server)


@pytest.mark.process
def test_a_conf_word_reads_back_as_its_text(server):
    texts = [
        *hostile(server.folder),
        "",
        " lead and trail ",
        "new\n  indented\n# not a comment",
        "~/x",
        "{a}",
        "%if",
        "A=b",
    ]
    conf = server.folder / "words.conf"
    conf.write_text("".join(f"set -g @w{i} {tmux_text.conf_word(t)}\n" for i, t in enumerate(texts)))
    server("source-file", str(conf))
    for i, text in enumerate(texts):
        assert server("show-options", "-gv", f"@w{i}") == text, text
    nothing_ran(server)


# Any text a source or another machine can carry (titles, folders, ids, tool names). A NUL or a lone
# surrogate cannot be an argument of any program (the runner's request fails); every other character goes through.
TEXTS = st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=300)


@given(st.text())
def test_the_escaper_never_raises(text):
    for escape in (tmux_text.expanded, tmux_text.drawn, tmux_text.argument, tmux_text.expanded_argument):
        assert isinstance(escape(text), str)
    assert isinstance(tmux_text.conf_word(text), str)
    assert tmux_text.drawn(text).replace("##", "").count("#") == 0
    assert "#(" not in tmux_text.expanded(text).replace("##", "") and "#{" not in tmux_text.expanded(text).replace(
        "##", ""
    )


@pytest.mark.process
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS)
def test_any_text_reaches_tmux_as_itself(server, text):
    server("set-option", "-g", "-F", "@probe", tmux_text.expanded_argument(text))
    assert server("show-options", "-gv", "@probe") == text
    conf = server.folder / "word.conf"
    conf.write_text(f"set -g @word {tmux_text.conf_word(text)}\n")
    server("source-file", str(conf))
    assert server("show-options", "-gv", "@word") == text


@pytest.mark.process
def test_a_drawn_value_shows_as_its_text_on_a_real_status_line(iso_env, server):
    """A value a status line draws (as `#{@lunavect_status}` and `#{@lunavect_state}` are), seen by a real client
    of the server: it runs in a pane of a second server, whose screen shows the first one's status line."""
    texts = ["#[fg=red]red#[default]", "#{pane_id}", f"#(touch {server.folder / 'X'})", "##", "a#", "###[x]"]
    server("set-option", "-g", "status-right-length", "190")
    server("set-option", "-g", "status-right", "<#{@probe}>")
    with tmux_server(iso_env.env) as outer:
        outer("respawn-pane", "-k", "-t", "main", f"env -u TMUX tmux -S {server.socket} attach -t main")
        wait_until(lambda: server("list-clients"), "the client never attached")
        for text in texts:
            server("set-option", "-g", "@probe", tmux_text.argument(tmux_text.drawn(text)))
            server("refresh-client", "-S")
            wait_until(
                lambda text=text: f"<{text}>" in outer("capture-pane", "-p", "-t", "main"),
                f"{text!r} not drawn as itself: {outer('capture-pane', '-p', '-t', 'main')!r}",
            )
            assert "\x1b[31m" not in outer("capture-pane", "-p", "-e", "-t", "main")  # never restyled red
    nothing_ran(server)


@pytest.mark.process
def test_the_probe_server_expands_what_is_not_escaped(server):
    """The check above is worth something only if the same server runs `#(...)` given raw: it does."""
    target = server.folder / "ran"
    # A `#(...)` job belongs to the tmux client that asked: `run-shell` keeps this one until the job has run.
    server("new-window", "-d", "-c", f"{server.folder}#(touch {target})", "true", ";", "run-shell", "sleep 2")
    wait_until(target.exists, "tmux did not run #(...) given raw")


@pytest.mark.process
def test_text_typed_into_a_pane_keeps_a_final_semicolon(server):
    """`send-keys -l` takes its text as an argument: `go on;` once arrived as `go on`, and `;` as nothing."""
    from lunavect.navigation.pane_io import TmuxPane
    from lunavect.navigation.terminals import tmux

    # No echo: each line shows once, as `cat` writes it back, in the order typed.
    pane_id = server("new-window", "-P", "-F", "#{pane_id}", "stty -echo; exec cat")
    pane = TmuxPane(tmux.Pane(server.socket, pane_id, "", None, False, "main", ""))
    wait_until(lambda: pane.current_command() == "cat", "cat did not start")
    texts = ["go on;", ";", "a\\;", "#(touch X) $(touch Y);"]
    for text in texts:
        assert pane.type(text)
        assert pane.key("Enter")
    wait_until(
        lambda: server("capture-pane", "-p", "-t", pane_id).split("\n")[: len(texts)] == texts,
        f"typed text changed: {server('capture-pane', '-p', '-t', pane_id)!r}",
    )
    nothing_ran(server)
