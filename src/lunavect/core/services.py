"""Which background shell commands are long-lived services.

A dev server, a log follower or a tunnel never finishes, so it never wakes Claude again: counting it as
background work would keep a finished session "working" forever (the guide, "Background tasks in Claude").
The hook shim runs this on the command and keeps only the verdict; the command itself is never stored.

The guide's list ends with "and similar", which means what people actually run; `_RULES` is that list, one
row per program, each saying which of its invocations serve, follow or tunnel. A build or a test that merely
has `watch` or `serve` in a path is not one: only the program a segment runs and its arguments decide.

Standard library only, and no `re` or `shlex`: the hook shim runs this on the agent's hot path, where
importing and compiling regular expressions would cost more than the rest of the shim. Commands are read
as words: each segment of a pipeline or list is reduced to its program (past variable assignments and
wrappers such as `sudo`, `npx` or `python -m`) and its arguments.
"""

from __future__ import annotations

# No `typing` or `collections.abc` at run time: importing them would double this module's cost in the shim.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Rule = Callable[[list[str]], bool]

_READ_CHARS = 4096

# Wrappers that run the next word as the program.
_WRAPPERS = {
    "sudo",
    "nohup",
    "env",
    "exec",
    "time",
    "nice",
    "command",
    "npx",
    "bunx",
    "stdbuf",
    "caffeinate",
    "setsid",
    "dotenv",
    "doppler",
    "op",
    "watchexec-run",
    "with-contenv",
}
# Two-word wrappers: `bundle exec x`, `uv run x`, `pnpm dlx x` ...
_WRAPPER_PAIRS = {
    ("bundle", "exec"),
    ("uv", "run"),
    ("poetry", "run"),
    ("pipenv", "run"),
    ("pnpm", "dlx"),
    ("pnpm", "exec"),
    ("yarn", "dlx"),
    ("pdm", "run"),
    ("hatch", "run"),
    ("rye", "run"),
    ("conda", "run"),
    ("mise", "exec"),
    ("foreman", "run"),
    ("doppler", "run"),
    ("iex", "-S"),
}
_PYTHONS = {"python", "python3", "py"}
# Scripts of a package manager (`npm run dev`, `yarn start`) that start a dev server or a watcher.
_SERVER_SCRIPTS = {"dev", "start", "serve", "preview", "watch", "storybook", "develop", "server", "start:dev"}
# Make and task-runner targets with the same meaning (`make serve`, `just dev`).
_SERVER_TARGETS = {"serve", "server", "dev", "watch", "run-server", "runserver"}


def _always(_args: list[str]) -> bool:
    return True


def _first(*words: str) -> Rule:
    """Serves when its first argument is one of `words` (`rails s`, `hugo server`)."""
    return lambda args: bool(args) and args[0] in words


def _short_flag_has(args: list[str], letter: str) -> bool:
    return any(a.startswith("-") and not a.startswith("--") and letter in a[1:] for a in args)


def _flag(long: str, short: str = "") -> Rule:
    """Serves when `--long` or a short-flag cluster holding `short` is given (`tail -F`, `journalctl -fu x`)."""
    return lambda args: long in args or bool(short) and _short_flag_has(args, short)


def _first_unless(words: tuple[str, ...], *detach: str) -> Rule:
    """Serves with one of `words` first, unless told to detach (`symfony serve` vs `symfony serve -d`)."""
    return lambda args: bool(args) and args[0] in words and not any(a in detach for a in args)


_ONLY_PRINTS = {"--help", "-h", "--version", "-v", "-V", "version", "help"}


def _no_args_or_first(*words: str) -> Rule:
    """Serves bare (`air`, `vite --port 3000`) or with one of `words` first; never just to print help."""
    return lambda args: (
        not _ONLY_PRINTS.intersection(args) and (not args or args[0].startswith("-") or args[0] in words)
    )


def _package_manager(args: list[str]) -> bool:
    first = args[0] if args else ""
    script = args[1] if first == "run" and len(args) > 1 else first
    return script in _SERVER_SCRIPTS


def _task_runner(args: list[str]) -> bool:
    targets = [a for a in args if not a.startswith("-") and "=" not in a]
    return bool(targets) and targets[-1] in _SERVER_TARGETS and not _short_flag_has(args, "C")


