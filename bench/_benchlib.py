"""Helpers shared by the scripts in bench/ (standard library only).

Benchmarks are not tests: they are run by hand and read as ratios against a baseline measured side by side,
in the same process, interleaved round-robin, so that drift of the machine cancels out.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import platform
import shlex
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(REPO, "src")
ISOLATED_VARS = ("HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "LUNAVECT_HOME")


# -- isolation ----------------------------------------------------------------------------------------------


def compile_tree(src: str) -> None:
    """Write the bytecode of every module under `src`, as an installation has it (pip compiles at install).

    Without it a checkout run with PYTHONDONTWRITEBYTECODE set (as on a build machine) compiles every module it
    imports from source in every process: a quick command then measures the compiler (about 60 ms of `list
    --json`'s), not lunavect. Existing bytecode is read whatever that variable says."""
    import compileall

    compileall.compile_dir(src, quiet=1, workers=1)


def home_folders(root: str) -> dict[str, str]:
    """The ISOLATED_VARS of one machine's home under `root`, made: a bench that plays several hosts gives
    each its own, laid out as the first."""
    values = {
        "HOME": os.path.join(root, "home"),
        "CLAUDE_CONFIG_DIR": os.path.join(root, "home", ".claude"),
        "CODEX_HOME": os.path.join(root, "home", ".codex"),
        "LUNAVECT_HOME": os.path.join(root, "lunavect"),
    }
    for path in values.values():
        os.makedirs(path, mode=0o700, exist_ok=True)
    return values


@contextlib.contextmanager
def isolated_home(prefix: str) -> Iterator[dict[str, str]]:
    """A temporary HOME, CLAUDE_CONFIG_DIR, CODEX_HOME and LUNAVECT_HOME, set in os.environ (so lunavect
    code run in this process sees them) and returned as the environment for child processes. The folder
    is deleted on exit, and os.environ restored."""
    root = tempfile.mkdtemp(prefix=prefix)
    saved = {k: os.environ.get(k) for k in ISOLATED_VARS + ("XDG_DATA_HOME",)}
    os.environ.update(home_folders(root))
    os.environ.pop("XDG_DATA_HOME", None)
    try:
        yield dict(os.environ)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)


def installed_hook_command() -> str:
    """The command `lunavect hooks install` writes into (the temporary) CLAUDE_CONFIG_DIR for PreToolUse."""
    import json

    from lunavect.clients.claude import install

    assert os.environ["CLAUDE_CONFIG_DIR"].startswith(tempfile.gettempdir()), "refusing a real Claude folder"
    install.install()
    settings = json.loads(install.settings_path().read_text())
    for group in settings["hooks"]["PreToolUse"]:
        for handler in group["hooks"]:
            if install.is_ours(handler):
                return handler["command"]
    raise RuntimeError("lunavect hooks install wrote no PreToolUse command")


@dataclass
class AgentHome:
    env: dict[str, str]  # the isolated environment, for child processes
    command: str  # the installed hook command, as written into the settings
    shim: list[str]  # the same, split for spawning
    named: bool  # this process is named `claude`, so the shim finds it as the live agent
    out_path: str  # where the children's stdout and stderr go: the shim must print nothing
    out_fd: int


