"""The `lunavect` click group and the one place where command modules are registered.

A new group of commands is one module of `lunavect.cli` with a `COMMANDS` tuple, named once in
`COMMAND_MODULES`. Command modules import only click, msgspec and `lunavect.cli.common` at their top, and
everything heavier inside the command, so `lunavect --help` and the fast commands stay fast.
"""

from __future__ import annotations

import importlib
import sqlite3
from typing import Any

import click
from click.exceptions import NoArgsIsHelpError

from lunavect import __version__
from lunavect.cli.common import BadUsage, Failure
from lunavect.core import clients

# Every command, by the module of lunavect.cli that holds it (in that module's `COMMANDS` tuple). A module is
# imported only when one of its commands runs (or `--help` lists them all): the quick commands (`list --json`,
# `counts`, `status`) do not pay for the imports of every other command's module (tests/unit/cli checks that
# this table and the modules' `COMMANDS` agree).
COMMAND_HOMES: dict[str, str] = {
    "hook": "hooks",
    "hooks": "hooks",
    "daemon": "daemon",
    "list": "listing",
    "counts": "listing",
    "watch": "listing",
    "events": "events",
    "hide": "arrange",
    "unhide": "arrange",
    "pin": "arrange",
    "unpin": "arrange",
    "dismiss": "arrange",
    "undismiss": "arrange",
    "move": "arrange",
    "resume": "arrange",
    "auto-hide": "arrange",
    "open": "opening",
    "next": "opening",
    "show": "conversation",
    "reply": "conversation",
    "answer": "conversation",
    "panel": "panel",
    "sync": "sync",
    "web": "web",
    "notifications": "notifications",
    "service": "service",
    "status": "status",
    "tmux": "tmux",
    "tray": "tray",
    "doctor": "doctor",
    "usage": "usage",
    "editors": "editors",
    "completion": "completion",
    "paths": "places",
}
# Every module of lunavect.cli that contributes commands.
COMMAND_MODULES: tuple[str, ...] = tuple(dict.fromkeys(COMMAND_HOMES.values()))


class LunavectGroup(click.Group):
    """The group that turns a store failing after it opened (a read-only file, overwritten pages, a full disk)
    into the one-line failure every other problem gets, and bad usage into one line and exit code 2 (docs, "Exit
    codes"), for every command at once, and that imports a command's module only when that command is looked up
    (`COMMAND_HOMES`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(COMMAND_HOMES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_HOMES:
            register(self, (COMMAND_HOMES[cmd_name],))
        return self.commands.get(cmd_name)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except NoArgsIsHelpError:
            raise  # a group named alone shows its help, as click does
        except click.UsageError as exc:
            raise BadUsage(exc) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NoArgsIsHelpError:
            raise
        except click.UsageError as exc:
            raise BadUsage(exc) from None
        except sqlite3.Error as exc:
            raise Failure(f"the store cannot be used: {exc} (see `lunavect doctor`)") from None


def _about() -> str:
    """The group's help, naming the clients from their descriptors (a client added later is named too)."""
    names = [client.name for client in clients.every()]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"Every {listed} session on this machine, with the exact state of each.\n\nWithout a command, opens the live session panel."


# Every command's exit codes, the one table (the docs' "Exit codes" holds it too, and a test holds both to it).
EXIT_CODES: tuple[tuple[int, str], ...] = (
    (0, "done (doctor: no problem found)"),
    (1, "not done, with one line that says why (doctor: a problem found; next: nothing needs you)"),
    (2, "bad usage: an unknown command or option, or a value it cannot take"),
)


@click.group(
    cls=LunavectGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=_about(),
    epilog="\b\nExit codes:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in EXIT_CODES),
)
@click.version_option(__version__, prog_name="lunavect")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """The command line's root (its help is `_about()`)."""
    if ctx.invoked_subcommand is None:
        from lunavect.cli.panel import panel_command

        ctx.invoke(panel_command)


def register(group: click.Group, module_names: tuple[str, ...] = COMMAND_MODULES) -> None:
    """Add every command of the named modules; two modules claiming one name is a programming error."""
    for name in module_names:
        module = importlib.import_module(f"lunavect.cli.{name}")
        for command in module.COMMANDS:
            if command.name in group.commands:
                raise RuntimeError(f"lunavect.cli.{name} registers `{command.name}` a second time")
            group.add_command(command)


def run() -> None:
    cli.main(prog_name="lunavect")