def _docker(args: list[str]) -> bool:
    first = args[0] if args else ""
    if first == "compose":
        return _compose(args[1:])
    if first == "logs":
        return _flag("--follow", "f")(args[1:])
    if first in ("attach", "events", "stats"):
        return "--no-stream" not in args
    if first == "run":
        published = any(
            a in ("-p", "--publish", "-P", "--publish-all") or a.startswith(("-p", "--publish=")) for a in args[1:]
        )
        return published and not _flag("--detach", "d")(args[1:])
    return False


def _compose(args: list[str]) -> bool:
    first = args[0] if args else ""
    if first == "up":
        return "-d" not in args and "--detach" not in args and "--wait" not in args
    if first == "logs":
        return _flag("--follow", "f")(args[1:])
    return first == "watch"


# kubectl's global flags that take a value: `kubectl -n prod port-forward ...`.
_KUBECTL_VALUE_FLAGS = {"-n", "--namespace", "--context", "--kubeconfig", "--cluster", "--user", "-s", "--server"}


def _kubectl(args: list[str]) -> bool:
    while args and args[0].startswith("-"):
        args = args[2:] if args[0] in _KUBECTL_VALUE_FLAGS else args[1:]
    first = args[0] if args else ""
    if first in ("port-forward", "proxy"):
        return True
    if first in ("logs", "get", "events"):
        return _flag("--follow", "f")(args[1:]) if first == "logs" else _flag("--watch", "w")(args[1:])
    return False


def _ssh(args: list[str]) -> bool:
    return _short_flag_has(args, "N")


def _php(args: list[str]) -> bool:
    return "-S" in args or args[:2] == ["artisan", "serve"] or args[:2] == ["artisan", "queue:work"]


def _python_module_server(args: list[str]) -> bool:
    return not any(a in ("--help", "--version") for a in args)


def _tsc_like(args: list[str]) -> bool:
    return "-w" in args or "--watch" in args


def _cargo(args: list[str]) -> bool:
    return bool(args) and (args[0] == "watch" or args[0] == "leptos" and args[1:2] == ["watch"])


def _dotnet(args: list[str]) -> bool:
    return bool(args) and args[0] == "watch"


def _deno(args: list[str]) -> bool:
    return "--watch" in args or args[:2] in (["task", "dev"], ["task", "start"], ["task", "serve"])


def _node(args: list[str]) -> bool:
    return "--watch" in args or any(a.startswith("--watch-path") for a in args)


def _nc(args: list[str]) -> bool:
    return _short_flag_has(args, "l")


def _socat(args: list[str]) -> bool:
    return any("LISTEN" in a.upper() for a in args)


def _celery(args: list[str]) -> bool:
    return any(a in ("worker", "beat", "flower") for a in args)


