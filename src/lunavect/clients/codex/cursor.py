"""The Codex lifecycle cursor: where a rollout's latest turn stands, read incrementally.

A rollout can grow to gigabytes, so a refresh must cost what was appended, not what the file holds. The cursor
keeps the byte offset just past the last complete line it read, and a short mark of the bytes before it; each
sample reads only what was appended since, and answers what a fresh scan of the whole file would answer:

- a line still being written (no newline yet) answers this sample but is read whole next time;
- a replaced file, one shorter than the offset, or one rewritten in place (the marks `lunavect.files.tail` checks)
  is scanned again from its start;
- the latest lifecycle boundary (`task_started`, `task_complete`, `turn_aborted`) is searched backwards in 1 MB
  blocks with an overlap, stopping at the first one found;
- at most the newest 8 MB of what was appended are searched at once. When they hold no boundary, older bytes are
  searched in bounded chunks over the next samples ("restart recovery"): meanwhile the open turn is known from
  the turn id its records carry, and its exact start returns only from a `task_started` of that same turn id,
  never from another response's.

The cursor owns no file: every sample opens the rollout read-only and closes it before returning. Its state is a
small msgspec struct the collector stores, so a restart continues where it stopped.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import msgspec

from lunavect.clients.codex.cursor_state import Boundary, CursorState, ToolMark
from lunavect.core import lenient_json
from lunavect.core.bounds import http_status
from lunavect.core.times import bounded, epoch
from lunavect.files.tail import TailFile, open_regular

BLOCK_BYTES = 1024 * 1024
# A backward search reads this much first (more than the overlap), then whole blocks: a boundary is nearly
# always within a rollout's last few KB.
FIRST_BLOCK_BYTES = 256 * 1024
OVERLAP_BYTES = 64 * 1024
TAIL_BYTES = 64 * 1024
WINDOW_BYTES = 8 * 1024 * 1024
RECOVERY_BYTES = 8 * 1024 * 1024

BOUNDARIES = frozenset({"task_started", "task_complete", "turn_aborted"})
# Aliases newer builds may write for the same boundaries.
_BOUNDARY_ALIASES = {"turn_started": "task_started", "turn_complete": "task_complete"}
TOOL_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})

_MARKER_RE = re.compile(
    rb'"type"\s*:\s*"(task_started|task_complete|turn_aborted|turn_started|turn_complete|function_call|'
    rb'custom_tool_call|local_shell_call|function_call_output|custom_tool_call_output)"'
)
_TURN_ID_RE = re.compile(rb'"turn_id"\s*:\s*"([0-9A-Za-z_-]{1,64})"')
_TIMESTAMP_RE = re.compile(rb'^\{\s*"timestamp"\s*:\s*"([^"]{10,40})"')


class Lifecycle(msgspec.Struct, frozen=True, omit_defaults=True):
    """The cursor's answer for one sample."""

    status: str | None = None  # "busy" | "idle" | None (no lifecycle evidence)
    turn_id: str | None = None
    # The open turn's start as written by its own task_started (None while unknown).
    start: Boundary | None = None
    # The latest boundary itself (for a closed turn: its end).
    boundary: Boundary | None = None
    tool: ToolMark | None = None
    # Time of the newest complete record: activity, not a state.
    last_at: float | None = None
    # Older bytes still to search for the boundary: the answer is provisional until they are.
    recovering: bool = False


class _Scan:
    """What one backward search found: the latest boundary, the newest tool record after it, a turn id."""

    def __init__(self) -> None:
        self.boundary: Boundary | None = None
        self.tool: ToolMark | None = None
        self.tool_seen = False
        self.turn_ref: str | None = None


def _parse_line(line: bytes) -> dict | None:
    """One record; a stray invalid byte (in a message the cursor never reads) costs no lifecycle event."""
    try:
        record, _replaced = lenient_json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None


def _str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _payload(record: dict, record_type: str) -> dict | None:
    """The payload of a record of `record_type` (`event_msg`, `response_item`), or None."""
    payload = record.get("payload") if record.get("type") == record_type else None
    return payload if isinstance(payload, dict) else None


def boundary_of(record: dict) -> Boundary | None:
    """The lifecycle boundary a parsed record is, or None."""
    payload = _payload(record, "event_msg")
    if payload is None:
        return None
    kind = payload.get("type")
    if not isinstance(kind, str):
        return None
    kind = _BOUNDARY_ALIASES.get(kind, kind)
    if kind not in BOUNDARIES:
        return None
    started = payload.get("started_at")
    attribution = payload.get("turn_attribution")
    trigger = attribution.get("turn_trigger") if isinstance(attribution, dict) else None
    error, status = _error_of(payload.get("error"))
    return Boundary(
        kind=kind,
        turn_id=_str(payload.get("turn_id")),
        at=epoch(record.get("timestamp")),
        started_at=bounded(started),
        trigger=_str(trigger),
        reason=_str(payload.get("reason")),
        error=error,
        http_status=status,
    )


