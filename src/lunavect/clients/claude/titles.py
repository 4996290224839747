"""The title Claude Code itself shows for a session in its resume picker (`claude --resume`), observed with 2.1.328
and read in its own code (tests/clients/NOTES.md, "Titles"):

1. a name: the job's or the one the person gave (`agent-name`, then `custom-title`), then the generated title
   (`ai-title`), then an old-style `summary`;
2. else the last prompt as the client itself recorded it (the `last-prompt` record's `lastPrompt`: the text with
   its newlines as spaces and a pasted file's wrapper gone, `! <command>` for a shell command, `/name args` for a
   custom slash command, `[Image #1] ...` for an image);
3. else the first prompt, read as the picker reads a transcript that has no `lastPrompt`: its text on one line;
   `! <command>` for a shell command (`<bash-input>`); a slash command with arguments as `/name args`, unless it is
   one of the client's built-in commands, whose arguments set something (`/goal <condition>`, `/model opus`) and
   never name the task; text that opens with a tag (`<local-command-stdout>`, a caveat) is no prompt;
4. else the first slash command's name (`/model`, `/clear`): a session of commands only.

Only the title is kept; the rest of the prompt is dropped where it is read.
"""

from __future__ import annotations

import re

_PASTED_OPEN, _PASTED_CLOSE = "<pasted_content", "</pasted_content>"
# What the picker skips as no prompt: text that opens with a tag, or the client's interrupt marker.
_NOT_A_PROMPT = re.compile(r"^(?:\s*<[a-z][\w-]*[\s>]|\[Request interrupted by user[^\]]*\])")
# C0 and C1 control characters, each read as a space.
_CONTROLS = {code: " " for code in (*range(0x20), *range(0x7F, 0xA0))}
# What a title may be: one line, as short as a list's row shows it (the picker itself cuts at 200 characters).
TITLE_CHARS = 80

# Claude Code 2.1.328's built-in slash commands (read from its command table): their arguments never title a session.
BUILT_IN_COMMANDS = frozenset(
    """
    add-dir advisor agents artifacts auto-mode-setup autocompact autofix-pr background branch brief btw bug cd
    checkup clear cloud-plugins color compact config context copy daemon design-consent design-login
    design-revoke desktop diff doctor effort exit export extra-usage fast feedback focus fork goal heapdump help
    hooks ide import init insights install install-github-app install-slack-app keybindings list-agents login
    logout loops mcp memory mobile model output-style passes pause-memory permissions plan plugin powerup
    privacy-settings pro-trial-expired project radio rate-limit-options recap release-notes reload-plugins
    reload-skills remote-control remote-env rename restart resume rewind scroll-speed session setup-bedrock
    setup-vertex skill-doctor skills statusline status stickers stop subtask tasks team-onboarding teleport
    terminal-setup theme tui ultraplan ultrareview upgrade usage usage-credits use-case version voice web-setup
    wellbeing workflow-launch-exec workflows
    """.split()
)


def _tag(text: str, name: str) -> str:
    opening, closing = f"<{name}>", f"</{name}>"
    start = text.find(opening)
    if start < 0:
        return ""
    start += len(opening)
    end = text.find(closing, start)
    return text[start : end if end >= 0 else len(text)].strip()


def is_command(text: str) -> bool:
    return text.lstrip().startswith(("<command-name>", "<command-message>"))


def command_text(text: str) -> str | None:
    """ "/name args" for a slash command record, as the client writes it in `lastPrompt`."""
    name = _command_name(text)
    if name is None:
        return None
    args = _tag(text, "command-args")
    return f"{name} {args}" if args else name


def _command_name(text: str) -> str | None:
    name = _tag(text, "command-name") or _tag(text, "command-message")
    if not name:
        return None
    return name if name.startswith("/") else "/" + name


def of_command(text: str) -> tuple[str | None, str | None]:
    """A slash command record's part in the title: (its title as a prompt, its name as the last fallback). A
    custom command with arguments titles the session as `/name args`; a built-in one, or one without arguments,
    names it only when nothing else does."""
    name = _command_name(text)
    if name is None:
        return None, None
    args = " ".join(_tag(text, "command-args").split())
    if args and name[1:] not in BUILT_IN_COMMANDS:
        return squashed(f"{name} {args}"), None
    return None, squashed(name)


def of_shell_command(text: str) -> str | None:
    """`! <command>` for a shell command typed with `!` (`<bash-input>`), as the picker shows it."""
    command = _tag(text, "bash-input")
    return squashed(f"! {command}") if command else None


def of_prompt(text: str) -> str | None:
    """A typed prompt as the picker shows it: on one line, a pasted file's wrapper gone; None for text the picker
    does not take for a prompt."""
    line = squashed(without_paste_marks(text))
    if line is None or _NOT_A_PROMPT.match(line):
        return None
    return line


def without_paste_marks(text: str) -> str:
    """The prompt with its pasted files' wrappers removed, their contents kept."""
    if _PASTED_OPEN not in text:
        return text
    parts = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(_PASTED_OPEN) and stripped.endswith(">") or stripped == _PASTED_CLOSE:
            continue
        parts.append(line)
    return "\n".join(parts)


def squashed(text: str, limit: int = TITLE_CHARS) -> str | None:
    """`text` on one line (every run of whitespace, newlines too, one space), cut to `limit` characters; None when
    nothing is left. Control characters (an escape, a tab) count as whitespace: a title is shown in terminals."""
    line = " ".join(text.translate(_CONTROLS).split())
    if not line:
        return None
    return line if len(line) <= limit else line[: limit - 1] + "…"


def one_line(text: str, limit: int = TITLE_CHARS) -> str | None:
    """The first non-empty line of `text`, whitespace collapsed and cut to `limit` characters."""
    for line in text.splitlines():
        found = squashed(line, limit)
        if found:
            return found
    return None


def of(value: object) -> str | None:
    """A title from a field the client wrote (a name, a generated title, a summary)."""
    return one_line(value) if isinstance(value, str) else None


def of_last_prompt(value: object) -> str | None:
    """The `lastPrompt` the client recorded (already one line and its own cut): squashed to a row's length."""
    return squashed(value) if isinstance(value, str) else None
