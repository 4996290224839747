"""A scripted, local stand-in for the Anthropic Messages API.

Real Claude Code talks to it through ``ANTHROPIC_BASE_URL=http://127.0.0.1:PORT``.
Standard library only.

Vocabulary
----------
*Step*: how the server answers ONE model request (a text reply, one or more
``tool_use`` blocks, an HTTP error, a hang ...).  Build steps with the helpers
:func:`text`, :func:`tool_use`, :func:`tool_uses`, :func:`error`, :func:`hang`,
:func:`delayed` and :func:`custom`.

*Route*: a queue of steps plus a predicate that decides which requests it
answers.  Two routes are built in:

- ``"subagent"``: requests of a sub-agent (Claude Code 2.1.328 marks them with
  ``cc_is_subagent=true`` in the system prompt's billing line; their tool list
  differs from the main loop's but still contains ``Agent``), see
  :func:`is_subagent`.  They reach the server concurrently with the main loop's.
- ``"main"``: every other request that carries a non-empty ``tools`` list
  (the main conversation loop).

Extra routes added with ``server.route(name, match=...)`` or
``server.script(..., match=...)`` are tried first, in the order they were
added; then ``subagent``, then ``main``.  A route keeps claiming matching requests after its queue is
exhausted and then answers a plain ``"ok"`` end_turn text, so the client never
hangs.

Requests without tools (titles, summaries, quota probes ...) are *side
requests*: they get a short plain text and never consume a step.

Example::

    srv = AnthropicServer().start()
    srv.script(tool_use("Bash", {"command": "echo hi"}), text("done"))
    env["ANTHROPIC_BASE_URL"] = srv.url
    ...
    req = srv.wait_for(lambda r: r.tool_results(), timeout=30)
    srv.stop()
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from scripted_http import ScriptedHandler, ScriptedServer
from scripted_parts import IdSource, Route, ScriptedStep
from scripted_parts import RecordedRequest as _RecordedRequest

__all__ = [
    "AnthropicServer",
    "RecordedRequest",
    "Step",
    "text",
    "tool_use",
    "tool_uses",
    "error",
    "hang",
    "delayed",
    "custom",
    "has_tools",
    "is_subagent",
    "is_main_loop",
    "has_tool",
    "lacks_tool",
    "system_contains",
    "messages_contain",
    "refused_url",
    "RefusingPort",
    "ERROR_TYPES",
    "SUBAGENT_MARKER",
]

#: Default Anthropic error ``type`` for an HTTP status.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    502: "api_error",
    503: "api_error",
    529: "overloaded_error",
}

_ERROR_MESSAGES = {
    "invalid_request_error": "Invalid request (scripted)",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Your credit balance is too low (scripted)",
    "permission_error": "Your API key does not have permission (scripted)",
    "not_found_error": "Not found (scripted)",
    "request_too_large": "Request exceeds the maximum allowed size (scripted)",
    "rate_limit_error": "Number of request tokens has exceeded your rate limit (scripted)",
    "api_error": "Internal server error (scripted)",
    "overloaded_error": "Overloaded (scripted)",
}

# Headers never kept in the request log.
_SECRET_HEADERS = frozenset({"x-api-key", "authorization", "proxy-authorization", "cookie"})

_new_id = IdSource(20)


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------


@dataclass
class Step(ScriptedStep):
    """How to answer one request.

    ``kind`` is ``"message"`` (content ``blocks``, a ``stop_reason``),
    ``"error"``, ``"hang"`` or ``"custom"``.  ``delay`` seconds pass before the
    answer starts; ``chunk_delay`` seconds pass between streamed deltas.  ``usage`` holds usage figures
    to report exactly (input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens),
    over the defaults: what the client then writes to its transcript.
    """

    blocks: list[dict] = field(default_factory=list)
    stop_reason: str = "end_turn"
    error_type: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    chunk_delay: float = 0.0
    # The context size to report (usage.input_tokens); by default about the request's own size. A large
    # value makes the client believe its context is full, so it compacts automatically.
    input_tokens: int | None = None

    def describe(self) -> str:
        if self.kind == "message":
            kinds = ",".join(b["type"] + (":" + b["name"] if b["type"] == "tool_use" else "") for b in self.blocks)
            return f"message[{kinds}] {self.stop_reason}"
        if self.kind == "error":
            return f"error {self.status} {self.error_type}"
        return self.kind


def text(reply: str, *, delay: float = 0.0, chunk_delay: float = 0.0, stop_reason: str = "end_turn") -> Step:
    """A plain assistant text reply (``end_turn``)."""
    return Step(
        "message",
        blocks=[{"type": "text", "text": reply}],
        stop_reason=stop_reason,
        delay=delay,
        chunk_delay=chunk_delay,
    )


def tool_use(
    name: str,
    input: dict | None = None,
    *,
    id: str | None = None,
    text: str | None = None,
    delay: float = 0.0,
    chunk_delay: float = 0.0,
) -> Step:
    """One ``tool_use`` block (``stop_reason: tool_use``), optionally preceded by ``text``."""
    return tool_uses([(name, input or {}, id)], text=text, delay=delay, chunk_delay=chunk_delay)


def tool_uses(calls: Iterable[tuple], *, text: str | None = None, delay: float = 0.0, chunk_delay: float = 0.0) -> Step:
    """Several parallel tool calls: ``calls`` holds ``(name, input)`` or ``(name, input, id)`` tuples."""
    blocks: list[dict] = []
    if text:
        blocks.append({"type": "text", "text": text})
    for call in calls:
        name, inp = call[0], call[1]
        tid = call[2] if len(call) > 2 and call[2] else _new_id("toolu")
        blocks.append({"type": "tool_use", "id": tid, "name": name, "input": dict(inp)})
    return Step("message", blocks=blocks, stop_reason="tool_use", delay=delay, chunk_delay=chunk_delay)


def error(
    status: int,
    error_type: str | None = None,
    message: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Step:
    """An HTTP error with an Anthropic error body ``{"type": "error", "error": {...}}``."""
    etype = error_type or ERROR_TYPES.get(status, "api_error")
    return Step(
        "error",
        status=status,
        error_type=etype,
        error_message=message or _ERROR_MESSAGES.get(etype, etype),
        headers=dict(headers or {}),
        delay=delay,
    )


hang = Step.hang
custom = Step.custom


def delayed(seconds: float, step: Step) -> Step:
    """``step``, answered after ``seconds``."""
    return step.after(seconds)


# --------------------------------------------------------------------------
# Recorded requests and predicates
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest(_RecordedRequest):
    """One request as the server saw it (secrets removed from the headers).

    ``path`` has the query string (e.g. ``"/v1/messages?beta=true"``); ``route`` is ``"main"``,
    ``"subagent"``, a custom route name, ``"side"``, or None (not a messages request).
    """

    model_path = "/v1/messages"
    is_messages = _RecordedRequest.scripted

    @property
    def tool_names(self) -> list[str]:
        return [t.get("name", "") for t in self.tools]

    @property
    def messages(self) -> list[dict]:
        return self._body_dicts("messages")

    @property
    def system_text(self) -> str:
        system = self.body.get("system") if isinstance(self.body, dict) else None
        if isinstance(system, str):
            return system
        if isinstance(system, list):
            return "\n".join(b.get("text", "") for b in system if isinstance(b, dict))
        return ""

    def blocks(self, role: str | None = None) -> list[dict]:
        """Every content block of every message (optionally of one role), strings as text blocks."""
        out: list[dict] = []
        for m in self.messages:
            if role and m.get("role") != role:
                continue
            content = m.get("content")
            if isinstance(content, str):
                out.append({"type": "text", "text": content})
            elif isinstance(content, list):
                out.extend(b for b in content if isinstance(b, dict))
        return out

    def tool_results(self) -> list[dict]:
        """All ``tool_result`` blocks in the request's messages."""
        return [b for b in self.blocks("user") if b.get("type") == "tool_result"]

    def tool_result_text(self, tool_use_id: str | None = None) -> str:
        return self._results_text(self.tool_results(), "tool_use_id", tool_use_id, _result_text)

    def user_text(self) -> str:
        """All user text blocks joined (includes Claude Code's injected reminders)."""
        return "\n".join(b.get("text", "") for b in self.blocks("user") if b.get("type") == "text")

    def last_user_text(self) -> str:
        for m in reversed(self.messages):
            if m.get("role") != "user":
                continue
            c = m.get("content")
            if isinstance(c, str):
                return c
            if isinstance(c, list):
                return "\n".join(b.get("text", "") for b in c if isinstance(b, dict) and b.get("type") == "text")
        return ""


