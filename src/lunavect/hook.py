"""The hook shim: what Claude Code and Codex run for every lifecycle event.

It runs on the agent's hot path, so it must never hurt the agent: it imports only the standard library (and
lunavect's two pure classifiers, themselves standard-library only), prints nothing, always exits 0, never
waits on the collector or a lock, and survives bad input, a full disk and an unwritable data folder.

It keeps only what lunavect needs to decide a state: the event's name, ids, times, tool names, kinds and
counts, and two verdicts computed here from private text (is the closing reply a question; is a background
command a long-lived service). Prompts, replies, commands, tool inputs and outputs never leave this process.
The kept record is appended as one line to the spool, which the collector ingests exactly once.

The installed hook command imports this module with `python -I -S`, which skips `site` and every
third-party import, from its cached bytecode; `lunavect hook claude` runs the same code through the CLI.
Its cost is held to about one bare interpreter start (bench/hook_shim.py), which is why it speaks JSON
through the C accelerator `_json` rather than `json` (whose import pulls in `re`), checks names with string
methods, and imports the classifiers only for the events that need them.
"""

from __future__ import annotations

import os
import sys
import time

if __package__ in (None, ""):
    # Run as a file: make the package's pure classifiers importable without `site`.
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SPOOL_FORMAT = 1
SPOOL_DIR_NAME = "spool"
SPOOL_FILE_NAME = "events.jsonl"

# A larger payload is read to its end (so the agent never sees a broken pipe) but not parsed.
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
# The agent closes stdin at once; this only guards against a writer that never does.
STDIN_DEADLINE_S = 5.0
MAX_ID_CHARS = 200
MAX_PATH_CHARS = 4096
MAX_ANCESTORS = 24

CLIENT_PROCESS_NAMES = {
    "claude": ("claude",),
    "codex": ("codex",),
}

NOTIFICATION_OPEN, NOTIFICATION_CLOSE = "<task-notification>", "</task-notification>"
# The runtime appends a fixed pointer to the output file after a notification; anything else is a person's.
OUTPUT_POINTER = "Read the output file to retrieve the result:"
JSON_WHITESPACE = " \t\n\r"


class _DecodeContext:
    """What `_json.make_scanner` reads from a JSONDecoder: plain types, strict=False like json.loads."""

    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


try:
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner

    _scan = _make_scanner(_DecodeContext)  # type: ignore[arg-type]  # the stub wants a JSONDecoder; its attributes suffice
except ImportError:  # an interpreter without the accelerator: the json module does the same, slower
    import json as _json_module

    _quote = _json_module.encoder.encode_basestring_ascii
    _scan = _json_module.JSONDecoder(strict=False).scan_once  # type: ignore[attr-defined]  # missing from typeshed


def json_loads(text: str) -> object:
    """One JSON document, as json.loads(strict=False) decodes it; ValueError when it is not exactly that.

    The C scanner reports errors through `json.decoder`, which it only finds if something imported it;
    bad input is rare, so only then is the json module imported to decide and explain.
    """
    stripped = text.strip(JSON_WHITESPACE)
    try:
        value, end = _scan(stripped, 0)
        if end == len(stripped):
            return value
    except (StopIteration, SystemError, ValueError):
        pass
    import json

    return json.loads(stripped, strict=False)


def json_dumps(value: object) -> str:
    """Compact ASCII JSON of the spool record's plain types."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else "null"
    if isinstance(value, dict):
        return "{" + ",".join(_quote(str(k)) + ":" + json_dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_dumps(v) for v in value) + "]"
    return _quote(str(value))


def is_long_lived_service(command: str) -> bool:
    from lunavect.core.commands import is_long_lived_service as classify

    return classify(command)


def is_closing_question(text: object) -> bool:
    if not isinstance(text, str):
        return False
    tail = text[-2400:]
    if "?" not in tail and ":\n" not in tail:
        return False  # no question and no lead-in to options near the end: no need to load the classifier
    from lunavect.core.wording import is_closing_question as classify

    return classify(text)


# ---------------------------------------------------------------------------------------------------------
# Where the spool lives. Must agree with lunavect.paths.data_dir(), which uses platformdirs (a unit test
# holds the two together); the shim cannot afford to import platformdirs.


def data_dir(environ: os._Environ[str] | dict[str, str] = os.environ) -> str:
    """The data folder: $LUNAVECT_HOME, or the platform's user data folder."""
    home = environ.get("LUNAVECT_HOME")
    if home:
        return os.path.abspath(os.path.expanduser(home))
    user_home = environ.get("HOME") or os.path.expanduser("~")
    if sys.platform == "darwin":
        return os.path.join(user_home, "Library", "Application Support", "lunavect")
    xdg = environ.get("XDG_DATA_HOME", "").strip()
    if not xdg or not os.path.isabs(xdg):
        xdg = os.path.join(user_home, ".local", "share")
    return os.path.join(xdg, "lunavect")


