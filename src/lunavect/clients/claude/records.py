"""What one Claude Code transcript line means, and nothing it says.

A transcript holds the whole conversation; lunavect needs a few facts from it: when a prompt, a tool call,
a response, an API error or an interrupt happened (activity), what the session is called and where it
runs (metadata, kept apart from activity), and which background work started and ended. Each line is
decoded into structs that declare only the fields used (record_shapes.py), after a cheap byte test skips the lines that can
mean nothing here (progress, snapshots, request blobs: most of a transcript). Private text is read only to
classify it (is this a slash command, a task notification, an interrupt marker) and is never returned,
except a prompt's beginning on one line (titles.py), which is the title the client itself shows when nothing
else names the session.
"""

from __future__ import annotations

import re

import msgspec

from lunavect.clients.claude import titles
from lunavect.clients.claude.agents import Launch, Note, Result, Send, ShellLaunch, ShellResult
from lunavect.clients.claude.record_facts import Activity, RecordFacts
from lunavect.clients.claude.record_shapes import (
    Block,
    Record,
    ToolUseResult,
    agent_input_decoder,
    api_error_decoder,
    attachment_decoder,
    bash_input_decoder,
    block_text,
    compact_decoder,
    decode_raw,
    message_of,
    names_work,
    origin_decoder,
    present,
    record_decoder,
    result_decoder,
    short_str,
    text_decoder,
    typed_record_decoder,
)
from lunavect.clients.claude.usage import message_usage
from lunavect.core import bounded_json
from lunavect.core.bounds import http_status
from lunavect.core.ids import is_session_id
from lunavect.core.lenient_json import exact
from lunavect.core.services import is_long_lived_service
from lunavect.core.times import epoch
from lunavect.shim.notifications import only_notifications, task_notifications

# Only lines holding a "type" key with one of these values can matter; every other line is skipped without being
# decoded. They are the record types a reader here reads (an attachment's "queued_command" is a nested type), in
# any spacing a line can hold: "user", "assistant", "system", "summary", "custom-title", "ai-title", "agent-name",
# "last-prompt", "queue-operation" and "queued_command", written with their shared beginnings factored out (the
# same strings, a faster search). Keyed on "type", the search no longer stops at every quoted value of a line
# that cannot matter: those lines are most of a transcript, and the search is a fifth of a whole read.
_INTERESTING = re.compile(
    rb'"type"[ \t\r]*:[ \t\r]*"(?:user|a(?:ssistant|i-title|gent-name)|s(?:ystem|ummary)|custom-title|last-prompt'
    rb'|queue(?:-operation|d_command))"'
)
# The cheap test itself, for loops that run it on every line (fold.py): None for a line that cannot matter; and
# its pattern, which never matches a newline, for a search over a whole block of lines (transcript.py).
might_matter_pattern = _INTERESTING
might_matter_search = _INTERESTING.search
# Final stop reasons: the reply is over. `tool_use` means a tool runs next; None is an older client's
# partial record, which proves neither.
_FINAL_STOPS = frozenset({"end_turn", "stop_sequence", "max_tokens", "refusal", "model_context_window_exceeded"})
_AGENT_TOOLS = frozenset({"Agent", "Task"})
_ERROR_CODE_RE = re.compile(r"^[a-z][a-z0-9_]{0,79}$")
_KIND_CHARS = 200
_INTERRUPT_PREFIX = "[Request interrupted by user"
# User texts that are the client's own bookkeeping, not a prompt sent to the model.
_NOT_PROMPTS = ("<command-name>", "<command-message>", "<local-command-", "<bash-input>", "<bash-stdout>", "Caveat:")


class Unreadable(Exception):
    """A line that is not a JSON object (cut short, not UTF-8, not JSON, nested too deep): skipped, counted,
    never fatal."""


def might_matter(line: bytes) -> bool:
    """The cheap test: can this line mean anything here? Most lines (progress, snapshots) cannot."""
    return _INTERESTING.search(line) is not None


def read_record(line: bytes, place: int = 0) -> RecordFacts | None:
    """The facts of one transcript line, which starts at byte `place`; None for a line that means nothing.

    Raises Unreadable for a line that is not a JSON object. Unknown record types are normal and mean
    nothing.
    """
    if not might_matter(line):
        return None
    return read_matching(line, place)


def read_matching(line: bytes, place: int = 0) -> RecordFacts | None:
    """`read_record` for a line that passed the cheap test: one pass over its bytes (`TypedRecord`), or, for a
    line of rarer shape, `read_plain`'s field by field reading."""
    try:
        record = bounded_json.decode(typed_record_decoder, line)
    except bounded_json.TooDeep:
        raise Unreadable from None
    except msgspec.DecodeError:  # ValidationError included
        return read_plain(line, place)
    if record.toolUseResult is not None and names_work(record.toolUseResult):
        return read_plain(line, place)
    return facts_of(record, place)


