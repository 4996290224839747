"""Which background shell commands are long-lived services.

A dev server, a log follower or a tunnel never finishes, so it never wakes Claude again: counting it as
background work would keep a finished session "working" forever (the guide, "Background tasks in Claude").
The hook shim runs this on the command and keeps only the verdict; the command itself is never stored.

Standard library only, and no `re` or `shlex`: the hook shim runs this on the agent's hot path, where
importing and compiling regular expressions would cost more than the rest of the shim. Commands are read
as words: each segment of a pipeline or list is reduced to its program (past variable assignments and
wrappers such as `sudo`, `npx` or `python -m`) and its arguments.
"""

from __future__ import annotations

_READ_CHARS = 4096

# Wrappers that run the next word as the program.
_WRAPPERS = {"sudo", "nohup", "env", "exec", "time", "nice", "command", "npx", "bunx", "stdbuf", "caffeinate"}
# Two-word wrappers: `bundle exec x`, `uv run x`, `pnpm dlx x` ...
_WRAPPER_PAIRS = {
    ("bundle", "exec"),
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pnpm", "dlx"),
    ("pnpm", "exec"),
    ("yarn", "dlx"),
}
_PYTHONS = {"python", "python3", "py"}
_PACKAGE_MANAGERS = {"npm", "pnpm", "yarn", "bun"}
_SERVER_SCRIPTS = {"dev", "start", "serve", "preview", "watch"}
# Programs that serve or follow whatever their arguments.
_ALWAYS = {
    "uvicorn",
    "gunicorn",
    "hypercorn",
    "http.server",
    "nodemon",
    "http-server",
    "live-server",
    "webpack-dev-server",
    "ngrok",
    "cloudflared",
    "localtunnel",
    "watch",
    "serve",
}
# Programs that serve when their first argument is one of these.
_SUBCOMMANDS = {
    "next": {"dev", "start"},
    "nuxt": {"dev"},
    "astro": {"dev"},
    "ng": {"serve"},
    "webpack": {"serve"},
    "flask": {"run"},
    "jupyter": {"lab", "notebook"},
    "mkdocs": {"serve"},
    "jekyll": {"serve"},
    "hugo": {"server", "serve"},
    "rails": {"s", "server"},
    "cargo": {"watch"},
    "kubectl": {"port-forward"},
}
# Watchers whose `-w` flag means "watch".
_WATCH_FLAG_PROGRAMS = {
    "tsc",
    "webpack",
    "rollup",
    "esbuild",
    "sass",
    "tailwindcss",
    "jest",
    "vitest",
    "mocha",
    "babel",
}


def _segments(command: str) -> list[str]:
    for separator in ("&&", "||", ";", "|", "\n"):
        command = command.replace(separator, "\0")
    return [segment.strip() for segment in command.split("\0") if segment.strip()]


def _words(segment: str) -> list[str]:
    return [word.strip("'\"") for word in segment.split() if word.strip("'\"")]


def _is_assignment(word: str) -> bool:
    name, equals, _value = word.partition("=")
    return bool(equals) and name.replace("_", "a").isalnum() and not name[0].isdigit()


def _program(words: list[str]) -> tuple[str, list[str]]:
    """The program a segment really runs and its arguments."""
    index = 0
    after_wrapper = False
    while index < len(words):
        word = words[index]
        name = word.rsplit("/", 1)[-1]
        if _is_assignment(word) or name in _WRAPPERS or (after_wrapper and word.startswith("-")):
            after_wrapper = after_wrapper or name in _WRAPPERS
            index += 1
            continue
        if index + 1 < len(words) and (name, words[index + 1]) in _WRAPPER_PAIRS:
            index += 2
            continue
        if name in _PYTHONS or name.startswith("python3."):
            rest = words[index + 1 :]
            if len(rest) >= 2 and rest[0] == "-m":
                return rest[1], rest[2:]
            if rest and not rest[0].startswith("-"):
                return rest[0].rsplit("/", 1)[-1], rest[1:]
        return name, words[index + 1 :]
    return "", []


def _short_flag_has(args: list[str], letter: str) -> bool:
    return any(a.startswith("-") and not a.startswith("--") and letter in a[1:] for a in args)


def _serves(program: str, args: list[str]) -> bool:
    first = args[0] if args else ""
    if program in _ALWAYS:
        return True
    if program in _PACKAGE_MANAGERS:
        script = args[1] if first == "run" and len(args) > 1 else first
        return script in _SERVER_SCRIPTS
    if program == "vite":
        return "build" not in args and "optimize" not in args
    if program in _SUBCOMMANDS and first in _SUBCOMMANDS[program]:
        return True
    if program == "manage.py":
        return first == "runserver"
    if program == "php":
        return "-S" in args
    if program == "air":
        return not args
    if program == "sleep":
        return first == "infinity"
    if program == "lt":
        return "--port" in args
    if program == "log":
        return first == "stream"
    if program == "tail":
        return "--follow" in args or _short_flag_has(args, "f") or _short_flag_has(args, "F")
    if program == "journalctl":
        return "--follow" in args or _short_flag_has(args, "f")
    if program in ("kubectl", "docker", "docker-compose"):
        rest = args[1:] if program == "docker" and first == "compose" else args
        if rest[:1] == ["logs"]:
            return "--follow" in rest or _short_flag_has(rest[1:], "f")
        if program != "kubectl" and (program == "docker-compose" or first == "compose") and rest[:1] == ["up"]:
            return "-d" not in rest and "--detach" not in rest
        return False
    if program == "ssh":
        return _short_flag_has(args, "N")
    if any(a in ("--watch", "--watchAll") or a.startswith("--watch=") for a in args):
        return True
    return program in _WATCH_FLAG_PROGRAMS and args[-1:] == ["-w"]


def is_long_lived_service(command: str) -> bool:
    """True when a background command is a server, follower or tunnel that never finishes on its own."""
    if not command:
        return False
    for segment in _segments(command[:_READ_CHARS]):
        program, args = _program(_words(segment))
        if program and _serves(program, args):
            return True
    return False
