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

    for name in root.COMMAND_MODULES:
        for command in importlib.import_module(f"lunavect.cli.{name}").COMMANDS:
            assert root.cli.commands[command.name] is command


def test_two_modules_claiming_one_name_is_refused():
    group = click.Group("probe")
    root.register(group, ("listing",))
    with pytest.raises(RuntimeError, match="registers `list` a second time"):
        root.register(group, ("listing",))


def test_the_group_imports_nothing_heavy():
    script = "import sys, json; import lunavect.cli.root; print(json.dumps(sorted(sys.modules)))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    modules = set(json.loads(proc.stdout))
    for heavy in ("textual", "psutil", "watchfiles", "lunavect.store", "lunavect.collector.tick", "lunavect.frontends"):
        assert not any(m == heavy or m.startswith(heavy + ".") for m in modules), heavy