def read_plain(line: bytes, place: int = 0) -> RecordFacts | None:
    """The facts of one line decoded field by field (each nested field on its own): what `read_matching`
    gives, the slower way; it reads the lines the one-pass shape refuses, and tests hold the two side by side.
    Applies no byte test."""
    replaced = False
    try:
        record = bounded_json.decode(record_decoder, line)
    except bounded_json.TooDeep:
        raise Unreadable from None
    except msgspec.DecodeError:
        # One invalid UTF-8 byte (a title cut mid-character by another tool) must not cost the whole record:
        # read it again with that byte replaced (a title gets one odd character; an id or a folder holding a
        # replaced byte names nothing real, and is dropped); a line that is not JSON stays unreadable.
        try:
            record = bounded_json.decode(record_decoder, line.decode("utf-8", "replace").encode("utf-8"))
        except msgspec.DecodeError:
            raise Unreadable from None
        replaced = True
    return facts_of(record, place, replaced)


def facts_of(record: Record, place: int, replaced: bool = False) -> RecordFacts | None:
    """The facts of a decoded record: `read_matching`'s one pass, `read_plain`'s, or a line fold.py decoded."""
    try:
        return _facts(record, place, replaced)
    except (TypeError, ValueError, AttributeError, KeyError, IndexError):
        # A field of a type no client version wrote: this record is skipped and counted, never its file.
        raise Unreadable from None


_Metadata = tuple[str | None, str | None, str | None, str | None, str | None]
# The checked metadata of the last few records: every record of a session repeats the same few values.
_metadata_seen: dict[tuple[object, ...], _Metadata] = {}


def _metadata(cwd: object, branch: object, version: object, entrypoint: object, kind: object) -> _Metadata:
    key = (cwd, branch, version, entrypoint, kind)
    try:
        return _metadata_seen[key]
    except (KeyError, TypeError):  # TypeError: a value that cannot be a key (a list where a string belongs)
        pass
    found = (
        short_str(cwd, 4096),
        short_str(branch, 500),
        short_str(version, 100),
        short_str(entrypoint, 100),
        short_str(kind, 100),
    )
    if len(_metadata_seen) >= 64:
        _metadata_seen.clear()
    try:
        _metadata_seen[key] = found
    except TypeError:
        pass
    return found


# The last session id found valid (see check_session).
_valid_id: list[object] = [None]


def check_session(session_id: object) -> None:
    """A record naming a session that is no session id (`../x`, a newline, a replaced byte) is no record of
    this session's: Unreadable, skipped and counted like a line cut short. A transcript names one session in
    every record, so the last valid id is remembered and a reader calls this only for another one
    (`session_id != _valid_id[0]`): the check costs a comparison per record."""
    if not is_session_id(session_id):
        raise Unreadable
    _valid_id[0] = session_id


# The record types `_facts` reads more from than a time and metadata: its branches below, kept beside them
# (the whole read's fast fold, fast_records.py, takes every other type's record itself).
READ_BY_KIND = frozenset(
    {"user", "assistant", "system", "attachment", "queue-operation", "custom-title", "ai-title", "agent-name",
     "summary", "last-prompt"}
)  # fmt: skip


def _facts(record: Record, place: int, replaced: bool = False) -> RecordFacts | None:
    kind = record.type
    if not isinstance(kind, str):
        return None
    session_id = record.sessionId
    if session_id is not None and session_id != _valid_id[0]:
        check_session(session_id)
    facts = RecordFacts(
        kind,
        place,
        epoch(record.timestamp),
        short_str(exact(record.uuid, True) if replaced else record.uuid, 200),
        short_str(session_id, 200),
    )
    if record.isSidechain is True:
        # A subagent's own lines (older clients wrote them inline): they are not the session's, but their
        # tokens count (as the sub-agent's) in the session's usage.
        if kind == "assistant" and record.isApiErrorMessage is not True:
            message = message_of(record)
            if message is not None:
                facts.usage = message_usage(message.id, message.model, message.usage, subagent=True)
        return facts
    cwd, branch = record.cwd, record.gitBranch
    if replaced:  # a folder or branch holding a replaced byte names none
        cwd, branch = exact(cwd, replaced), exact(branch, replaced)
    facts.cwd, facts.branch, facts.version, facts.entrypoint, facts.session_kind = _metadata(
        cwd, branch, record.version, record.entrypoint, record.sessionKind
    )
    if kind == "user":
        _read_user(record, facts)
    elif kind == "assistant":
        _read_assistant(record, facts)
    elif kind == "system":
        _read_system(record, facts)
    elif kind == "attachment":
        _read_attachment(record, facts)
    elif kind == "queue-operation":
        _read_queue(record, facts)
    elif kind == "custom-title":
        facts.custom_title = titles.of(record.customTitle)
    elif kind == "ai-title":
        facts.ai_title = titles.of(record.aiTitle)
    elif kind == "agent-name":
        facts.agent_name = titles.of(record.agentName)
    elif kind == "summary":
        facts.summary = titles.of(record.summary)
    elif kind == "last-prompt":
        facts.last_prompt = titles.of_last_prompt(record.lastPrompt)
    return facts


