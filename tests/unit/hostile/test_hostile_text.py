"""Text from outside never reaches a terminal raw, and the commands refuse bad arguments in one line.

Issue 12, defects 1 and 10: a title or folder carrying escape sequences retitled the terminal and cleared the
screen through `list`, `watch` and the panel; a newline forged a row; `watch --interval` took -1, nan and 0;
`resume` left a deleted folder or a missing CLI to `sh:`; `auto-hide` took 0.0001 s and printed 6.048e+25 s;
a 128 KB id was echoed back whole.
"""

from __future__ import annotations

import datetime as _dt
import time

import msgspec
import pytest
from hostile_support import acts_on_a_terminal
from unit_support import a_session, seed_snapshot

from lunavect.core.model import Session
from lunavect.core.terminal_text import clean, clean_lines
from lunavect.frontends import rows, table

HOSTILE_TITLE = "T\x1b]0;pwned\x07\x1b[2J"
FORGED_ROW = "x\nready  -  claude  forged  FORGED  deadbeef"


def hostile_session(sid: str = "aaaa1111", **fields: object) -> Session:
    values: dict[str, object] = dict(
        title=HOSTILE_TITLE,
        project="p\x9b31m\u202eevil",
        cwd="/tmp/" + FORGED_ROW,
        state="ready",
        resume=f"cd /tmp/x\x1b]0;pwned\x07 && claude --resume {sid}",
        updated=_dt.datetime.now(_dt.UTC).isoformat().replace("+00:00", "Z"),
    )
    values.update(fields)
    return a_session(sid, **values)


def seed(conn, session: Session) -> None:
    seed_snapshot(conn, session)


# -- the shared helper ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [HOSTILE_TITLE, FORGED_ROW, "a\rb", "\x9b2J", "x\u2028y", "\u202egnp.exe", "\x00", "\x7f", "tab\there"],
)
def test_clean_leaves_nothing_a_terminal_obeys(text):
    shown = clean(text)
    assert not acts_on_a_terminal(shown) and "\n" not in shown
    assert shown  # what was there stays visible, as its escape


def test_clean_keeps_ordinary_text_and_bounds_length():
    assert clean("Fix the café’s 日本語 build 🚀") == "Fix the café’s 日本語 build 🚀"
    assert clean(None) == ""
    assert len(clean("x" * 131072, 80)) == 80
    assert clean_lines("one\x1b[2J\ntwo") == "one\\x1b[2J\ntwo"


# -- each front end's edge --------------------------------------------------------------------------------------


def test_list_table_shows_hostile_fields_harmlessly():
    text = table.render([hostile_session()], width=400)
    assert not acts_on_a_terminal(text)
    assert len(text.splitlines()) == 2  # the header and one row: no forged row
    assert "pwned" in text  # shown, not obeyed


@pytest.mark.process
def test_list_command_on_a_hostile_store(iso_env):
    seed(iso_env.connect(), hostile_session())
    result = iso_env.cli("list")
    assert result.returncode == 0, result.stderr
    assert not acts_on_a_terminal(result.stdout)
    assert len(result.stdout.strip().splitlines()) == 2
    as_json = iso_env.cli("list", "--json")
    assert msgspec.json.decode(as_json.stdout)[0]["title"] == HOSTILE_TITLE  # stored and exported as it came


def test_watch_frame_shows_hostile_fields_harmlessly(iso_env):
    from lunavect.frontends.watch import frame

    conn = iso_env.connect()
    seed(conn, hostile_session())
    text = frame(conn, include_hidden=True, explain_empty=lambda: "")
    assert not acts_on_a_terminal(text)


def test_panel_row_and_tooltip_show_hostile_fields_harmlessly():
    session = hostile_session(state="working", activity="Bash\x1b]0;x\x07", waiting_for=None)
    assert not acts_on_a_terminal(rows.tooltip(session, time.time()))
    assert not acts_on_a_terminal(clean(rows.state_label(session)))


@pytest.mark.process
def test_arrangement_commands_echo_ids_harmlessly(iso_env):
    seed(iso_env.connect(), hostile_session())
    for args in (("pin", "aaaa"), ("hide", "aaaa"), ("resume", "aaaa", "--print")):
        result = iso_env.cli(*args)
        assert result.returncode == 0, (args, result.stderr)
        assert not acts_on_a_terminal(result.stdout), args


@pytest.mark.process
def test_a_huge_or_hostile_id_is_not_echoed_whole(iso_env):
    seed(iso_env.connect(), hostile_session())
    huge = "z" * 131072
    for command in ("pin", "open", "hide", "resume"):
        result = iso_env.cli(command, huge)
        assert result.returncode == 1
        assert len(result.stderr) < 1000, command
    result = iso_env.cli("pin", "\x1b]0;pwned\x07")
    assert result.returncode == 1 and not acts_on_a_terminal(result.stderr)


@pytest.mark.process
def test_empty_id_is_refused_alike_by_every_command(iso_env):
    seed(iso_env.connect(), hostile_session())
    answers = {command: iso_env.cli(command, "") for command in ("open", "pin", "hide", "resume")}
    for command, result in answers.items():
        assert result.returncode == 1, command
        assert result.stderr.strip() == "lunavect: no session id given", command


# -- bad arguments (defect 10) --------------------------------------------------------------------------------


@pytest.mark.parametrize("interval", ["-1", "nan", "0", "inf", "1e400", "-nan"])
def test_watch_refuses_an_interval_it_cannot_keep(iso_env, interval):
    result = iso_env.cli("watch", "--interval", interval)
    assert result.returncode == 2
    assert "--interval" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("interval", ["0.0001", "1s", "59", "99999999999999999999w", "366d"])
def test_auto_hide_refuses_intervals_outside_a_minute_to_a_year(iso_env, interval):
    result = iso_env.cli("auto-hide", interval)
    assert result.returncode == 2, result.stdout  # bad usage
    assert "between 1m and 365d" in result.stderr
    assert iso_env.cli("auto-hide").stdout.strip() == "automatic hiding: off"


def test_auto_hide_takes_the_bounds_themselves(iso_env):
    assert iso_env.cli("auto-hide", "1m").stdout.strip() == "automatic hiding: inactive sessions after 1m"
    assert iso_env.cli("auto-hide", "365d").stdout.strip() == "automatic hiding: inactive sessions after 365d"


@pytest.mark.process
def test_resume_explains_a_deleted_folder_like_open(iso_env, tmp_path):
    gone = tmp_path / "deleted-project"
    seed(iso_env.connect(), hostile_session(title="t", project="p", cwd=str(gone), resume="x"))
    result = iso_env.cli_process("resume", "aaaa")
    assert result.returncode == 1
    assert "sh:" not in result.stderr
    assert result.stderr.strip() == (
        f"lunavect: cannot resume claude:aaaa1111: its project folder {gone} no longer exists (moved or deleted)"
    )


@pytest.mark.process
def test_resume_explains_a_missing_cli_like_open(iso_env, tmp_path):
    seed(iso_env.connect(), hostile_session(title="t", project="p", cwd=str(tmp_path), resume="x"))
    env = dict(iso_env.env, PATH=str(tmp_path / "no-bin"))
    import subprocess

    from unit_support import LUNAVECT_BIN

    result = subprocess.run([LUNAVECT_BIN, "resume", "aaaa"], env=env, capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert "sh:" not in result.stderr
    assert "the `claude` command is not on PATH" in result.stderr
