"""The CLI's one registry: every command module is named once in `lunavect.cli.root`, and the group's start-up
imports nothing heavy, so `lunavect --help` and quick commands stay quick as command groups are added."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pytest

import lunavect.cli
from lunavect.cli import root

SHARED = {"__init__", "common", "root"}


def test_every_command_module_is_registered_once():
    on_disk = {p.stem for p in Path(lunavect.cli.__file__).parent.glob("*.py")} - SHARED
    assert sorted(root.COMMAND_MODULES) == sorted(on_disk)
    assert len(set(root.COMMAND_MODULES)) == len(root.COMMAND_MODULES)


def test_every_registered_command_is_in_the_group():
    import importlib

    ctx = click.Context(root.cli)
    for name in root.COMMAND_MODULES:
        for command in importlib.import_module(f"lunavect.cli.{name}").COMMANDS:
            assert root.cli.get_command(ctx, command.name) is command
            assert root.COMMAND_HOMES[command.name] == name


def test_the_table_of_commands_names_no_command_its_module_lacks():
    import importlib

    held = {
        command.name: name
        for name in root.COMMAND_MODULES
        for command in importlib.import_module(f"lunavect.cli.{name}").COMMANDS
    }
    assert held == root.COMMAND_HOMES
    assert root.cli.list_commands(click.Context(root.cli)) == sorted(held)


def test_two_modules_claiming_one_name_is_refused():
    group = click.Group("probe")
    root.register(group, ("listing",))
    with pytest.raises(RuntimeError, match="registers `list` a second time"):
        root.register(group, ("listing",))


@pytest.mark.process
@pytest.mark.parametrize("command", ["list", "counts", "status"])
def test_a_quick_command_imports_no_other_command_module(command):
    """Looking up one command imports its own module of lunavect.cli, not every other command's."""
    script = (
        "import sys, json, click; from lunavect.cli import root; "
        f"root.cli.get_command(click.Context(root.cli), {command!r}); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('lunavect.cli.'))))"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    modules = {m.removeprefix("lunavect.cli.") for m in json.loads(proc.stdout)} - SHARED
    assert modules == {root.COMMAND_HOMES[command]}


@pytest.mark.process
def test_the_group_imports_nothing_heavy():
    script = "import sys, json; import lunavect.cli.root; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    modules = set(json.loads(proc.stdout))
    for heavy in ("textual", "psutil", "watchfiles", "lunavect.store", "lunavect.collector.tick", "lunavect.frontends"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in modules), heavy


@pytest.mark.process
@pytest.mark.parametrize("args", [["list", "--json"], ["counts", "--json"], ["status"]])
def test_a_quick_command_imports_only_what_it_answers_with(iso_env, args):
    """The quick commands a script or a status bar runs over and over (≤ 150 ms at 100 sessions, issue 30) import
    their own command module, the store and the readers: not the other commands' modules, not sync's intake of
    other machines' rows (`lunavect.sync.remote`), and `list --json` not the table it does not print."""
    script = (
        "import sys, json, atexit; "
        "atexit.register(lambda: sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)))); "
        f"sys.argv = ['lunavect', *{args!r}]; "
        "from lunavect.cli import main; main()"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], env=iso_env.env, capture_output=True, text=True, timeout=60, check=True
    )
    modules = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    commands = {m.removeprefix("lunavect.cli.") for m in modules if m.startswith("lunavect.cli.")} - SHARED
    assert commands == {root.COMMAND_HOMES[args[0]]}
    assert "lunavect.sync.remote" not in modules
    if args == ["list", "--json"]:
        assert "lunavect.frontends.table" not in modules