def spool_path(environ: os._Environ[str] | dict[str, str] = os.environ) -> str:
    return os.path.join(data_dir(environ), SPOOL_DIR_NAME, SPOOL_FILE_NAME)


# ---------------------------------------------------------------------------------------------------------
# Reading stdin without ever blocking for long.


def read_stdin(fd: int = 0, deadline_s: float = STDIN_DEADLINE_S) -> tuple[bytes | None, str | None]:
    """All of stdin, or None with the reason it was not usable."""
    try:
        if os.isatty(fd):
            return None, "stdin-is-a-terminal"
    except OSError:
        return None, "no-stdin"
    import select

    chunks: list[bytes] = []
    size = 0
    too_large = False
    end = time.monotonic() + deadline_s
    while True:
        remaining = end - time.monotonic()
        if remaining <= 0:
            return None, "stdin-timeout"
        try:
            ready, _, _ = select.select([fd], [], [], remaining)
        except (OSError, ValueError):
            ready = [fd]  # Not selectable (a regular file): a plain read cannot block.
        if not ready:
            return None, "stdin-timeout"
        try:
            chunk = os.read(fd, 1 << 20)
        except OSError:
            return None, "stdin-unreadable"
        if not chunk:
            break
        size += len(chunk)
        if size > MAX_PAYLOAD_BYTES:
            too_large = True  # keep draining, drop what was read
            chunks.clear()
        elif not too_large:
            chunks.append(chunk)
    if too_large:
        return None, "payload-too-large"
    if size == 0:
        return None, "empty"
    return b"".join(chunks), None


def parse_payload(raw: bytes) -> tuple[dict | None, str | None]:
    """The event object, or None with the reason. Invalid UTF-8 is replaced, not fatal."""
    text = raw.decode("utf-8", errors="replace")
    try:
        payload = json_loads(text)
    except (ValueError, RecursionError):
        return None, "not-json"
    if not isinstance(payload, dict):
        return None, "not-an-object"
    return payload, None


# ---------------------------------------------------------------------------------------------------------
# Facts about the agent process: pid, start time, tty. Linux reads /proc; elsewhere one `ps` call.
# The /proc readers are public: host/ancestry.py and the Claude files source read processes through them, so
# /proc is parsed in one place (and this module stays standard-library only).


def linux_stat(pid: int) -> tuple[str, int, int, int] | None:
    """(comm, ppid, tty_nr, starttime ticks) of a process, from /proc/<pid>/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode("utf-8", "replace")
    except OSError:
        return None
    open_paren, close_paren = data.find("("), data.rfind(")")
    if open_paren < 0 or close_paren < 0:
        return None
    comm = data[open_paren + 1 : close_paren]
    fields = data[close_paren + 2 :].split()
    try:
        return comm, int(fields[1]), int(fields[4]), int(fields[19])
    except (IndexError, ValueError):
        return None


_BOOT_TIME: float | None = None


def linux_boot_time() -> float | None:
    global _BOOT_TIME
    if _BOOT_TIME is None:
        try:
            with open("/proc/stat", "rb") as f:
                for line in f:
                    if line.startswith(b"btime "):
                        _BOOT_TIME = float(line.split()[1])
                        break
        except (OSError, ValueError):
            return None
    return _BOOT_TIME


def linux_started(start_ticks: int) -> float | None:
    """A process's start in epoch seconds, from its start in clock ticks since boot; None when unknown."""
    boot = linux_boot_time()
    if boot is None:
        return None
    try:
        ticks_per_s = os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return None
    return boot + start_ticks / ticks_per_s


