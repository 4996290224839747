"""A scripted, local stand-in for the OpenAI Chat Completions API, for the real OpenCode.

OpenCode talks to it through an ``@ai-sdk/openai-compatible`` provider whose ``baseURL`` is
``http://127.0.0.1:PORT/v1`` (:meth:`ChatServer.provider` writes that provider's config).  The client POSTs
``/v1/chat/completions`` with ``stream: true`` and reads server-sent ``data:`` lines, each a
``chat.completion.chunk``, ending with ``data: [DONE]``.  Standard library only.

Vocabulary (as in :mod:`anthropic_server`)
------------------------------------------
*Step*: how the server answers ONE model request: :func:`reply` (assistant text, the turn ends),
:func:`tool_call` / :func:`bash` (the client runs the real tool), :func:`error`, :func:`hang`, :func:`custom`.

*Route*: a queue of steps plus a predicate.  Custom routes (``script(..., match=...)``) are tried first, then
the built-in ``title`` (OpenCode asks its small model for a session title, with the system text "You are a
title generator."; answered with :attr:`ChatServer.title`, never consuming a step), then ``main``.  A route whose
queue is exhausted answers :attr:`exhausted_text`, so the client never hangs.

Example::

    srv = ChatServer().start()
    srv.script(bash("echo hi"), reply("done"))
    config = {"provider": {"fake": srv.provider()}, "model": "fake/m"}
    ...
    srv.wait_for(lambda r: r.tool_results(), timeout=30)
    srv.stop()
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scripted_http import ScriptedHandler, ScriptedServer
from scripted_parts import IdSource, Route, ScriptedStep
from scripted_parts import RecordedRequest as _RecordedRequest

__all__ = [
    "ChatServer",
    "RecordedRequest",
    "Step",
    "reply",
    "tool_call",
    "bash",
    "error",
    "hang",
    "custom",
    "TITLE_MARKER",
    "MODEL",
]

#: The system text of OpenCode's title request (1.18.33).
TITLE_MARKER = "You are a title generator"
#: The model id the provider offers (``fake/m`` in OpenCode's config).
MODEL = "m"

_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "proxy-authorization", "cookie", "api-key"})
_new_id = IdSource(24)


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------


@dataclass
class Step(ScriptedStep):
    """How to answer one request: ``kind`` is ``"stream"``, ``"error"``, ``"hang"`` or ``"custom"``."""

    text: str | None = None
    calls: list[dict] = field(default_factory=list)
    # Seconds between the text's chunks (a reply that takes a while to stream).
    chunk_delay: float = 0.0

    def describe(self) -> str:
        if self.kind == "stream":
            names = ",".join(c["function"]["name"] for c in self.calls)
            return f"calls[{names}]" if names else "text"
        return super().describe()


def reply(text: str, *, delay: float = 0.0, chunk_delay: float = 0.0, usage: dict | None = None) -> Step:
    """A plain assistant reply: the turn ends (``finish_reason: "stop"``)."""
    return Step("stream", text=text, delay=delay, chunk_delay=chunk_delay, usage=usage)


def tool_call(name: str, arguments: dict | str, *, call_id: str | None = None, text: str | None = None,
              delay: float = 0.0) -> Step:  # fmt: skip
    """One tool call (optionally after some assistant ``text``): ``finish_reason: "tool_calls"``."""
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {"id": call_id or _new_id("call"), "type": "function", "function": {"name": name, "arguments": args}}
    return Step("stream", text=text, calls=[call], delay=delay)


def bash(command: str, *, description: str = "Runs a command", call_id: str | None = None,
         delay: float = 0.0) -> Step:  # fmt: skip
    """A call of OpenCode 1.18.33's ``bash`` tool: the real client runs ``command`` in a shell."""
    return tool_call("bash", {"command": command, "description": description}, call_id=call_id, delay=delay)


error = Step.error  # an HTTP error with an OpenAI error body
hang = Step.hang
custom = Step.custom


