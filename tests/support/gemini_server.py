"""A scripted, local stand-in for the Gemini API (`generativelanguage`), for the real Gemini CLI.

Gemini CLI talks to it through ``GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:PORT`` with ``GEMINI_API_KEY`` set and
``security.auth.selectedType: "gemini-api-key"`` in its settings (:meth:`GeminiServer.env` and
:meth:`GeminiServer.settings` give exactly that).  It POSTs ``/v1beta/models/{model}:streamGenerateContent?alt=sse``
for each turn of the main loop and reads server-sent events, ``data: <GenerateContentResponse>`` each; it also
POSTs ``:generateContent`` (side requests: a session summary, the next-speaker check, a router) and
``:countTokens``.  Standard library only.

Vocabulary (as in :mod:`anthropic_server` and :mod:`responses_server`)
---------------------------------------------------------------------
*Step*: how the server answers ONE streamed model request: :func:`text` (a reply), :func:`function_call` /
:func:`shell` (the client runs the real tool), :func:`error`, :func:`hang`, :func:`custom`.

*Route*: a queue of steps plus a predicate.  Custom routes (``script(..., match=...)``) are tried first, then
``main`` (every other streamed request).  A route whose queue is exhausted answers :attr:`exhausted_text`, so
the client never hangs.  ``:generateContent`` requests are side requests, answered with :attr:`side_text`
unless a custom route claims them.

Example::

    srv = GeminiServer().start()
    srv.script(shell("touch marker"), text("done"))
    env.update(srv.env())
    ...
    srv.wait_for(lambda r: r.function_responses(), timeout=30)
    srv.stop()
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from scripted_http import ScriptedHandler, ScriptedServer
from scripted_parts import RecordedRequest as _RecordedRequest
from scripted_parts import Route, ScriptedStep

__all__ = [
    "API_KEY",
    "GeminiServer",
    "MODEL",
    "RecordedRequest",
    "Step",
    "ask_user",
    "custom",
    "error",
    "function_call",
    "hang",
    "shell",
    "text",
    "text_contains",
]

#: The key the client sends as ``x-goog-api-key`` (any value works; never a real one).
API_KEY = "gemini-test-key-not-a-secret"
#: The model the tests name with ``-m`` (an explicit model skips the client's router).
MODEL = "gemini-2.5-flash"

_SECRET_HEADERS = frozenset({"authorization", "x-goog-api-key", "proxy-authorization", "cookie"})


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------


@dataclass
class Step(ScriptedStep):
    """How to answer one request: ``kind`` is ``"parts"``, ``"error"``, ``"hang"`` or ``"custom"``; ``usage``
    is reported in the last chunk's `usageMetadata` (over the defaults)."""

    parts: list[dict] = field(default_factory=list)
    error_status: str = "INVALID_ARGUMENT"

    def describe(self) -> str:
        if self.kind == "parts":
            return (
                "parts["
                + ",".join(p["functionCall"]["name"] if "functionCall" in p else "text" for p in self.parts)
                + "]"
            )
        return super().describe()


def text(reply: str, *, delay: float = 0.0, usage: dict | None = None) -> Step:
    """A plain model reply: the turn ends."""
    return Step("parts", parts=[{"text": reply}], delay=delay, usage=usage)


def function_call(name: str, args: dict, *, text_before: str | None = None, delay: float = 0.0) -> Step:
    """One ``functionCall`` part (optionally after some reply text): the client runs the real tool."""
    parts: list[dict] = [{"text": text_before}] if text_before else []
    parts.append({"functionCall": {"name": name, "args": args}})
    return Step("parts", parts=parts, delay=delay)


def shell(command: str, *, description: str | None = None, delay: float = 0.0) -> Step:
    """A call of Gemini CLI's ``run_shell_command`` tool."""
    args: dict[str, Any] = {"command": command}
    if description:
        args["description"] = description
    return function_call("run_shell_command", args, delay=delay)


def ask_user(question: str, *, header: str = "Question", options: tuple[str, ...] = ("Yes", "No")) -> Step:
    """A call of Gemini CLI's ``ask_user`` tool: the client asks its person (input needed)."""
    return function_call(
        "ask_user",
        {
            "questions": [
                {
                    "question": question,
                    "header": header,
                    "type": "choice",
                    "options": [{"label": o, "description": o} for o in options],
                    "multiSelect": False,
                }
            ]
        },
    )


def error(status: int, message_text: str | None = None, *, api_status: str | None = None, delay: float = 0.0) -> Step:
    """An HTTP error with a Google API error body."""
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED"}
    step = Step.error(status, message_text, delay=delay)
    step.error_status = api_status or names.get(status, "INTERNAL")
    return step


hang = Step.hang
custom = Step.custom


