"""`--json` on every command that reports: a script reads any of lunavect's answers as JSON, never by scraping its
words. Each command either takes `--json` or is named below with why it has nothing to report; and what each
`--json` prints parses, one JSON document, in an installation with a session in it."""

from __future__ import annotations

import json

import click
import pytest
from unit_support import a_session, seed_snapshot

from lunavect.cli.root import cli

# The commands that print no report, each with why. A new command is in neither list until someone decides.
NO_REPORT = {
    "hook": "the agents' hook: prints nothing, ever",
    "daemon": "runs the collector in the foreground",
    "panel": "the panel itself",
    "watch": "a live table, redrawn every second (`list --json` is its JSON)",
    "tray": "a tray icon",
    "web": "serves the web panel",
    "tmux popup": "tmux's popup, drawn for tmux",
    "tmux publish": "writes tmux's options for its status line",
    "completion": "prints a shell's completion script",
    "resume": "runs the client (`--print` prints the shell command that does)",
    # Changes to a configuration file, said in words; the state each changes is reported by a `status` with
    # `--json` (hooks status, editors status, sync status, web tokens list, doctor).
    "hooks install": "writes the clients' settings (`hooks status --json` reports them)",
    "hooks uninstall": "writes the clients' settings (`hooks status --json` reports them)",
    "tmux install": "writes tmux.conf (`doctor --json` reports it)",
    "tmux uninstall": "writes tmux.conf (`doctor --json` reports it)",
    "editors install": "runs the editor's --install-extension (`editors status --json` reports it)",
    "editors uninstall": "runs the editor's --uninstall-extension (`editors status --json` reports it)",
    "sync set": "writes sync's configuration (`sync status --json` reports it)",
    "sync off": "writes sync's configuration (`sync status --json` reports it)",
    "web tokens revoke": "revokes a token (`web tokens list --json` reports them)",
}

SID = "5e55e55e-0000-4000-8000-00000000000a"
SESSION = f"claude:{SID}"
# Each reporting command as a script runs it (`--json` is added), in an installation holding SESSION.
RUNS = {
    "list": [],
    "counts": [],
    "status": [],
    "next": [],
    "open": [SESSION, "--resume-in", "print"],
    "show": [SESSION],
    "reply": [SESSION, "hello"],
    "answer": [SESSION, "deny"],
    "pin": [SESSION],
    "unpin": [SESSION],
    "hide": [SESSION],
    "unhide": [SESSION],
    "dismiss": [SESSION],
    "undismiss": [SESSION],
    "move": [SESSION, "--before", "claude:bbbb2222"],
    "auto-hide": ["8h"],
    "usage": [],
    "doctor": [],
    "paths": [],
    "hooks status": [],
    "notifications on": [],
    "notifications off": ["stale"],
    "notifications set": ["--no-desktop"],
    "notifications status": [],
    "notifications test": [],
    "notifications push set": ["/nonexistent/apprise.yml"],
    "notifications push off": [],
    "notifications push status": [],
    "notifications push test": [],
    "service status": [],
    "service install": None,  # starts a real service: `service status --json` stands for the pair
    "service uninstall": None,
    "editors status": [],
    "sync status": [],
    "web tokens list": [],
    "web tokens new": ["--no-qr"],
}
# The commands whose `--json` is a stream, one JSON document per line (JSON Lines), as run by a script.
JSON_LINES = {"events": []}


def leaves(command: click.Command, path: tuple[str, ...] = ()) -> dict[str, click.Command]:
    """Every runnable command under `command`, by its words after `lunavect`."""
    if not isinstance(command, click.Group):
        return {" ".join(path): command}
    ctx = click.Context(command)
    found: dict[str, click.Command] = {" ".join(path): command} if command.invoke_without_command and path else {}
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        assert sub is not None
        found |= leaves(sub, (*path, name))
    return found


def takes_json(command: click.Command) -> bool:
    return any("--json" in getattr(param, "opts", ()) for param in command.params)


def test_every_command_reports_as_json_or_says_why_not():
    commands = leaves(cli)
    assert set(NO_REPORT) <= set(commands), set(NO_REPORT) - set(commands)
    without = {name for name, command in commands.items() if not takes_json(command)}
    assert without == set(NO_REPORT), f"without --json: {sorted(without - set(NO_REPORT))}"
    assert set(RUNS) | set(JSON_LINES) == set(commands) - set(NO_REPORT), "every command with --json is run below"


@pytest.fixture
def installed(iso_env):
    """SESSION as its hooks and its transcript tell it (so `show` has messages to print), and a second row."""
    seed_snapshot(iso_env.connect(), a_session("bbbb2222", title="b", project="p", resume="claude --resume bbbb2222"))
    folder = iso_env.claude / "projects" / "-p"
    folder.mkdir(parents=True)
    transcript = folder / f"{SID}.jsonl"
    said = [("user", "hello"), ("assistant", [{"type": "text", "text": "hi"}])]
    lines = [
        {
            "type": role,
            "sessionId": SID,
            "uuid": f"u{n}",
            "timestamp": f"2026-12-03T20:00:0{n}Z",
            "cwd": "/p",
            "message": {"role": role, "content": content},
        }
        for n, (role, content) in enumerate(said)
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for name in ("SessionStart", "UserPromptSubmit", "Stop"):
        payload = {"session_id": SID, "hook_event_name": name, "cwd": "/p", "transcript_path": str(transcript)}
        assert iso_env.hook(payload).returncode == 0
    return iso_env


@pytest.mark.process
@pytest.mark.parametrize("name", [name for name, args in RUNS.items() if args is not None])
def test_every_json_output_parses(installed, name):
    result = installed.cli(*name.split(), *RUNS[name], "--json")
    assert result.returncode in (0, 1), (result.stdout, result.stderr)
    assert result.stdout.strip(), result.stderr
    json.loads(result.stdout)  # one document: a second line of words would not parse


@pytest.mark.process
@pytest.mark.parametrize("name", list(JSON_LINES))
def test_every_json_lines_output_parses_line_by_line(installed, name):
    result = installed.cli(*name.split(), *JSON_LINES[name], "--json")
    assert result.returncode == 0, (result.stdout, result.stderr)
    lines = result.stdout.splitlines()
    assert lines, result.stderr
    for line in lines:
        json.loads(line)  # each line one document