# One row per program: does this invocation serve, follow or tunnel until it is stopped?
_RULES: dict[str, Rule] = {
    # Python web servers and notebooks
    **dict.fromkeys(("uvicorn", "gunicorn", "hypercorn", "daphne", "waitress-serve", "granian"), _always),
    "http.server": _python_module_server,
    "flask": _first("run"),
    "manage.py": _first("runserver", "runserver_plus", "runworker"),
    "django-admin": _first("runserver"),
    "fastapi": _first("dev", "run"),
    "streamlit": _first("run"),
    "jupyter": _first("lab", "notebook", "server"),
    "jupyter-lab": _always,
    "mkdocs": _first("serve"),
    "sphinx-autobuild": _always,
    "celery": _celery,
    "rq": _first("worker"),
    # Ruby, PHP, Elixir, Go, Rust, .NET
    "rails": _first("s", "server"),
    "bin/rails": _first("s", "server"),
    "dev": _no_args_or_first(),  # bin/dev (foreman with Procfile.dev)
    "foreman": _first("start"),
    "overmind": _first("start", "s"),
    "jekyll": _first("serve", "s", "server"),
    "sidekiq": _always,
    "puma": _always,
    "rackup": _always,
    "php": _php,
    "artisan": _first("serve", "queue:work"),
    "symfony": _first_unless(("serve", "server:start", "local:server:start"), "-d", "--daemon"),
    "mix": lambda args: args[:1] == ["phx.server"] or args[:1] == ["run"] and "--no-halt" in args,
    "air": _no_args_or_first(),
    "reflex": _always,
    "cargo": _cargo,
    "trunk": _first("serve", "watch"),
    "dotnet": _dotnet,
    "hugo": _first("server", "serve"),
    "zola": _first("serve"),
    # JavaScript: frameworks, bundlers, static servers, watchers
    **dict.fromkeys(("npm", "pnpm", "yarn"), _package_manager),
    "bun": lambda args: "--watch" in args or "--hot" in args or _package_manager(args),
    "deno": _deno,
    "node": _node,
    "vite": _no_args_or_first("dev", "serve", "preview"),
    "next": _first("dev", "start"),
    "nuxt": _first("dev", "start", "preview"),
    "nuxi": _first("dev", "preview"),
    "astro": _first("dev", "preview"),
    "remix": _first("dev"),
    "ng": _first("serve", "s"),
    "gatsby": _first("develop", "serve"),
    "storybook": _first("dev"),
    "start-storybook": _always,
    "ember": _first("serve", "s"),
    "vue-cli-service": _first("serve"),
    "expo": _first("start"),
    "react-native": _first("start"),
    "webpack": lambda args: args[:1] == ["serve"] or _tsc_like(args),
    "webpack-dev-server": _always,
    "parcel": lambda args: not args or args[0] not in ("build", "--version", "--help"),
    "wrangler": _first("dev"),
    "netlify": _first("dev"),
    "vercel": _first("dev"),
    "firebase": _first("serve", "emulators:start"),
    "eleventy": lambda args: "--serve" in args or "--watch" in args,
    **dict.fromkeys(("tsc", "rollup", "esbuild", "sass", "tailwindcss", "babel", "swc"), _tsc_like),
    **dict.fromkeys(("nodemon", "ts-node-dev", "live-server", "http-server", "serve", "browser-sync"), _always),
    "tsx": _first("watch"),
    # Tunnels and port forwards
    **dict.fromkeys(("ngrok", "localtunnel", "autossh", "sshuttle"), _always),
    "cloudflared": _first("tunnel", "access"),
    "lt": _flag("--port"),
    "ssh": _ssh,
    "kubectl": _kubectl,
    "minikube": _first("tunnel", "dashboard", "mount"),
    "tailscale": _first("funnel", "serve"),
    "nc": _nc,
    "ncat": _nc,
    "socat": _socat,
    # Containers
    "docker": _docker,
    "docker-compose": _compose,
    "podman": _docker,
    "podman-compose": _compose,
    # Followers and watchers
    "tail": lambda args: _flag("--follow", "f")(args) or _short_flag_has(args, "F"),
    "journalctl": _flag("--follow", "f"),
    "log": _first("stream"),
    "stern": _always,
    "adb": _first("logcat"),
    "less": lambda args: "+F" in args,
    **dict.fromkeys(
        ("watch", "watchexec", "entr", "fswatch", "inotifywait"),
        lambda args: "-1" not in args and "--one-event" not in args,
    ),
    "sleep": _first("infinity", "inf"),
    # Databases and brokers run in the foreground
    **dict.fromkeys(
        ("redis-server", "mongod", "postgres", "mailhog", "mailpit", "minio", "caddy", "nats-server"), _always
    ),
    # Task runners with a serving target
    **dict.fromkeys(("make", "just", "task", "invoke"), _task_runner),
}

# Test runners whose `--watch` (or `-w`) keeps them running.
_WATCH_FLAG_PROGRAMS = {"jest", "vitest", "mocha", "pytest", "ptw", "karma", "ava"}


def _segments(command: str) -> list[str]:
    for separator in ("&&", "||", ";", "|", "\n", " & "):
        command = command.replace(separator, "\0")
    return [segment.strip() for segment in command.split("\0") if segment.strip()]


def _words(segment: str) -> list[str]:
    return [word.strip("'\"()") for word in segment.split() if word.strip("'\"()")]


def _is_assignment(word: str) -> bool:
    name, equals, _value = word.partition("=")
    return bool(equals) and bool(name) and name.replace("_", "a").isalnum() and not name[0].isdigit()


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
        if word.endswith("bin/rails"):
            return "bin/rails", words[index + 1 :]
        return name, words[index + 1 :]
    return "", []


def _serves(program: str, args: list[str]) -> bool:
    rule = _RULES.get(program)
    if rule is not None:
        return rule(args)
    if program in _WATCH_FLAG_PROGRAMS and ("-w" in args or "--watchAll" in args):
        return True
    return any(a == "--watch" or a.startswith("--watch=") or a == "--watchAll" for a in args)


def is_long_lived_service(command: str) -> bool:
    """True when a background command is a server, follower or tunnel that never finishes on its own."""
    if not command:
        return False
    for segment in _segments(command[:_READ_CHARS]):
        program, args = _program(_words(segment))
        if program and _serves(program, args):
            return True
    return False