def _result_text(block: dict) -> str | None:
    """A ``tool_result`` block's content: a string, or its text blocks one a line (None: neither)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    texts = [x.get("text", "") for x in content if isinstance(x, dict)] if isinstance(content, list) else []
    return "\n".join(texts) if texts else None


Predicate = Callable[[RecordedRequest], bool]


def has_tools(req: RecordedRequest) -> bool:
    """A messages request with a non-empty tool list."""
    return bool(req.tools)


#: Marker of a sub-agent request in the system prompt (Claude Code 2.1.328).
SUBAGENT_MARKER = "cc_is_subagent=true"


def is_subagent(req: RecordedRequest) -> bool:
    """A sub-agent's model request (tools, and the sub-agent marker in the system prompt)."""
    return bool(req.tools) and SUBAGENT_MARKER in req.system_text


def is_main_loop(req: RecordedRequest) -> bool:
    """The default main-loop predicate: tools, and not a sub-agent."""
    return bool(req.tools) and not is_subagent(req)


def has_tool(name: str) -> Predicate:
    return lambda req: name in req.tool_names


def lacks_tool(name: str) -> Predicate:
    return lambda req: bool(req.tools) and name not in req.tool_names


def system_contains(needle: str) -> Predicate:
    return lambda req: needle in req.system_text