# --------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest(_RecordedRequest):
    """One request as the server saw it (secret headers removed)."""

    model_path = "/chat/completions"
    is_chat = _RecordedRequest.scripted

    @property
    def messages(self) -> list[dict]:
        return self._body_dicts("messages")

    @property
    def tool_names(self) -> list[str]:
        return [str((t.get("function") or {}).get("name") or "") for t in self.tools]

    @staticmethod
    def _text(content: Any) -> str:
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(str(p.get("text")) for p in content if isinstance(p, dict) and "text" in p)
        return ""

    @property
    def system_text(self) -> str:
        return "\n".join(self._text(m.get("content")) for m in self.messages if m.get("role") == "system")

    @property
    def is_title(self) -> bool:
        return TITLE_MARKER in self.system_text

    def user_texts(self) -> list[str]:
        return [self._text(m.get("content")) for m in self.messages if m.get("role") == "user"]

    def tool_results(self) -> list[dict]:
        """Every ``role: "tool"`` message (a tool's result the client sends back)."""
        return [m for m in self.messages if m.get("role") == "tool"]

    def tool_result_text(self, call_id: str | None = None) -> str:
        return self._results_text(self.tool_results(), "tool_call_id", call_id, lambda m: self._text(m.get("content")))


Predicate = Callable[[RecordedRequest], bool]


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class ChatServer(ScriptedServer):
    """A scripted Chat Completions API on ``127.0.0.1``; use as a context manager or :meth:`start` / :meth:`stop`."""

    thread_name = "chat-server"

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, exhausted_text: str = "ok",
                 title: str = "Scripted title") -> None:  # fmt: skip
        super().__init__(host, port, exhausted_text=exhausted_text)
        self.title = title
        self._title = Route("title", lambda r: r.is_title)
        self.builtin_routes = {"title": self._title, "main": self._main}

    @property
    def handler_class(self) -> type[ScriptedHandler]:
        return _Handler

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def provider(self, *, name: str = "Scripted") -> dict:
        """The provider entry of OpenCode's config that points at this server (model ``m``)."""
        return {
            "npm": "@ai-sdk/openai-compatible",
            "name": name,
            "options": {"baseURL": self.base_url, "apiKey": "lunavect-test-key"},
            "models": {MODEL: {"name": MODEL, "tool_call": True, "limit": {"context": 100000, "output": 4096}}},
        }

    # -- scripting -----------------------------------------------------
    def _builtin_route(self, req: RecordedRequest) -> Route:
        return self._title if req.is_title else self._main

    def _exhausted_step(self) -> Step:
        return reply(self.exhausted_text)

    def _choose(self, req: Any) -> tuple[str, Any]:
        name, step = super()._choose(req)
        # The title route holds no steps: a title request no custom route claims is answered with the title.
        return (name, reply(self.title)) if name == "title" else (name, step)

    # -- the request log ---------------------------------------------
    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_chat]

    def main_requests(self) -> list[RecordedRequest]:
        return [r for r in self.chat_requests if r.route == "main"]

    def wait_for_main(self, n: int, timeout: float = 30.0) -> list[RecordedRequest]:
        """Wait until ``n`` requests of the main loop have arrived."""
        return self.wait_for_count(n, timeout, route="main")


class _Handler(ScriptedHandler):
    secret_headers = _SECRET_HEADERS
    request_class = RecordedRequest

    def _models_listing(self) -> dict:
        return {"object": "list", "data": [{"id": MODEL, "object": "model"}]}

    def _send_error(self, step: Step) -> None:
        body = {"error": {"message": step.error_message, "type": "invalid_request_error", "code": None}}
        self._send_json(step.status, body)

    def _chunk(self, base: dict, delta: dict, finish: str | None = None, usage: dict | None = None) -> bool:
        body = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])
        if usage is not None:
            body["usage"] = usage
        return self._write(f"data: {json.dumps(body)}\n\n".encode())

    def _stream(self, step: Step, req: RecordedRequest) -> None:
        self._start_stream("text/event-stream")
        base = {"id": _new_id("chatcmpl"), "object": "chat.completion.chunk", "created": int(time.time()),
                "model": MODEL}  # fmt: skip
        if not self._chunk(base, {"role": "assistant", "content": ""}):
            return
        if step.text:
            words = step.text.split(" ")
            for i, word in enumerate(words):
                if i and not self._sleep(step.chunk_delay):
                    return
                if not self._chunk(base, {"content": word if i == 0 else " " + word}):
                    return
        for index, call in enumerate(step.calls):
            if not self._chunk(base, {"tool_calls": [dict(call, index=index)]}):
                return
        size = len(req.raw_body) // 4 + 1
        usage = {"prompt_tokens": size, "completion_tokens": 5, "total_tokens": size + 5}
        usage.update(step.usage or {})
        finish = "tool_calls" if step.calls else "stop"
        if self._chunk(base, {}, finish, usage):
            self._write(b"data: [DONE]\n\n")
