"""Text given to tmux arrives as that text: the one escaper of the tmux sink.

tmux reads what lunavect hands it in four ways, and in each a folder's or a title's text could act:
- expanded as a format: `-c` of `new-window`/`new-session`, `run-shell`'s command, a value set with `-F`.
  There `#(...)` runs a command and `#{...}` is replaced; `##` is one `#`, and a run of `#` just before `[` is
  kept as it is (left for drawing, tmux 3.2 and later). `expanded`;
- drawn on a status line or a pane border, as the values of lunavect's options are (`#{@lunavect_status}` puts
  the value in without expanding it again): there `#[...]` restyles, and `##` draws one `#`. `drawn`;
- as one argument of a command line: an argument that ends in `;` ends the command there (tmux splits its
  `argv` into commands at such arguments), unless the `;` follows a backslash. `argument`;
- as a word of its configuration language (`lunavect tmux install` writes one): quotes, `$`, `~`, `\\` and
  line breaks mean something there. `conf_word`.
Which arguments tmux expands is read from its source (3.3a and today's): `-c` and `run-shell` are expanded; a new
window's and a popup's shell command, `send-keys -l` and an option's value set without `-F` are not. Nothing but
`#` is special in a format (`display-message` also reads `%` as a time; lunavect shows no outside text with
it). Standard library only, and no lunavect import, so any module that talks to tmux imports it.
"""

from __future__ import annotations

import re

# A run of `#` that is not just before a `[` (nor part of a longer run): tmux reads each pair as one `#`.
_HASHES = re.compile(r"#+(?![#\[])")


def expanded(text: str) -> str:
    """`text` for a place where tmux expands formats, coming out as itself: every `#` doubled, except a run
    just before `[`, which the expansion keeps as it is."""
    return _HASHES.sub(lambda run: run.group() * 2, text)


def drawn(text: str) -> str:
    """`text` inside a value that a status line or a pane border draws, shown as itself: every `#` doubled."""
    return text.replace("#", "##")


def argument(text: str) -> str:
    """`text` as one argument of a tmux command line, whole: a final `;` (which would end the command and drop
    the `;`) is written `\\;`, which tmux reads back as `;`. Nothing else in an argument is special."""
    return text[:-1] + "\\;" if text.endswith(";") else text


def expanded_argument(text: str) -> str:
    """An argument that tmux expands as a format (`new-window -c FOLDER`), arriving as `text`."""
    return argument(expanded(text))


def conf_word(text: str) -> str:
    """`text` as one word of a tmux.conf line, read back by tmux's parser as exactly `text`.

    tmux's parser joins the quoted parts of one word as a POSIX shell does and takes single quotes literally,
    so each part is single-quoted (a `'` written `'"'"'`). A word is always quoted: bare, one that starts with
    `%` is a directive. Only a line break inside quotes is not kept as it is (tmux drops the spaces after it),
    so each one is written `"\\n"` between the quoted parts.
    """
    return '"\\n"'.join("'" + part.replace("'", "'\"'\"'") + "'" for part in text.split("\n"))