def linux_exe_name(pid: int) -> str:
    """The file name of the process's executable, as /proc/<pid>/exe links it; "" when unreadable."""
    try:
        return os.path.basename(os.readlink(f"/proc/{pid}/exe"))
    except OSError:
        return ""


def linux_tty(pid: int) -> str | None:
    """The process's terminal, from its standard streams' targets."""
    for fd in (0, 1, 2):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("/dev/pts/") or (target.startswith("/dev/tty") and target != "/dev/tty"):
            return target
    return None


def _linux_agent(client: str, start_pid: int) -> dict:
    names = CLIENT_PROCESS_NAMES.get(client, ())
    pid = start_pid
    for _ in range(MAX_ANCESTORS):
        if pid <= 1:
            break
        stat = linux_stat(pid)
        if stat is None:
            break
        comm, ppid, _tty_nr, start_ticks = stat
        if comm in names or linux_exe_name(pid) in names:
            facts: dict = {"pid": pid}
            started = linux_started(start_ticks)
            if started is not None:
                facts["pstart"] = round(started, 2)
            tty = linux_tty(pid)
            if tty:
                facts["tty"] = tty
            return facts
        pid = ppid
    return {}


def _ps_agent(client: str, start_pid: int) -> dict:
    """macOS and other systems: one `ps` call lists every process's parent, name, tty and start."""
    import subprocess

    names = CLIENT_PROCESS_NAMES.get(client, ())
    try:
        out = subprocess.run(
            ["ps", "-A", "-o", "pid=,ppid=,tty=,lstart=,comm="],
            capture_output=True,
            timeout=2,
            check=False,
            env={"LC_ALL": "C", "PATH": "/bin:/usr/bin"},
        ).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        return {}
    table: dict[int, tuple[int, str, str, str]] = {}
    for line in out.splitlines():
        parts = line.split(None, 8)
        if len(parts) < 9:
            continue
        try:
            pid, ppid = int(parts[0]), int(parts[1])
        except ValueError:
            continue
        # lstart is five words: "Sun Nov 29 14:26:34 2026".
        table[pid] = (ppid, parts[2], " ".join(parts[3:8]), parts[8])
    pid = start_pid
    for _ in range(MAX_ANCESTORS):
        entry = table.get(pid)
        if entry is None:
            break
        ppid, tty, lstart, comm = entry
        if os.path.basename(comm) in names:
            facts: dict = {"pid": pid}
            try:
                facts["pstart"] = time.mktime(time.strptime(lstart, "%a %b %d %H:%M:%S %Y"))
            except ValueError:
                pass
            if tty and tty not in ("??", "?", "-"):
                facts["tty"] = tty if tty.startswith("/dev/") else "/dev/" + tty
            return facts
        pid = ppid
    return {}


def agent_process(client: str, start_pid: int | None = None) -> dict:
    """The nearest ancestor that is the agent's own runtime: its pid, start time (epoch s) and tty."""
    start = os.getppid() if start_pid is None else start_pid
    try:
        if sys.platform.startswith("linux"):
            return _linux_agent(client, start)
        return _ps_agent(client, start)
    except Exception:  # noqa: BLE001 - process facts are optional; never fail the event for them
        return {}


# ---------------------------------------------------------------------------------------------------------
# Keeping only what lunavect needs.


def _short(value: object, limit: int = MAX_ID_CHARS) -> str | None:
    if isinstance(value, str) and value and len(value) <= limit:
        return value
    return None


def _name(value: object) -> str | None:
    """An event, tool or kind name: ASCII letters, digits and underscores, starting with a letter."""
    if (
        isinstance(value, str)
        and 0 < len(value) <= 64
        and value.isascii()
        and value[0].isalpha()
        and value.replace("_", "a").isalnum()
    ):
        return value
    return None


def _tag_values(block: str, tag: str) -> list[str]:
    """The stripped texts of every `<tag>…</tag>` in a block."""
    opening, closing = f"<{tag}>", f"</{tag}>"
    values: list[str] = []
    start = 0
    while True:
        begin = block.find(opening, start)
        if begin < 0:
            return values
        end = block.find(closing, begin)
        if end < 0:
            return values
        values.append(block[begin + len(opening) : end].strip())
        start = end + len(closing)


