"""The command that resumes a session, as a person types it: `cd <folder> && claude --resume <id>`.

Pure text, apart from any terminal: the snapshot stores it as each session's `resume` field, and returning to a
task (`lunavect.navigation.resume`) runs it. The folder and the id come from files other programs wrote, and
the line is run by `sh -c` or pasted into a shell: this module is the one place a command line is made of
words (`shell_words`, `in_folder`), so a folder named `$(touch x)` or `a; rm -r b` is only ever a folder.

The line a person reads and pastes (`display_command`, the snapshot's `resume`) is printed through the
terminal filter (`terminal_text.clean`), which shows a line break as `\x0a`: inside single quotes that text,
pasted, names another folder. So a folder holding a character a terminal acts on is written `$'...'` there,
each such character as the `\\xHH` escapes of its bytes, and the line printed is the line that runs (bash,
zsh, ksh, busybox; a shell without `$'...'` fails on it rather than entering another folder). The line
lunavect runs itself (`sh -c`) keeps plain single quotes.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence

from lunavect.core.clients import by_id
from lunavect.core.terminal_text import clean


def shell_words(words: Sequence[str]) -> str:
    """Words as one POSIX shell command line that runs exactly these words (each quoted where it needs it)."""
    return shlex.join(words)


def _ansi_c(char: str) -> str:
    if char in "\\'":
        return "\\" + char
    if clean(char) == char:
        return char
    # Its UTF-8 bytes: `\\u` would need the shell to run in a UTF-8 locale.
    return "".join(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogateescape"))


def person_quote(word: str) -> str:
    """`word` as a person pastes it into their shell: as `shlex.quote` writes it, unless it holds a character
    the terminal filter escapes; then `$'...'`, whose escapes print as they are (see the module's docstring)."""
    if clean(word) == word:
        return shlex.quote(word)
    return "$'" + "".join(_ansi_c(char) for char in word) + "'"


def in_folder(command: str, cwd: str | None, quote: Callable[[str], str] = shlex.quote) -> str:
    """`command` run in the folder `cwd`. A folder that is not absolute is written `./folder`: `cd` would take
    `-`, `-P` or `-L` as an option (or go back to `$OLDPWD`) and look a bare name up in `$CDPATH`. `quote`:
    `person_quote` for a line a person reads."""
    if not cwd:
        return command
    folder = cwd if cwd.startswith("/") else f"./{cwd}"
    return f"cd {quote(folder)} && {command}"


def resume_args(provider: str, session_id: str) -> tuple[str, ...] | None:
    """The CLI's arguments that resume the session (what follows the CLI's name: `claude --resume <id>`,
    `codex resume <id>`), or None for a provider lunavect cannot resume."""
    client = by_id(provider)
    return None if client is None or client.cli.resume is None else (*client.cli.resume, session_id)


def display_command(provider: str, session_id: str, cwd: str | None) -> str | None:
    """What a person types to resume the session (`cd <folder> && claude --resume <id>`), or None for a
    provider lunavect cannot resume. This is also the snapshot's `resume` field."""
    client, args = by_id(provider), resume_args(provider, session_id)
    if client is None or args is None:
        return None
    return in_folder(shell_words([client.cli.command, *args]), cwd, person_quote)


def attach_args(provider: str, job_id: str) -> tuple[str, ...] | None:
    """The CLI's arguments that bring a session it runs in the background into a terminal (`claude attach
    <job id>`), or None for a client that runs none."""
    client = by_id(provider)
    return None if client is None or client.cli.attach is None else (*client.cli.attach, job_id)


def attach_command(provider: str, job_id: str) -> str | None:
    """What a person types to attach to a background session (`claude attach <job id>`)."""
    client, args = by_id(provider), attach_args(provider, job_id)
    return None if client is None or args is None else shell_words([client.cli.command, *args])


def _remote_words(words: Sequence[str]) -> list[str]:
    """Words for the shell on the other machine: ssh joins what follows the host with spaces and hands that line
    to the remote user's shell, so each word is quoted for it (then once more, as any word, for the shell here)."""
    return [shlex.quote(word) for word in words]


def ssh_argv(host: str, *lunavect_args: str) -> list[str]:
    """`ssh HOST -t lunavect ...` as words. The host name was checked where it entered (`sync.keys`): it starts
    with a letter or digit, so ssh can never read it as an option."""
    return ["ssh", host, "-t", *_remote_words(["lunavect", *lunavect_args])]


def ssh_command(host: str, *lunavect_args: str) -> str:
    """The command that runs lunavect on another machine (whose rows sync brought): `ssh HOST -t lunavect ...`."""
    return shell_words(ssh_argv(host, *lunavect_args))


def ssh_attach_command(host: str, session: str) -> str:
    """The command that makes this terminal show a session's own tmux pane on another machine:
    `ssh -t HOST lunavect open ID --attach` (`navigation.attach_here` runs there)."""
    return shell_words(["ssh", "-t", host, *_remote_words(["lunavect", "open", session, "--attach"])])
