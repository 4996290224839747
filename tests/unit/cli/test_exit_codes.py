"""One table of exit codes for every command (`lunavect -h`, the docs' "Exit codes"): bad usage is 2 everywhere,
said in one line with where the command's help is, whether click found it (an unknown option, a choice) or
lunavect's own check of a value did (`usage --since 3x` exited 1)."""

from __future__ import annotations

import pytest

from lunavect.cli.root import EXIT_CODES

BAD_USAGE = [
    ("nonsense",),
    ("list", "--bogus"),
    ("usage", "--since", "3x"),
    ("usage", "--by", "week"),
    ("auto-hide", "soon"),
    ("auto-hide", "1s"),
    ("move", "aaaa"),
    ("hide",),
    ("completion", "powershell"),
    ("notifications", "on", "loud"),
    ("notifications", "set", "--usage-percent", "101"),
    ("notifications", "set", "--command", "'unclosed"),
    ("sync", "set", "nats://127.0.0.1:4222", "--password-file", "p"),
    ("sync", "set", "nats://127.0.0.1:4222", "--creds", "c", "--token-file", "t"),
    ("sync", "set", " , ", "--host-name", "h"),
    ("sync", "set", "nats://127.0.0.1:4222", "--host-name", "no spaces"),
    ("watch", "--interval", "nan"),
    ("show", "x", "--last", "0"),
    ("answer", "x", "maybe"),
]


@pytest.mark.parametrize("args", BAD_USAGE, ids=" ".join)
def test_bad_usage_exits_2_with_one_line(iso_env, args):
    result = iso_env.cli(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("lunavect: "), result.stderr
    assert lines[0].endswith(" -h`)") and "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_group_named_alone_shows_its_help(iso_env):
    result = iso_env.cli("hooks")
    assert result.returncode == 2 and "Commands:" in result.stdout + result.stderr


def test_a_failure_exits_1_with_one_line(iso_env):
    result = iso_env.cli("hide", "nope")
    assert result.returncode == 1 and result.stderr.strip() == "lunavect: no session 'nope' (see `lunavect list --all`)"


def test_the_help_holds_the_table(iso_env):
    text = " ".join(iso_env.cli("-h").stdout.split())
    assert "Exit codes:" in text
    for code, meaning in EXIT_CODES:
        assert f"{code} {meaning}" in text


def test_the_readme_holds_the_same_table():
    from docs_support import page

    readme = page("commands.md")
    table = readme[readme.index("| exit code | meaning |") :].split("\n\n")[0]
    rows = [line.strip("| ").split(" | ") for line in table.splitlines()[2:]]
    assert [(int(code), meaning) for code, meaning in rows] == list(EXIT_CODES)