def _error_of(error: object) -> tuple[str | None, int | None]:
    """A failed turn's error kind and HTTP status from `{"message", "codex_error_info"}` (0.169.0): the info is
    a plain kind (`internal_server_error`) or `{kind: {"http_status_code": n}}`."""
    if not isinstance(error, dict):
        return None, None
    info = error.get("codex_error_info")
    if isinstance(info, str) and info:
        return info[:64], None
    if isinstance(info, dict) and len(info) == 1:
        kind, detail = next(iter(info.items()))
        status = detail.get("http_status_code") if isinstance(detail, dict) else None
        return str(kind)[:64], http_status(status)
    return "other", None


def tool_of(record: dict) -> ToolMark | None:
    """The tool call or output a parsed record is, or None."""
    payload = _payload(record, "response_item")
    if payload is None:
        return None
    kind = payload.get("type")
    if not isinstance(kind, str):  # a list or an object here is no kind at all (and not hashable)
        return None
    at = epoch(record.get("timestamp"))
    if kind in TOOL_CALLS:
        name = _str(payload.get("name")) or ("shell" if kind == "local_shell_call" else None)
        return ToolMark(True, name, _str(payload.get("call_id")), at)
    if kind in TOOL_OUTPUTS:
        return ToolMark(False, None, _str(payload.get("call_id")), at)
    return None


def _search_block(data: bytes, whole_start: bool, scan: _Scan) -> bool:
    """Search one block backwards; True when the boundary was found (the search stops there)."""
    first = 0 if whole_start else data.find(b"\n") + 1
    if first == 0 and not whole_start:
        return False  # no line begins in this block
    after = first  # where the records newer than any boundary in this block begin
    found = False
    line_floor = len(data) + 1
    for match in reversed(list(_MARKER_RE.finditer(data, first))):
        if match.start() >= line_floor:
            continue  # another marker inside a line already judged (a compacted history quotes many)
        start = data.rfind(b"\n", 0, match.start()) + 1
        line_floor = start
        if start < first:
            break
        end = data.find(b"\n", match.end())
        if end < 0:
            continue  # the line runs past the block: the next block's overlap holds it whole
        record = _parse_line(data[start:end])
        if record is None:
            continue  # malformed, or the marker quoted inside some text: it proves nothing
        boundary = boundary_of(record)
        if boundary is not None:
            scan.boundary, after, found = boundary, end, True
            break
        if not scan.tool_seen:
            tool = tool_of(record)
            if tool is not None:
                scan.tool, scan.tool_seen = tool, True
    if scan.turn_ref is None:
        refs = _TURN_ID_RE.findall(data, after)
        if refs:
            scan.turn_ref = refs[-1].decode("ascii")
    return found


def _line_time(line: bytes) -> float | None:
    match = _TIMESTAMP_RE.match(line)
    return epoch(match.group(1).decode("ascii", "replace")) if match else None


def last_line_time(block: bytes) -> float | None:
    """The time of the last line in a block of whole lines."""
    return _line_time(block.rstrip(b"\n").rsplit(b"\n", 1)[-1])


def fold_block(state: CursorState, block: bytes) -> None:
    """Fold a block of whole lines, read oldest first, into `state`: how a finished file is read forwards (a
    compressed rollout) with the same search that reads a growing one backwards."""
    scan = _Scan()
    if _search_block(block, True, scan):
        state.boundary, state.tool, state.seen_turn = scan.boundary, scan.tool, scan.turn_ref
        return
    if scan.tool_seen:
        state.tool = scan.tool
    if scan.turn_ref is not None:
        state.seen_turn = scan.turn_ref