@contextlib.contextmanager
def agent_home(prefix: str, *, named: bool = True, extra_env: dict[str, str] | None = None) -> Iterator[AgentHome]:
    """An isolated home (see isolated_home) with lunavect's hooks installed, this process named `claude` unless
    `named` is False, and `extra_env` (a desktop bus, say) set in it and in os.environ before anything starts."""
    with isolated_home(prefix) as env:
        if extra_env:
            env.update(extra_env)
            os.environ.update(extra_env)
        is_named = set_process_name("claude") if named else False
        command = installed_hook_command()
        out_path = os.path.join(env["LUNAVECT_HOME"], "children.out")
        out_fd = os.open(out_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            yield AgentHome(env, command, shlex.split(command), is_named, out_path, out_fd)
        finally:
            os.close(out_fd)


def hook_payload(event: str, session_id: str, home: str) -> dict:
    """The fields Claude Code sends with every hook event (FACTS.md "Claude Code hooks"), for a session in
    `home`; each event adds its own fields to these."""
    cwd = "/home/user/projects/my-project"
    return {
        "session_id": session_id,
        "transcript_path": f"{home}/.claude/projects/-home-user-projects-my-project/{session_id}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "prompt_id": "550e8400-e29b-41d4-a716-446655440000",
        "effort": {"level": "high"},
        "hook_event_name": event,
    }


def iso_ms(t: float) -> str:
    """A time as the clients' records write it: UTC, milliseconds, a Z."""
    import datetime as dt

    return dt.datetime.fromtimestamp(t, dt.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def set_process_name(name: str) -> bool:
    """Rename this process (its /proc comm) so that a hook shim it spawns finds it as the agent, as it finds
    Claude Code in real use. Linux only; returns False elsewhere."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        PR_SET_NAME = 15
        return libc.prctl(PR_SET_NAME, name.encode()[:15], 0, 0, 0) == 0
    except OSError:
        return False


# -- running one child the way an agent runs a hook ------------------------------------------------------------


@dataclass
class Run:
    wall_s: float
    cpu_s: float  # the child's user + system time
    status: int
    peak_mb: float = 0.0  # the child's peak RSS


def run_timed(argv: list[str], env: dict[str, str]) -> Run:
    """Run argv (its output discarded) and measure it as a child of its own: `wait4` gives its rusage."""
    import subprocess

    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    wall = time.perf_counter() - start
    return Run(wall, usage.ru_utime + usage.ru_stime, proc.returncode, usage.ru_maxrss / 1024)


def spawn_timed(argv: list[str], payload: bytes, env: dict[str, str], out_fd: int) -> Run:
    """Run argv with `payload` written to its stdin through a pipe (then closed), as Claude Code does, and
    stdout/stderr to out_fd; wall time from spawn to reaped exit."""
    read_end, write_end = os.pipe()  # both close-on-exec; the child gets read_end as fd 0 via dup2
    actions = [
        (os.POSIX_SPAWN_DUP2, read_end, 0),
        (os.POSIX_SPAWN_DUP2, out_fd, 1),
        (os.POSIX_SPAWN_DUP2, out_fd, 2),
    ]
    start = time.perf_counter()
    try:
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    finally:
        os.close(read_end)
    try:
        view = memoryview(payload)
        while view:
            written = os.write(write_end, view)
            view = view[written:]
    except BrokenPipeError:
        pass  # a child that does not read stdin (the baselines) exits without draining it
    finally:
        os.close(write_end)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    return Run(wall, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status))


def resolve(argv: list[str]) -> list[str]:
    """argv with its program resolved on PATH (posix_spawn does not search PATH)."""
    program = argv[0] if os.sep in argv[0] else shutil.which(argv[0])
    if program is None:
        raise FileNotFoundError(argv[0])
    return [program, *argv[1:]]


def thread_cpu_s(pid: int) -> float:
    """Seconds on a CPU of every live thread of `pid`, in nanosecond resolution (/proc/<pid>/task/*/schedstat):
    a process's user+system times count whole clock ticks, too coarse for an idle process. (A thread that has
    ended no longer counts: for a long window of a busy process, read its process times.)"""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue  # a thread that just ended
    return total / 1e9


# -- figures ---------------------------------------------------------------------------------------------------


def p90(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=10, method="inclusive")[8]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f}"


def md_table(headers: list[str], rows: list[list[str]], align: str | None = None) -> str:
    """A Markdown table; `align` is one character per column: l or r."""
    align = align or "l" + "r" * (len(headers) - 1)
    rule = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(headers) + " |", "| " + " | ".join(rule) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _interpreter() -> str:
    """The interpreter's path, relative to the checkout when it lies inside it: a figure names no machine's
    folders."""
    path = os.path.abspath(sys.executable)
    return os.path.relpath(path, REPO) if path.startswith(REPO + os.sep) else os.path.basename(path)


def shared_data() -> Path:
    """The real transcripts and rollouts of `shared/data`: where $LUNAVECT_SHARED_DATA points, or a
    `shared/data` folder beside the checkout or beside any folder above it."""
    if os.environ.get("LUNAVECT_SHARED_DATA"):
        return Path(os.environ["LUNAVECT_SHARED_DATA"])
    for folder in Path(REPO).parents:
        if (folder / "shared" / "data").is_dir():
            return folder / "shared" / "data"
    return Path(REPO).parent / "shared" / "data"


def machine_line() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        cpu = platform.processor() or cpu
    try:
        load = "load {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        load = "load ?"
    return (
        f"{len(os.sched_getaffinity(0))} CPUs ({cpu}), {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()} ({_interpreter()}), {load}"
    )