# --------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest(_RecordedRequest):
    """One request as the server saw it (secret headers removed)."""

    @property
    def method_name(self) -> str:
        """The API method after the colon: ``streamGenerateContent``, ``generateContent``, ``countTokens``."""
        return self.route_path.rsplit(":", 1)[-1] if ":" in self.route_path else ""

    @property
    def model(self) -> str:
        tail = self.route_path.rsplit("/models/", 1)[-1]
        return tail.split(":", 1)[0]

    model_path = ":streamGenerateContent"
    is_stream = _RecordedRequest.scripted

    @property
    def contents(self) -> list[dict]:
        return self._body_dicts("contents")

    @property
    def tool_names(self) -> list[str]:
        return [
            decl["name"]
            for tool in self.tools
            for decl in tool.get("functionDeclarations") or []
            if isinstance(decl, dict) and isinstance(decl.get("name"), str)
        ]

    def _parts(self, role: str | None = None) -> list[dict]:
        """Every part of the request's contents (of one role, if given)."""
        return [
            part
            for content in self.contents
            if role in (None, content.get("role"))
            for part in content.get("parts") or []
            if isinstance(part, dict)
        ]

    def function_responses(self) -> list[dict]:
        """Every ``functionResponse`` part of the request's contents."""
        return [part["functionResponse"] for part in self._parts() if isinstance(part.get("functionResponse"), dict)]

    def user_texts(self) -> list[str]:
        return [part["text"] for part in self._parts("user") if isinstance(part.get("text"), str)]


Predicate = Callable[[RecordedRequest], bool]


def text_contains(needle: str) -> Predicate:
    """A streamed request whose last user content (text or a function's response) holds ``needle``."""

    def match(req: RecordedRequest) -> bool:
        return req.is_stream and bool(req.contents) and needle in json.dumps(req.contents[-1])

    return match


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class GeminiServer(ScriptedServer):
    """A scripted Gemini API on ``127.0.0.1``; use as a context manager or :meth:`start` / :meth:`stop`."""

    thread_name = "gemini-server"

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, *, exhausted_text: str = "ok", side_text: str = "Scripted"
    ):
        super().__init__(host, port, exhausted_text=exhausted_text)
        self.side_text = side_text

    @property
    def handler_class(self) -> type[ScriptedHandler]:
        return _Handler

    def env(self) -> dict[str, str]:
        """What the client's environment needs to talk to this server and nothing else."""
        return {"GOOGLE_GEMINI_BASE_URL": self.url, "GEMINI_API_KEY": API_KEY}

    @staticmethod
    def settings() -> dict:
        """The settings that keep the client local and quiet: the API key's auth, no statistics, no update
        check, no release notes or tips, no folder-trust dialog."""
        return {
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
            "ui": {"showTips": False, "hideBanner": True},
            "telemetry": {"enabled": False},
        }

    # -- scripting -----------------------------------------------------
    def _builtin_route(self, req: RecordedRequest) -> Route | None:
        return self._main if req.is_stream else None

    def _exhausted_step(self) -> Step:
        return text(self.exhausted_text)

    def _side_step(self) -> Step:
        return text(self.side_text)

    # -- the request log ---------------------------------------------
    @property
    def stream_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_stream]


def _usage(step: Step, req: RecordedRequest) -> dict:
    prompt = len(json.dumps(req.body or {})) // 4 + 1
    usage = {"promptTokenCount": prompt, "candidatesTokenCount": 5, "totalTokenCount": prompt + 5}
    usage.update(step.usage or {})
    return usage


def _chunk(parts: list[dict], *, finish: str | None, usage: dict | None, model: str) -> dict:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    chunk: dict[str, Any] = {"candidates": [candidate], "modelVersion": model, "responseId": "scripted"}
    if usage:
        chunk["usageMetadata"] = usage
    return chunk


class _Handler(ScriptedHandler):
    secret_headers = _SECRET_HEADERS
    request_class = RecordedRequest

    def _models_listing(self) -> dict:
        return {"models": [{"name": f"models/{MODEL}"}]}

    def _send_error(self, step: Step) -> None:
        body = {"error": {"code": step.status, "message": step.error_message, "status": step.error_status}}
        self._send_json(step.status, body)

    def do_POST(self) -> None:
        req = self._recorded(self._read_body())
        if req.method_name == "countTokens":
            self.owner._record(req)
            self._send_json(200, {"totalTokens": 1})
            return
        if req.method_name not in ("streamGenerateContent", "generateContent"):
            self.owner._record(req)
            self._send_json(404, {"error": {"code": 404, "message": "not scripted", "status": "NOT_FOUND"}})
            return
        step = self._answered(req)
        if step is None:
            return
        if req.method_name == "generateContent":
            self._send_json(200, _chunk(step.parts, finish="STOP", usage=_usage(step, req), model=req.model))
            return
        self._stream(step, req)

    def _stream(self, step: Step, req: RecordedRequest) -> None:
        self._start_stream("text/event-stream")
        for index, part in enumerate(step.parts):
            last = index == len(step.parts) - 1
            chunk = _chunk(
                [part], finish="STOP" if last else None, usage=_usage(step, req) if last else None, model=req.model
            )
            if not self._write(f"data: {json.dumps(chunk)}\r\n\r\n".encode()):
                return