class LifecycleCursor:
    """Keeps a proven boundary through appends without re-reading earlier records."""

    _file: TailFile  # the rollout open during one sample

    def __init__(self, state: CursorState | None = None) -> None:
        self.state = state or CursorState()
        # Bytes read by the last sample: what a refresh costs (benchmarks and tests read it).
        self.bytes_read = 0

    def sample(self, path: Path | str) -> Lifecycle | None:
        """Read what was appended and answer the rollout's lifecycle; None when the file cannot be read."""
        self.bytes_read = 0
        try:
            fd = open_regular(path)
        except OSError:
            return None
        self._file = TailFile(fd)
        try:
            return self._sample(fd)
        except (OSError, EOFError):
            return None
        finally:
            self.bytes_read = self._file.bytes_read
            os.close(fd)

    # -- reading -----------------------------------------------------------------------------------------

    def _read(self, fd: int, start: int, size: int) -> bytes:
        data = self._file.read(size, start)
        if data is None:
            raise EOFError("the rollout ended before its stated length")  # cut short under the read
        return data

    def _search(self, fd: int, floor: int, upper: int, scan: _Scan) -> None:
        """Search [floor, upper) backwards in blocks with an overlap, until a boundary is found."""
        end = upper
        size = FIRST_BLOCK_BYTES  # the newest records first: nearly every search ends in them
        while end > floor:
            start = max(floor, end - size)
            size = BLOCK_BYTES
            data = self._read(fd, start, end - start)
            whole = start == floor
            if _search_block(data, whole, scan) or whole:
                return
            end = start + OVERLAP_BYTES

    def _complete_end(self, fd: int, floor: int, upper: int) -> tuple[int, bytes]:
        """The end of the last complete line in [floor, upper), and that line when it is short."""
        end = upper
        while end > floor:
            start = max(floor, end - TAIL_BYTES)
            data = self._read(fd, start, end - start)
            newline = data.rfind(b"\n")
            if newline >= 0:
                line_start = data.rfind(b"\n", 0, newline) + 1
                whole = line_start > 0 or start == floor
                return start + newline + 1, data[line_start:newline] if whole else b""
            end = start
        return floor, b""

    # -- one sample --------------------------------------------------------------------------------------

    def _sample(self, fd: int) -> Lifecycle:
        st = os.fstat(fd)
        if not self._file.resumes(st, self.state):
            self.state = CursorState(dev=st.st_dev, ino=st.st_ino)  # new, replaced, cut or rewritten in place
        tail: dict | None = None
        if st.st_size > self.state.offset:
            complete, last_line = self._complete_end(fd, self.state.offset, st.st_size)
            if complete > self.state.offset:
                self._take(fd, self.state.offset, complete, last_line)
            if complete < st.st_size:
                tail = _parse_line(self._read(fd, complete, st.st_size - complete))
        self._recover(fd)
        return self._answer(tail)

    def _take(self, fd: int, start: int, complete: int, last_line: bytes) -> None:
        """Fold the complete lines [start, complete): the newest window now, older bytes by recovery."""
        state = self.state
        window = max(start, complete - WINDOW_BYTES)
        scan = _Scan()
        self._search(fd, window, complete, scan)
        if scan.boundary is not None:
            state.boundary, state.tool, state.pending, state.tool_newer = scan.boundary, scan.tool, [], None
            state.seen_turn = scan.turn_ref
        else:
            if scan.turn_ref is not None:
                state.seen_turn = scan.turn_ref
            known = state.boundary
            # Older appended bytes may hold a newer boundary, unless the newest records still belong to the turn
            # whose start is known (a turn's records never continue after its own end).
            recover = window > start and not (
                known is not None and known.kind == "task_started" and state.seen_turn == known.turn_id
            )
            if recover and not state.pending:
                state.tool_newer = None
            if scan.tool_seen:
                if state.pending or recover:
                    state.tool_newer = scan.tool
                else:
                    state.tool = scan.tool
            if recover:
                state.pending = [*state.pending, (start, window)]
        at = _line_time(last_line)
        if at is not None:
            state.last_at = at
        state.head, state.mark = self._file.marks(complete)
        state.offset = complete

    def _recover(self, fd: int) -> None:
        """Search older unsearched bytes, newest first, within this sample's budget."""
        state = self.state
        budget = RECOVERY_BYTES
        while state.pending and budget > 0:
            start, end = state.pending[-1]
            floor = max(start, end - budget)
            scan = _Scan()
            self._search(fd, floor, end, scan)
            budget -= end - floor
            if scan.boundary is not None:
                state.boundary = scan.boundary
                state.tool = state.tool_newer or scan.tool
                state.seen_turn = state.seen_turn or scan.turn_ref
                state.pending, state.tool_newer = [], None
                return
            if floor == start:
                state.pending.pop()
            else:
                # A boundary line cut by this chunk's edge is searched whole with the next chunk.
                state.pending[-1] = (start, min(end, floor + OVERLAP_BYTES))
        if not state.pending and state.tool_newer is not None:
            state.tool, state.tool_newer = state.tool_newer, None

    def answer(self) -> Lifecycle:
        """The lifecycle the kept state says, without reading anything."""
        return self._answer(None)

    def _answer(self, tail: dict | None) -> Lifecycle:
        state = self.state
        boundary, seen = state.boundary, state.seen_turn
        tool = state.tool_newer if state.pending else state.tool
        last_at = state.last_at
        if tail is not None:
            # A line not yet ended answers this sample only.
            tail_boundary = boundary_of(tail)
            if tail_boundary is not None:
                boundary, seen, tool = tail_boundary, None, None
            else:
                tool = tool_of(tail) or tool
            last_at = epoch(tail.get("timestamp")) or last_at
        recovering = bool(state.pending)
        if boundary is not None and boundary.kind == "task_started":
            if seen is None or seen == boundary.turn_id:
                return Lifecycle("busy", boundary.turn_id, boundary, boundary, tool, last_at, recovering)
            # Newer records belong to another turn: never borrow this start for it.
            return Lifecycle("busy", seen, None, boundary, tool, last_at, recovering)
        if seen is not None and seen != (boundary.turn_id if boundary else None) and (recovering or boundary):
            return Lifecycle("busy", seen, None, boundary, tool, last_at, recovering)
        if boundary is not None:
            return Lifecycle("idle", boundary.turn_id, None, boundary, None, last_at, recovering)
        return Lifecycle(None, None, None, None, None, last_at, recovering)
