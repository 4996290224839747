"""iTerm2 and Terminal on macOS: select the tab on the agent's terminal device with AppleScript.

The script never launches the app (it asks `is running` first, which does not start it), selects a tab only
when exactly one live tab has the device (Terminal keeps tabs open after their process exits and macOS may
reuse their device), and answers with one word the caller maps to a distinct outcome. macOS asks the person
once for permission to control each app; a refusal is error -1743.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from lunavect.navigation.open_result import OpenResult, Outcome
from lunavect.navigation.terminals.runner import REQUEST_TIMEOUT_S, Reply, run

GRANT = "System Settings → Privacy & Security → Automation: allow lunavect's terminal to control {app}"
ITERM2 = ("iTerm2", "com.googlecode.iterm2")
TERMINAL = ("Terminal", "com.apple.Terminal")

_TTY_RE = re.compile(r"^/dev/[A-Za-z0-9]+$")


class UnsafeDevice(ValueError):
    """A device name that cannot be put into a script as it is."""


def _checked(tty: str) -> str:
    if not _TTY_RE.match(tty):
        raise UnsafeDevice(tty)
    return tty


def _select_one_script(app_id: str, collect: str, hit: str, select: str) -> str:
    """The script both apps run: `collect` gathers every candidate into `hits`, each a list of the names in
    `hit`; only exactly one is selected (with `select`) and brought to the front. The answer is one word."""
    timeout = int(REQUEST_TIMEOUT_S)
    return f'''with timeout of {timeout} seconds
if application id "{app_id}" is not running then return "not-running"
tell application id "{app_id}"
  set hits to {{}}
{collect}
  if (count of hits) is 0 then return "missing"
  if (count of hits) > 1 then return "ambiguous " & (count of hits)
  set {{{hit}}} to item 1 of hits
{select}
  activate
  return "focused"
end tell
end timeout'''


def iterm2_script(tty: str) -> str:
    """Select the one iTerm2 session on `tty` and bring its window to the front."""
    device = _checked(tty)
    collect = f'''  repeat with w in windows
    repeat with t in tabs of w
      repeat with s in sessions of t
        if tty of s is "{device}" then set end of hits to {{w, t, s}}
      end repeat
    end repeat
  end repeat'''
    select = """  select w
  tell t to select
  tell s to select"""
    return _select_one_script(ITERM2[1], collect, "w, t, s", select)


def terminal_script(tty: str) -> str:
    """Select the one Terminal tab on `tty` that still runs a process, and bring its window to the front."""
    device = _checked(tty)
    collect = f'''  repeat with w in windows
    repeat with t in tabs of w
      if tty of t is "{device}" and (count of processes of t) > 0 then set end of hits to {{w, t}}
    end repeat
  end repeat'''
    select = """  set selected of t to true
  set index of w to 1"""
    return _select_one_script(TERMINAL[1], collect, "w, t", select)


def osascript_argv(script: str) -> list[str]:
    return ["osascript", "-e", script]


def resume_script(shell_command: str) -> str:
    """Open `shell_command` in a new Terminal window (the guide: a finished session resumes through Terminal)."""
    quoted = shell_command.replace("\\", "\\\\").replace('"', '\\"')
    return f'''with timeout of {int(REQUEST_TIMEOUT_S)} seconds
tell application id "{TERMINAL[1]}"
  do script "{quoted}"
  activate
end tell
end timeout'''


def interpret(app: str, tty: str, reply: Reply) -> OpenResult:
    """The outcome of one AppleScript request."""
    grant = GRANT.format(app=app)
    if reply.failure == "missing":
        return OpenResult(Outcome.UNSUPPORTED, "osascript is not available", terminal=app)
    if reply.failure == "timeout":
        return OpenResult(Outcome.TIMEOUT, f"{app} did not answer within 10 s", terminal=app, target=tty)
    if not reply.ok:
        text = reply.stderr + reply.stdout
        if "-1743" in text or "Not authorized" in text or "not allowed" in text.lower():
            return OpenResult(Outcome.PERMISSION, f"macOS did not allow controlling {app}", terminal=app, grant=grant)
        if "-1712" in text or "timed out" in text.lower():
            return OpenResult(Outcome.TIMEOUT, f"{app} did not answer within 10 s", terminal=app, target=tty)
        return OpenResult(Outcome.FAILED, f"{app}: {reply.error_line}", terminal=app, target=tty)
    word = reply.stdout.strip()
    if word == "focused":
        return OpenResult(Outcome.FOCUSED, f"the {app} tab on {tty} is in front", terminal=app, target=tty)
    if word == "not-running":
        return OpenResult(Outcome.GONE, f"{app} is not running (lunavect does not launch it)", terminal=app)
    if word == "missing":
        return OpenResult(Outcome.GONE, f"no {app} tab runs on {tty} any more", terminal=app, target=tty)
    if word.startswith("ambiguous"):
        return OpenResult(
            Outcome.AMBIGUOUS, f"several {app} tabs report {tty}", terminal=app, target=tty, candidates=(word,)
        )
    return OpenResult(Outcome.FAILED, f"{app} answered {word!r}", terminal=app, target=tty)


def focus(app: str, tty: str, runner: Callable[[list[str]], Reply] = run) -> OpenResult:
    try:
        script = iterm2_script(tty) if app == ITERM2[0] else terminal_script(tty)
    except UnsafeDevice:
        return OpenResult(Outcome.FAILED, f"unexpected terminal device name {tty!r}", terminal=app)
    return interpret(app, tty, runner(osascript_argv(script)))
