"""A scripted, local stand-in for the OpenAI Responses API, for the real Codex CLI.

Codex talks to it through ``$CODEX_HOME/config.toml``: ``model_provider = "x"`` and
``[model_providers.x]`` with ``base_url = "http://127.0.0.1:PORT/v1"``, ``env_key`` and
``wire_api = "responses"`` (:meth:`ResponsesServer.config_toml` writes exactly that).  Codex POSTs
``/v1/responses`` with ``stream: true`` and reads server-sent events: ``response.created``, one
``response.output_item.done`` per output item (an assistant ``message`` or a ``function_call``), then
``response.completed`` with ``usage``.  Standard library only.

Vocabulary (as in :mod:`anthropic_server`)
------------------------------------------
*Step*: how the server answers ONE model request: :func:`message` (an assistant reply),
:func:`function_call` / :func:`exec_command` (the client runs the real tool), :func:`error`,
:func:`hang`, :func:`custom`.

*Route*: a queue of steps plus a predicate.  Custom routes (``script(..., match=...)``) are tried first,
then ``main`` (every other request).  A route whose queue is exhausted answers :attr:`exhausted_text`, so
the client never hangs.  Codex's request for a thread's title is no route's: it is answered with
:attr:`title`.

Example::

    srv = ResponsesServer().start()
    srv.script(exec_command("sleep 3; echo hi"), message("done"))
    srv.write_codex_config(codex_home)
    ...
    srv.wait_for(lambda r: r.function_outputs(), timeout=30)
    srv.stop()
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scripted_http import ScriptedHandler, ScriptedServer
from scripted_parts import IdSource, Route, ScriptedStep, parse_json
from scripted_parts import RecordedRequest as _RecordedRequest

__all__ = [
    "ResponsesServer",
    "RecordedRequest",
    "Step",
    "message",
    "function_call",
    "exec_command",
    "error",
    "hang",
    "custom",
    "input_contains",
    "is_subagent",
    "API_KEY_ENV",
]

#: The environment variable the scripted provider reads its key from (any value works).
API_KEY_ENV = "LUNAVECT_TEST_OPENAI_KEY"

_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization", "cookie", "openai-api-key"})
_new_id = IdSource(24)


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------


@dataclass
class Step(ScriptedStep):
    """How to answer one request: ``kind`` is ``"items"``, ``"error"``, ``"drop"``, ``"hang"`` or ``"custom"``;
    ``usage`` is reported exactly in `response.completed` (over the defaults)."""

    items: list[dict] = field(default_factory=list)
    # Extra response headers (such as the `x-codex-primary-*` rate-limit headers Codex records).
    headers: dict[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        if self.kind == "items":
            return "items[" + ",".join(i.get("name") or i["type"] for i in self.items) + "]"
        return super().describe()


def message(reply: str, *, delay: float = 0.0) -> Step:
    """A plain assistant reply: the turn ends."""
    item = {
        "type": "message",
        "role": "assistant",
        "id": _new_id("msg"),
        "status": "completed",
        "content": [{"type": "output_text", "text": reply, "annotations": []}],
    }
    return Step("items", items=[item], delay=delay)


def function_call(
    name: str,
    arguments: dict | str,
    *,
    call_id: str | None = None,
    text: str | None = None,
    delay: float = 0.0,
    namespace: str | None = None,
) -> Step:
    """One ``function_call`` output item (optionally preceded by an assistant ``text``)."""
    items: list[dict] = []
    if text:
        items.extend(message(text).items)
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {
        "type": "function_call",
        "id": _new_id("fc"),
        "call_id": call_id or _new_id("call"),
        "name": name,
        "arguments": args,
        "status": "completed",
    }
    if namespace:
        call["namespace"] = namespace
    items.append(call)
    return Step("items", items=items, delay=delay)


def exec_command(
    cmd: str,
    *,
    call_id: str | None = None,
    yield_time_ms: int | None = None,
    sandbox_permissions: str | None = None,
    justification: str | None = None,
    delay: float = 0.0,
) -> Step:
    """A call of Codex 0.169.0's ``exec_command`` tool: the real client runs ``cmd`` in a shell."""
    args: dict[str, Any] = {"cmd": cmd}
    if yield_time_ms is not None:
        args["yield_time_ms"] = yield_time_ms
    if sandbox_permissions is not None:
        args["sandbox_permissions"] = sandbox_permissions
    if justification is not None:
        args["justification"] = justification
    return function_call("exec_command", args, call_id=call_id, delay=delay)


error = Step.error  # an HTTP error with an OpenAI error body


def drop(*, delay: float = 0.0) -> Step:
    """Start the stream, then close the connection before the response completes (Codex reconnects)."""
    return Step("drop", delay=delay)


hang = Step.hang
custom = Step.custom