def _notification_blocks(prompt: str) -> tuple[list[str], str]:
    """The inside of every `<task-notification>` block, and the prompt's text outside them."""
    blocks: list[str] = []
    rest: list[str] = []
    start = 0
    while True:
        begin = prompt.find(NOTIFICATION_OPEN, start)
        end = prompt.find(NOTIFICATION_CLOSE, begin) if begin >= 0 else -1
        if begin < 0 or end < 0:
            rest.append(prompt[start:])
            return blocks, "".join(rest)
        rest.append(prompt[start:begin])
        blocks.append(prompt[begin + len(NOTIFICATION_OPEN) : end])
        start = end + len(NOTIFICATION_CLOSE)


def task_notifications(prompt: str) -> tuple[list[dict], bool]:
    """The background tasks a `<task-notification>` prompt reports ended, and whether it is nothing else.

    Each notification names its task ids (and tool-use id) and status: ids and kinds only, never the
    summary or result text.
    """
    ended: list[dict] = []
    blocks, rest = _notification_blocks(prompt)
    for block in blocks:
        statuses = _tag_values(block, "status")
        tool_use_ids = _tag_values(block, "tool-use-id")
        status = _name(statuses[0]) if statuses else None
        tool_use_id = _short(tool_use_ids[0]) if tool_use_ids else None
        task_ids: list[str | None] = [
            t for t in _tag_values(block, "task-id") if t and len(t) <= MAX_ID_CHARS and " " not in t
        ]
        for task_id in task_ids or [None]:
            entry: dict = {}
            if task_id:
                entry["id"] = task_id
            if tool_use_id:
                entry["tool_use_id"] = tool_use_id
            if status:
                entry["status"] = status
            if entry:
                ended.append(entry)
    outside = "\n".join(line for line in rest.splitlines() if not line.strip().startswith(OUTPUT_POINTER))
    only = bool(ended) and not outside.strip()
    return ended, only


BACKGROUND_KINDS = {
    "shell": "shell",
    "local_bash": "shell",
    "bash": "shell",
    "subagent": "agent",
    "agent": "agent",
    "local_agent": "agent",
    "remote_agent": "agent",
    "teammate": "agent",
    "monitor": "monitor",
    "workflow": "workflow",
}


def background_kind(task_type: object) -> str:
    if isinstance(task_type, str):
        return BACKGROUND_KINDS.get(task_type.lower(), "other")
    return "other"


def _background_tasks(tasks: object) -> list[dict]:
    kept: list[dict] = []
    if not isinstance(tasks, list):
        return kept
    for task in tasks[:500]:
        if not isinstance(task, dict):
            continue
        entry: dict = {"kind": background_kind(task.get("type"))}
        task_id = _short(task.get("id"))
        if task_id:
            entry["id"] = task_id
        status = _name(task.get("status"))
        if status:
            entry["status"] = status
        command = task.get("command")
        if isinstance(command, str) and is_long_lived_service(command):
            entry["service"] = True
        kept.append(entry)
    return kept


def _started_background(payload: dict) -> dict | None:
    """The background work a PostToolUse reports it started: its kind and id, never its command."""
    response = payload.get("tool_response")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        tool_input = {}
    tool = payload.get("tool_name")
    if isinstance(response, dict):
        task_id = _short(response.get("backgroundTaskId"))
        if task_id:
            started: dict = {"kind": "shell", "id": task_id}
            command = tool_input.get("command")
            if isinstance(command, str) and is_long_lived_service(command):
                started["service"] = True
            return started
        if response.get("isAsync") is True or response.get("status") == "async_launched":
            agent_id = _short(response.get("agentId"))
            started = {"kind": "agent"}
            if agent_id:
                started["id"] = agent_id
            return started
        monitor_id = _short(response.get("monitorId") or response.get("taskId"))
        if tool == "Monitor" and monitor_id:
            return {"kind": "monitor", "id": monitor_id}
    if tool == "Monitor":
        return {"kind": "monitor"}
    return None