def _notes(text: object, facts: RecordFacts, stamped: bool) -> None:
    for seq, note in enumerate(task_notifications(text)):
        facts.observations.append(
            Note(
                place=facts.place,
                seq=seq,
                task_ids=note.task_ids,
                tool_use_id=note.tool_use_id,
                status=note.status,
                stamped=stamped,
                at=facts.at,
            )
        )


def _read_user(record: Record, facts: RecordFacts) -> None:
    message = message_of(record)
    content = message.content if message is not None else None
    results = [b for b in content if b.type == "tool_result"] if isinstance(content, list) else []
    if results:
        _read_tool_results(record, results, facts)
        return
    if record.isMeta is True or record.isCompactSummary is True:
        return
    text = block_text(content)
    if text is None:
        return
    # An image and nothing else is a prompt without text: it names nothing (the picker skips it).
    image_only = not text.strip() and isinstance(content, list) and any(b.type == "image" for b in content)
    origin = decode_raw(origin_decoder, record.origin)
    origin_kind = origin.kind if origin is not None else None
    stripped = text.lstrip()
    if origin_kind == "task-notification":
        # The runtime delivering a background task's end: the same task goes on.
        _notes(text, facts, stamped=True)
        facts.activity.append(Activity("TranscriptPrompt", notification_only=True))
        return
    legacy = not present(record.origin) and record.promptSource is None and record.turnOrigin is None
    if legacy and only_notifications(text):
        # Clients before origin stamps delivered notifications as plain prompts; nothing else but the
        # runtime writes a prompt that is notifications and nothing more.
        _notes(text, facts, stamped=True)
        facts.activity.append(Activity("TranscriptPrompt", notification_only=True))
        return
    if stripped.startswith(_INTERRUPT_PREFIX):
        facts.interrupt = True
        facts.activity.append(Activity("TranscriptInterrupt"))
        return
    if titles.is_command(stripped):
        # A slash command: a custom one's expansion follows as a meta record, a built-in one's output as
        # `<local-command-stdout>`.
        facts.prompt_title, facts.command_title = titles.of_command(stripped)
        return
    if stripped.startswith("<bash-input>"):
        facts.prompt_title = titles.of_shell_command(stripped)  # a shell command typed with `!`
        return
    if image_only:
        facts.human_prompt = True
        facts.activity.append(Activity("TranscriptPrompt"))
        return
    if not stripped or stripped.startswith(_NOT_PROMPTS) or stripped.startswith("<task-notification>"):
        return
    facts.human_prompt = True
    facts.prompt_title = titles.of_prompt(text)
    facts.activity.append(Activity("TranscriptPrompt"))


def _read_tool_results(record: Record, results: list[Block], facts: RecordFacts) -> None:
    native = None
    # A `TypedRecord`'s result names no work (names_work): nothing to read in it.
    if isinstance(record.toolUseResult, msgspec.Raw) and present(record.toolUseResult):
        raw = bytes(record.toolUseResult)
        if b"agentId" in raw or b"isAsync" in raw or b"backgroundTaskId" in raw or b"resumedAgentId" in raw:
            native = decode_raw(result_decoder, record.toolUseResult)
    for index, block in enumerate(results):
        call = short_str(block.tool_use_id, 200)
        if call is None:
            continue
        facts.activity.append(Activity("TranscriptToolResult", tool_use_id=call))
        if isinstance(native, list):
            own = native[index] if len(native) == len(results) else None
        else:
            own = native if len(results) == 1 else None
        if not isinstance(own, ToolUseResult):
            continue
        error = block.is_error is True
        agent_id = short_str(own.agentId, 200)
        resumed = short_str(own.resumedAgentId, 200)
        is_async = own.isAsync is True
        if agent_id is not None or resumed is not None or is_async:
            facts.observations.append(
                Result(
                    place=facts.place,
                    seq=index,
                    call=call,
                    agent_id=agent_id,
                    resumed=resumed,
                    is_async=is_async,
                    error=error,
                    at=facts.at,
                )
            )
        task_id = short_str(own.backgroundTaskId, 200)
        if task_id is not None:
            facts.observations.append(
                ShellResult(place=facts.place, seq=index, call=call, task_id=task_id, error=error, at=facts.at)
            )