def messages_contain(needle: str) -> Predicate:
    return lambda req: needle in json.dumps(req.messages)


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class AnthropicServer(ScriptedServer):
    """A scripted Anthropic Messages API on ``127.0.0.1`` (port 0 by default).

    Use as a context manager or call :meth:`start` / :meth:`stop`.
    """

    thread_name = "anthropic-server"

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        side_text: str = "Test session",
        exhausted_text: str = "ok",
        model: str | None = None,
    ):
        super().__init__(host, port, exhausted_text=exhausted_text)
        self.side_text = side_text
        self.model = model
        self._main = Route("main", is_main_loop)
        self._sub = Route("subagent", is_subagent)
        self.builtin_routes = {"main": self._main, "subagent": self._sub}
        self._holder: socket.socket | None = None

    @property
    def handler_class(self) -> type[ScriptedHandler]:
        return _Handler

    # -- lifecycle -----------------------------------------------------
    def stop(self) -> None:
        """Stop serving: hanging requests are released (their connections drop)."""
        super().stop()
        if self._holder is not None:
            self._holder.close()
            self._holder = None

    def refuse_connections(self) -> None:
        """Stop serving and keep the port bound but not listening: connects get ECONNREFUSED.

        ``url`` stays the same, so a running client starts seeing "connection refused".
        """
        port = self._port
        self.stop()
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((self._host, port))
        except OSError:
            s.close()
            return
        self._holder = s

    # -- scripting -----------------------------------------------------
    def route(self, name: str, match: Predicate) -> AnthropicServer:
        """Add (or replace the predicate of) a custom route; custom routes are tried before the built-in ones."""
        if name in ("main", "subagent"):
            raise ValueError("the built-in routes keep their predicates; pick another name")
        self._set_route(name, match)
        return self

    def script(self, *steps: Step, match: Predicate | None = None, route: str | None = None) -> AnthropicServer:
        """Queue ``steps``, one per request, on a route.

        Without ``match``/``route`` they go to ``main`` (requests with tools,
        not from a sub-agent); ``route="subagent"`` queues for sub-agents.
        With ``match`` a custom route is created (named ``route`` or
        automatically) or, if ``route`` names an existing one, re-targeted.
        """
        with self._lock:
            if match is not None:
                name = route or f"route{len(self._routes) + 1}"
                if name in ("main", "subagent"):
                    raise ValueError("the built-in routes keep their predicates; pick another name")
                self.route(name, match)
                target = self._find_route(name)
            elif route is not None and route != "main":
                target = self._find_route(route)
                if target is None:
                    raise KeyError(f"no route {route!r}; give match=")
            else:
                target = self._main
            assert target is not None
            target.steps.extend(steps)
        return self

    # aliases
    push = script

    def clear_script(self) -> None:
        with self._lock:
            self._main.steps.clear()
            self._sub.steps.clear()
            self._routes.clear()

    def _builtin_route(self, req: RecordedRequest) -> Route | None:
        if is_subagent(req):
            return self._sub
        if has_tools(req):
            return self._main
        return None

    def _exhausted_step(self) -> Step:
        return text(self.exhausted_text)

    def _side_step(self) -> Step:
        return text(self.side_text)

    # -- the request log ---------------------------------------------
    def message_requests(self, route: str | None = None) -> list[RecordedRequest]:
        """``POST /v1/messages`` requests, optionally only those answered by ``route`` ("main", "side", ...)."""
        return [r for r in self.requests if r.is_messages and (route is None or r.route == route)]

    @property
    def main_requests(self) -> list[RecordedRequest]:
        return self.message_requests("main")

    def _touch(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def wait_for_main(self, n: int, timeout: float = 30.0, *, route: str = "main") -> list[RecordedRequest]:
        """Wait until ``n`` requests answered by ``route`` (default ``main``) have arrived; return them."""
        return self.wait_for_count(n, timeout, route=route)


# --------------------------------------------------------------------------
# HTTP handling
# --------------------------------------------------------------------------


class _Handler(ScriptedHandler):
    secret_headers = _SECRET_HEADERS
    request_class = RecordedRequest

    # -- helpers -------------------------------------------------------
    def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        super()._send_json(status, obj, [("request-id", _new_id("req")), *(headers or {}).items()])

    # -- verbs ---------------------------------------------------------
    def do_HEAD(self) -> None:
        self.owner._record(self._recorded(b""))
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _models_listing(self) -> dict:
        model = self.owner.model or "claude-sonnet-4-5"
        return {
            "data": [{"type": "model", "id": model, "display_name": model, "created_at": "2025-01-01T00:00:00Z"}],
            "has_more": False,
            "first_id": model,
            "last_id": model,
        }

    def do_DELETE(self) -> None:
        self.owner._record(self._recorded(self._read_body()))
        self._send_json(200, {})

    do_PUT = do_PATCH = do_DELETE

    def do_POST(self) -> None:
        raw = self._read_body()
        req = self._recorded(raw)
        path = req.route_path
        if path == "/v1/messages/count_tokens":
            self.owner._record(req)
            size = len(raw) // 4 + 1
            self._send_json(200, {"input_tokens": size})
            return
        if path != "/v1/messages":
            self.owner._record(req)
            self._send_json(200, {})
            return
        if not isinstance(req.body, dict):
            req.route, req.answer = "invalid", "error 400"
            self.owner._record(req)
            self._send_error(error(400, message="request body is not JSON"))
            return
        self._answer(req)

    # -- answers -------------------------------------------------------
    def _answer(self, req: RecordedRequest) -> None:
        step = self._answered(req)
        if step is None:
            return
        model = self.owner.model or req.body.get("model") or "claude-sonnet-4-5"
        if req.body.get("stream"):
            self._stream(step, model, req)
        else:
            self._send_json(200, self._message(step, model, req), step.headers)

    def _send_error(self, step: Step) -> None:
        headers = dict(step.headers)
        if step.status == 429:
            headers.setdefault("retry-after", "1")
        if step.status in (429, 500, 529):
            headers.setdefault("x-should-retry", "true")
        self._send_json(
            step.status,
            {
                "type": "error",
                "error": {"type": step.error_type, "message": step.error_message},
                "request_id": _new_id("req"),
            },
            headers,
        )

    @staticmethod
    def _usage(req: RecordedRequest, output_tokens: int, input_tokens: int | None = None) -> dict:
        size = input_tokens if input_tokens is not None else max(1, len(req.raw_body) // 4)
        return {
            "input_tokens": size,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "service_tier": "standard",
        }

    def _message(self, step: Step, model: str, req: RecordedRequest) -> dict:
        return {
            "id": _new_id("msg"),
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": step.blocks,
            "stop_reason": step.stop_reason,
            "stop_sequence": None,
            "usage": dict(self._usage(req, 5, step.input_tokens), **(step.usage or {})),
        }

    def _stream(self, step: Step, model: str, req: RecordedRequest) -> None:
        self._start_stream("text/event-stream; charset=utf-8", [("request-id", _new_id("req")), *step.headers.items()])
        msg = self._message(step, model, req)
        start = dict(msg, content=[], stop_reason=None)
        start["usage"] = dict(msg["usage"], output_tokens=1)
        ev = self._event

        def pause() -> bool:
            return self._sleep(step.chunk_delay) if step.chunk_delay else True

        if not ev("message_start", {"type": "message_start", "message": start}):
            return
        for i, block in enumerate(step.blocks):
            if block["type"] == "text":
                ev(
                    "content_block_start",
                    {"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}},
                )
                body = block["text"]
                pieces = [body[j : j + 40] for j in range(0, len(body), 40)] or [""]
                for p in pieces:
                    if not pause():
                        return
                    ev(
                        "content_block_delta",
                        {"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": p}},
                    )
            elif block["type"] == "tool_use":
                ev(
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": i,
                        "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                    },
                )
                js = json.dumps(block["input"])
                for j in range(0, len(js), 60):
                    if not pause():
                        return
                    ev(
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": i,
                            "delta": {"type": "input_json_delta", "partial_json": js[j : j + 60]},
                        },
                    )
            else:  # pass other block kinds through whole
                ev("content_block_start", {"type": "content_block_start", "index": i, "content_block": block})
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        final_usage = {"output_tokens": 5}
        if step.input_tokens is not None:
            final_usage["input_tokens"] = step.input_tokens
        final_usage.update(step.usage or {})
        ev(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": step.stop_reason, "stop_sequence": None},
                "usage": final_usage,
            },
        )
        ev("message_stop", {"type": "message_stop"})


# --------------------------------------------------------------------------
# Connection refused
# --------------------------------------------------------------------------


class RefusingPort:
    """A 127.0.0.1 port that is bound but never listens: connecting gets ECONNREFUSED.

    Holding the bound socket keeps the port from being reused while the test runs.
    """

    def __init__(self, host: str = "127.0.0.1"):
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind((host, 0))
        self.host = host
        self.port = self._sock.getsockname()[1]

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def close(self) -> None:
        self._sock.close()

    def __enter__(self) -> RefusingPort:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def refused_url() -> str:
    """A URL whose port refuses connections (the port is freed again, so prefer :class:`RefusingPort`)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"
