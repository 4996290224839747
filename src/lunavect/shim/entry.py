"""The hook shim's entry point: one event on stdin becomes one spool line, and the agent sees exit 0.

The installed hook command imports this module with `python -I -S -c`, which skips `site` and every
third-party import, from its cached bytecode; `lunavect hook claude` runs the same code through the CLI,
and `python -I -S <path>/lunavect/shim/entry.py claude` runs it as a file. Its cost is held to about one
bare interpreter start (bench/hook_shim.py): it speaks to the system through `posix`, not `os` (whose
import costs a tenth of that start), and imports `select` only when stdin is not ready at once.

Nothing else in lunavect imports this module: the parts it puts together are the package's other modules.
"""

from __future__ import annotations

import posix
import sys
import time

if __package__ in (None, ""):
    # Run as a file: make the package importable without `site`.
    import os

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from lunavect.core.clients import CLAUDE, by_id  # noqa: E402
from lunavect.shim.jsoncodec import json_loads  # noqa: E402
from lunavect.shim.payload import extract  # noqa: E402
from lunavect.shim.procfacts import agent_process  # noqa: E402
from lunavect.shim.spoolfile import SPOOL_FORMAT, append_record, new_id, spool_path  # noqa: E402

TYPE_CHECKING = False  # typing's own flag costs an import; type checkers treat this name alike
if TYPE_CHECKING:
    from collections.abc import Mapping

# A larger payload is read to its end (so the agent never sees a broken pipe) but not parsed.
MAX_PAYLOAD_BYTES = 64 * 1024 * 1024
# The agent closes stdin at once; this only guards against a writer that never does.
STDIN_DEADLINE_S = 5.0


def read_stdin(fd: int = 0, deadline_s: float = STDIN_DEADLINE_S) -> tuple[bytes | None, str | None]:
    """All of stdin, or None with the reason it was not usable.

    The agent has usually written the whole event and closed the pipe before this interpreter is up, so
    stdin is first read without blocking; only when no data is there yet is `select` imported to wait
    (its import is a measurable share of the shim's cost).
    """
    try:
        if posix.isatty(fd):
            return None, "stdin-is-a-terminal"
    except OSError:
        return None, "no-stdin"
    try:
        was_blocking = posix.get_blocking(fd)
        if was_blocking:
            posix.set_blocking(fd, False)
    except OSError:
        was_blocking = False  # cannot tell or change: select decides before each read
    try:
        return _read_all(fd, deadline_s, may_read_at_once=was_blocking)
    finally:
        if was_blocking:
            try:
                posix.set_blocking(fd, True)  # the pipe may be shared with the shell that ran this command
            except OSError:
                pass


def _read_all(fd: int, deadline_s: float, may_read_at_once: bool) -> tuple[bytes | None, str | None]:
    chunks: list[bytes] = []
    size = 0
    too_large = False
    end = time.monotonic() + deadline_s
    while True:
        chunk: bytes | None = None
        if may_read_at_once:
            try:
                chunk = posix.read(fd, 1 << 20)
            except BlockingIOError:
                chunk = None  # nothing there yet: wait below
            except OSError:
                return None, "stdin-unreadable"
        if chunk is None:
            remaining = end - time.monotonic()
            if remaining <= 0:
                return None, "stdin-timeout"
            import select

            try:
                ready, _, _ = select.select([fd], [], [], remaining)
            except (OSError, ValueError):
                ready = [fd]  # Not selectable (a regular file): a plain read cannot block.
            if not ready:
                return None, "stdin-timeout"
            try:
                chunk = posix.read(fd, 1 << 20)
            except BlockingIOError:
                continue  # woken without data (a spurious wake-up): wait again
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


def handle(
    client: str,
    raw: bytes | None,
    read_error: str | None,
    environ: Mapping[str, str] | None = None,
    now: float | None = None,
    installed_for: str | None = None,
) -> dict:
    """Turn stdin into the spool record (an event, or a counted rejection) and append it. `installed_for`: the
    event the hook entry names after the client (`lunavect hook <client> <event>`), for a client whose payloads
    do not name it."""
    received = time.time() if now is None else now
    base = {"v": SPOOL_FORMAT, "id": new_id(), "client": client, "t": round(received, 6)}
    record: dict | None = None
    reason = read_error
    if raw is not None:
        payload, reason = parse_payload(raw)
        if payload is not None:
            record = extract(client, payload, installed_for)
            if record is None:
                reason = "no-event-name"
    if record is not None:
        record.update(base)
        record.update(agent_process(client))
    else:
        record = dict(base, rejected=reason or "unknown")
    append_record(spool_path(environ), record)
    return record


def main(argv: list[str] | None = None) -> None:
    """Entry point; never returns normally and never raises: the agent must only ever see exit 0."""
    try:
        args = sys.argv[1:] if argv is None else argv
        # The hook commands of earlier versions name no client: those were Claude Code's.
        client = args[0] if args and by_id(args[0]) is not None else CLAUDE.id
        raw, error = read_stdin()
        handle(client, raw, error, installed_for=args[1] if len(args) > 1 else None)
    except BaseException:  # noqa: BLE001 - the agent must never see a failure
        pass
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001
        pass
    posix._exit(0)


if __name__ == "__main__":
    main()