def _names_refused(record: Record) -> bool:
    """Whether an API error record's text names a refused connection (the text itself is not kept)."""
    message = message_of(record)
    text = block_text(message.content) if message is not None else None
    return text is not None and "ECONNREFUSED" in text[:2000]


def _read_assistant(record: Record, facts: RecordFacts) -> None:
    if record.isApiErrorMessage is True:
        code = decode_raw(text_decoder, record.error)
        facts.response = "error"
        facts.response_error = code if isinstance(code, str) and _ERROR_CODE_RE.match(code) else None
        status = record.apiErrorStatus if isinstance(record.apiErrorStatus, int) else None
        # The client records a refused connection as `server_error`, as its StopFailure hook says it; only the
        # record's text names ECONNREFUSED. The hook shim reads the same word, so the transcript, which may be
        # read before the hook or without one, gives the same reason.
        error = "connection_error" if status is None and _names_refused(record) else facts.response_error
        facts.activity.append(Activity("TranscriptApiError", error=error, http_status=status))
        return
    message = message_of(record)
    if message is None:
        return
    facts.response = "response"
    facts.usage = message_usage(message.id, message.model, message.usage, subagent=False)
    content = message.content if isinstance(message.content, list) else []
    for seq, block in enumerate(content):
        if block.type != "tool_use":
            continue
        call, name = short_str(block.id, 200), short_str(block.name, 200)
        if call is None or name is None:
            continue
        facts.activity.append(Activity("TranscriptToolUse", tool=name, tool_use_id=call))
        if name in _AGENT_TOOLS:
            args = decode_raw(agent_input_decoder, block.input)
            agent_type = short_str(args.subagent_type, _KIND_CHARS) if args is not None else None
            background = args is not None and args.run_in_background is True
            facts.observations.append(
                Launch(place=facts.place, seq=seq, call=call, agent_type=agent_type, background=background, at=facts.at)
            )
        elif name == "SendMessage":
            facts.observations.append(Send(place=facts.place, seq=seq, call=call))
        elif name == "Bash" and b"run_in_background" in bytes(block.input):
            args = decode_raw(bash_input_decoder, block.input)
            if args is not None and args.run_in_background is True:
                # The verdict only: a dev server never ends, so it never holds the session.
                service = isinstance(args.command, str) and is_long_lived_service(args.command)
                facts.observations.append(ShellLaunch(place=facts.place, seq=seq, call=call, service=service))
    if isinstance(message.stop_reason, str) and message.stop_reason in _FINAL_STOPS:
        facts.activity.append(Activity("TranscriptResponse"))


def _read_system(record: Record, facts: RecordFacts) -> None:
    subtype = record.subtype
    if subtype == "api_error":
        error = decode_raw(api_error_decoder, record.error)
        status = http_status(error.status) if error is not None else None
        facts.retry_status = status if status is not None else 0
        # The client retries this failed request: the reason shows while it does (no status: no connection).
        kind = "connection_error" if status is None or (error is not None and error.connection) else None
        facts.activity.append(Activity("TranscriptRetry", error=kind, http_status=status))
    elif subtype == "compact_boundary":
        meta = decode_raw(compact_decoder, record.compactMetadata)
        trigger = meta.trigger if meta is not None and isinstance(meta.trigger, str) else None
        facts.compaction = trigger if trigger in ("auto", "manual") else "unknown"
    elif subtype == "turn_duration":
        # Written when a turn ends (2.1 and later): the reply is over. Older clients wrote every reply
        # without a stop reason, so for them this is often the only end there is.
        facts.activity.append(Activity("TranscriptResponse"))


def _read_attachment(record: Record, facts: RecordFacts) -> None:
    attachment = decode_raw(attachment_decoder, record.attachment)
    if attachment is None or attachment.type != "queued_command":
        return
    if attachment.commandMode == "task-notification":
        _notes(attachment.prompt if isinstance(attachment.prompt, str) else None, facts, stamped=True)


def _read_queue(record: Record, facts: RecordFacts) -> None:
    if record.operation != "enqueue":
        return
    content = decode_raw(text_decoder, record.content)
    text = block_text(content)
    # A queue entry carries no stamp: only one that is notifications and nothing else is the runtime's.
    if text is not None and only_notifications(text):
        _notes(text, facts, stamped=False)