# --------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest(_RecordedRequest):
    """One request as the server saw it (secret headers removed)."""

    model_path = "/responses"
    is_responses = _RecordedRequest.scripted

    @property
    def input(self) -> list[dict]:
        return self._body_dicts("input")

    @property
    def tool_names(self) -> list[str]:
        return [tool.get("name") or tool.get("type") or "" for tool in self.tools]

    @property
    def instructions(self) -> str:
        value = self.body.get("instructions") if isinstance(self.body, dict) else None
        return value if isinstance(value, str) else ""

    def function_outputs(self) -> list[dict]:
        """Every ``function_call_output`` item of the request's input."""
        return [i for i in self.input if i.get("type") == "function_call_output"]

    def output_text(self, call_id: str | None = None) -> str:
        return self._results_text(self.function_outputs(), "call_id", call_id, _output_text)

    def user_texts(self) -> list[str]:
        texts = []
        for item in self.input:
            if item.get("type") == "message" and item.get("role") == "user":
                for part in item.get("content") or []:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        texts.append(part["text"])
        return texts

    @property
    def is_title(self) -> bool:
        """Codex's request for a thread's title (0.169: `thread_source` `thread_title`, no tools): sent beside the
        first turn's request, with the person's prompt in it, and racing it to the server."""
        return self.turn_metadata.get("thread_source") == "thread_title"

    @property
    def turn_metadata(self) -> dict:
        """Codex's `x-codex-turn-metadata` (thread, session, turn ids) from the request's client metadata."""
        meta = self.body.get("client_metadata") if isinstance(self.body, dict) else None
        raw = meta.get("x-codex-turn-metadata") if isinstance(meta, dict) else None
        try:
            value = json.loads(raw) if isinstance(raw, str) else None
        except ValueError:
            value = None
        return value if isinstance(value, dict) else {}


def _output_text(item: dict) -> str:
    """A ``function_call_output`` item's output (JSON if it is not a string)."""
    out = item.get("output")
    return out if isinstance(out, str) else json.dumps(out)


Predicate = Callable[[RecordedRequest], bool]


def input_contains(needle: str) -> Predicate:
    return lambda req: needle in json.dumps(req.input)


def is_subagent(req: RecordedRequest) -> bool:
    """A spawned sub-agent's request: its thread is not its session's root thread (0.169.0 metadata)."""
    meta = req.turn_metadata
    return bool(meta.get("thread_id")) and meta.get("thread_id") != meta.get("session_id")


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class ResponsesServer(ScriptedServer):
    """A scripted Responses API on ``127.0.0.1``; use as a context manager or :meth:`start` / :meth:`stop`."""

    thread_name = "responses-server"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        exhausted_text: str = "ok",
        model: str = "gpt-test",
        title: str = "Scripted title",
    ):
        super().__init__(host, port, exhausted_text=exhausted_text)
        self.model = model
        self.title = title

    @property
    def handler_class(self) -> type[ScriptedHandler]:
        return _Handler

    @property
    def base_url(self) -> str:
        """The provider's ``base_url`` for config.toml."""
        return f"{self.url}/v1"

    def config_toml(self, *, extra: str = "") -> str:
        """A config.toml that points Codex at this server and nothing else."""
        return (
            'model = "gpt-test"\n'
            'model_provider = "x"\n'
            'approval_policy = "never"\n'
            'sandbox_mode = "danger-full-access"\n'
            "[model_providers.x]\n"
            'name = "scripted"\n'
            f'base_url = "{self.base_url}"\n'
            f'env_key = "{API_KEY_ENV}"\n'
            'wire_api = "responses"\n'
            "request_max_retries = 0\n"
            "stream_max_retries = 0\n" + extra
        )

    def write_codex_config(self, codex_home: Path | str, *, extra: str = "") -> Path:
        path = Path(codex_home) / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.config_toml(extra=extra))
        return path

    # -- scripting -----------------------------------------------------
    def _builtin_route(self, req: RecordedRequest) -> Route:
        return self._main  # every request no custom route claims

    def _choose(self, req: Any) -> tuple[str, Any]:
        # A title request carries the prompt a custom route may look for, and arrives first about one time in
        # six: it is answered with the title and never takes a scripted step.
        if req.is_title:
            return "title", message(self.title)
        return super()._choose(req)

    def _exhausted_step(self) -> Step:
        return message(self.exhausted_text)

    # -- the request log ---------------------------------------------
    @property
    def responses_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_responses]


class _Handler(ScriptedHandler):
    secret_headers = _SECRET_HEADERS
    request_class = RecordedRequest

    def _parse_body(self, raw: bytes) -> Any:
        if (self.headers.get("Content-Encoding") or "").lower() == "zstd":
            return None  # not expected from a local provider; kept unparsed
        return parse_json(raw)

    def _models_listing(self) -> dict:
        return {"object": "list", "data": [{"id": self.owner.model, "object": "model"}], "models": []}

    def _send_error(self, step: Step) -> None:
        body = {"error": {"message": step.error_message, "type": "scripted", "code": None, "param": None}}
        self._send_json(step.status, body)

    def _stream(self, step: Step, req: RecordedRequest) -> None:
        self._start_stream("text/event-stream", step.headers.items())
        response_id = _new_id("resp")
        model = (req.body or {}).get("model") or self.owner.model
        ev = self._event

        base = {"id": response_id, "object": "response", "created_at": int(time.time()), "model": model}
        if not ev("response.created", {"type": "response.created", "response": dict(base, status="in_progress")}):
            return
        if step.kind == "drop":
            return  # the connection closes here, mid-response
        for index, item in enumerate(step.items):
            if not ev(
                "response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item}
            ):
                return
        size = len(json.dumps(req.body or {})) // 4 + 1
        usage = {
            "input_tokens": size,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": size + 5,
        }
        usage.update(step.usage or {})
        ev(
            "response.completed",
            {"type": "response.completed", "response": dict(base, status="completed", output=step.items, usage=usage)},
        )
