"""`lunavect completion bash|zsh|fish`: the shell's completion script, from click's own shell completion.

The script asks lunavect itself at each Tab (click's `_LUNAVECT_COMPLETE` protocol), so it never goes stale as
commands change; session ids complete from the store (`common.complete_session`).
"""

from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")
# click's protocol: the variable the script sets to ask for completions, named after the program.
COMPLETE_VAR = "_LUNAVECT_COMPLETE"


@click.command("completion")
@click.argument("shell", metavar="SHELL", type=click.Choice(SHELLS))
def completion_command(shell: str) -> None:
    """Print the completion script for SHELL: commands, options and session ids complete with Tab.

    \b
    Examples:
      lunavect completion bash > ~/.local/share/bash-completion/completions/lunavect
      lunavect completion fish > ~/.config/fish/completions/lunavect.fish
      echo 'eval "$(lunavect completion zsh)"' >> ~/.zshrc
    """
    from click.shell_completion import get_completion_class

    completer = get_completion_class(shell)
    assert completer is not None  # every name in SHELLS is one of click's
    root = click.get_current_context().find_root().command
    click.echo(completer(root, {}, "lunavect", COMPLETE_VAR).source(), nl=False)


COMMANDS: tuple[click.Command, ...] = (completion_command,)