def extract(client: str, payload: dict) -> dict | None:
    """The record lunavect keeps of one hook event, or None when it is not an event."""
    event = _name(payload.get("hook_event_name"))
    if event is None:
        return None
    record: dict = {"event": event}
    for key, field in (
        ("session", "session_id"),
        ("prompt_id", "prompt_id"),
        ("turn_id", "turn_id"),
        ("agent_id", "agent_id"),
        ("tool_use_id", "tool_use_id"),
    ):
        value = _short(payload.get(field))
        if value:
            record[key] = value
    for key, field in (("cwd", "cwd"), ("transcript", "transcript_path")):
        value = _short(payload.get(field), MAX_PATH_CHARS)
        if value:
            record[key] = value
    for key, field in (
        ("tool", "tool_name"),
        ("agent_type", "agent_type"),
        ("source", "source"),
        ("trigger", "trigger"),
        ("reason", "reason"),
        ("ntype", "notification_type"),
        ("mode", "permission_mode"),
    ):
        value = _name(payload.get(field))
        if value:
            record[key] = value
    title = _short(payload.get("session_title"), 300)
    if title:
        record["title"] = title

    if event == "StopFailure":
        error = _name(payload.get("error"))
        record["error"] = error or "unknown"
        message = payload.get("last_assistant_message")
        if isinstance(message, str) and "ECONNREFUSED" in message:
            record["error_detail"] = "ECONNREFUSED"
    if event in ("Stop", "SubagentStop"):
        if "background_tasks" in payload:
            record["bg"] = _background_tasks(payload.get("background_tasks"))
        crons = payload.get("session_crons")
        if isinstance(crons, list):
            record["crons"] = len(crons)
        if event == "Stop" and is_closing_question(payload.get("last_assistant_message")):
            record["question"] = True
        if payload.get("stop_hook_active") is True:
            record["stop_hook_active"] = True
    if event == "PostToolUse":
        started = _started_background(payload)
        if started:
            record["bg_start"] = started
    if event == "PostToolUseFailure" and payload.get("is_interrupt") is True:
        record["interrupt"] = True
    if event == "UserPromptSubmit":
        prompt = payload.get("prompt")
        if isinstance(prompt, str) and NOTIFICATION_OPEN in prompt:
            ended, only = task_notifications(prompt)
            if ended:
                record["bg_end"] = ended
            if only:
                record["notification_only"] = True
    return record


# ---------------------------------------------------------------------------------------------------------
# Writing the spool line.


def _new_id() -> str:
    return os.urandom(12).hex()


def append_line(path: str, record: dict) -> bool:
    """Append one JSON line with a single write(2); True when it was written whole."""
    line = (json_dumps(record) + "\n").encode("ascii")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
    except FileNotFoundError:
        try:
            # makedirs gives only the last folder the mode: create the data folder private first.
            os.makedirs(os.path.dirname(os.path.dirname(path)), mode=0o700, exist_ok=True)
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
        except OSError:
            return False
    except OSError:
        return False
    try:
        return os.write(fd, line) == len(line)
    except OSError:
        return False
    finally:
        os.close(fd)


def handle(
    client: str, raw: bytes | None, read_error: str | None, environ=os.environ, now: float | None = None
) -> dict:
    """Turn stdin into the spool record (an event, or a counted rejection) and append it."""
    received = time.time() if now is None else now
    base = {"v": SPOOL_FORMAT, "id": _new_id(), "client": client, "t": round(received, 6)}
    record: dict | None = None
    reason = read_error
    if raw is not None:
        payload, reason = parse_payload(raw)
        if payload is not None:
            record = extract(client, payload)
            if record is None:
                reason = "no-event-name"
    if record is not None:
        record.update(base)
        record.update(agent_process(client))
    else:
        record = dict(base, rejected=reason or "unknown")
    append_line(spool_path(environ), record)
    return record


def main(argv: list[str] | None = None) -> None:
    """Entry point; never returns normally and never raises: the agent must only ever see exit 0."""
    try:
        args = sys.argv[1:] if argv is None else argv
        client = args[0] if args and args[0] in CLIENT_PROCESS_NAMES else "claude"
        raw, error = read_stdin()
        handle(client, raw, error)
    except BaseException:  # noqa: BLE001 - the agent must never see a failure
        pass
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    os._exit(0)


if __name__ == "__main__":
    main()
