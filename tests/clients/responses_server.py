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
the client never hangs.

Example::

    srv = ResponsesServer().start()
    srv.script(exec_command("sleep 3; echo hi"), message("done"))
    srv.write_codex_config(codex_home)
    ...
    srv.wait_for(lambda r: r.function_outputs(), timeout=30)
    srv.stop()
"""

from __future__ import annotations

import http.server
import itertools
import json
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

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

_SECRET_HEADERS = {"authorization", "x-api-key", "proxy-authorization", "cookie", "openai-api-key"}
_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}{next(_ids):04d}"


# --------------------------------------------------------------------------
# Steps
# --------------------------------------------------------------------------


@dataclass
class Step:
    """How to answer one request: ``kind`` is ``"items"``, ``"error"``, ``"hang"`` or ``"custom"``."""

    kind: str
    items: list[dict] = field(default_factory=list)
    status: int = 200
    error_message: str | None = None
    delay: float = 0.0
    func: Callable[["RecordedRequest"], "Step"] | None = None

    def after(self, seconds: float) -> "Step":
        self.delay = float(seconds)
        return self

    def describe(self) -> str:
        if self.kind == "items":
            return "items[" + ",".join(i.get("name") or i["type"] for i in self.items) + "]"
        if self.kind == "error":
            return f"error {self.status}"
        return self.kind


def message(reply: str, *, delay: float = 0.0) -> Step:
    """A plain assistant reply: the turn ends."""
    item = {"type": "message", "role": "assistant", "id": _new_id("msg"), "status": "completed",
            "content": [{"type": "output_text", "text": reply, "annotations": []}]}
    return Step("items", items=[item], delay=delay)


def function_call(name: str, arguments: dict | str, *, call_id: str | None = None, text: str | None = None,
                  delay: float = 0.0, namespace: str | None = None) -> Step:
    """One ``function_call`` output item (optionally preceded by an assistant ``text``)."""
    items: list[dict] = []
    if text:
        items.extend(message(text).items)
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    call = {"type": "function_call", "id": _new_id("fc"), "call_id": call_id or _new_id("call"),
            "name": name, "arguments": args, "status": "completed"}
    if namespace:
        call["namespace"] = namespace
    items.append(call)
    return Step("items", items=items, delay=delay)


def exec_command(cmd: str, *, call_id: str | None = None, yield_time_ms: int | None = None,
                 sandbox_permissions: str | None = None, justification: str | None = None,
                 delay: float = 0.0) -> Step:
    """A call of Codex 0.169.0's ``exec_command`` tool: the real client runs ``cmd`` in a shell."""
    args: dict[str, Any] = {"cmd": cmd}
    if yield_time_ms is not None:
        args["yield_time_ms"] = yield_time_ms
    if sandbox_permissions is not None:
        args["sandbox_permissions"] = sandbox_permissions
    if justification is not None:
        args["justification"] = justification
    return function_call("exec_command", args, call_id=call_id, delay=delay)


def error(status: int, message_text: str | None = None, *, delay: float = 0.0) -> Step:
    """An HTTP error with an OpenAI error body."""
    return Step("error", status=status, error_message=message_text or f"scripted error {status}", delay=delay)


def hang(*, delay: float = 0.0) -> Step:
    """Never answer: the request blocks until the server stops."""
    return Step("hang", delay=delay)


def custom(func: Callable[["RecordedRequest"], Step]) -> Step:
    """Decide the answer when the request arrives."""
    return Step("custom", func=func)


# --------------------------------------------------------------------------
# Recorded requests
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One request as the server saw it (secret headers removed)."""

    seq: int
    time: float
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    route: str | None = None
    answer: str | None = None

    @property
    def route_path(self) -> str:
        return self.path.split("?", 1)[0].rstrip("/")

    @property
    def is_responses(self) -> bool:
        return self.method == "POST" and self.route_path.endswith("/responses")

    @property
    def input(self) -> list[dict]:
        if isinstance(self.body, dict) and isinstance(self.body.get("input"), list):
            return [i for i in self.body["input"] if isinstance(i, dict)]
        return []

    @property
    def tool_names(self) -> list[str]:
        tools = self.body.get("tools") if isinstance(self.body, dict) else None
        names: list[str] = []
        for tool in tools or []:
            if isinstance(tool, dict):
                names.append(tool.get("name") or tool.get("type") or "")
        return names

    @property
    def instructions(self) -> str:
        value = self.body.get("instructions") if isinstance(self.body, dict) else None
        return value if isinstance(value, str) else ""

    def function_outputs(self) -> list[dict]:
        """Every ``function_call_output`` item of the request's input."""
        return [i for i in self.input if i.get("type") == "function_call_output"]

    def output_text(self, call_id: str | None = None) -> str:
        parts = []
        for item in self.function_outputs():
            if call_id and item.get("call_id") != call_id:
                continue
            out = item.get("output")
            parts.append(out if isinstance(out, str) else json.dumps(out))
        return "\n".join(parts)

    def user_texts(self) -> list[str]:
        texts = []
        for item in self.input:
            if item.get("type") == "message" and item.get("role") == "user":
                for part in item.get("content") or []:
                    if isinstance(part, dict) and isinstance(part.get("text"), str):
                        texts.append(part["text"])
        return texts

    def last_user_text(self) -> str:
        texts = self.user_texts()
        return texts[-1] if texts else ""


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


Predicate = Callable[[RecordedRequest], bool]


def input_contains(needle: str) -> Predicate:
    return lambda req: needle in json.dumps(req.input)


def is_subagent(req: RecordedRequest) -> bool:
    """A spawned sub-agent's request: its thread is not its session's root thread (0.169.0 metadata)."""
    meta = req.turn_metadata
    return bool(meta.get("thread_id")) and meta.get("thread_id") != meta.get("session_id")


class _Route:
    def __init__(self, name: str, match: Predicate):
        self.name, self.match = name, match
        self.steps: list[Step] = []


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64
    owner: "ResponsesServer"


class ResponsesServer:
    """A scripted Responses API on ``127.0.0.1``; use as a context manager or :meth:`start` / :meth:`stop`."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, exhausted_text: str = "ok",
                 model: str = "gpt-test"):
        self._host, self._port = host, port
        self.exhausted_text = exhausted_text
        self.model = model
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._requests: list[RecordedRequest] = []
        self._routes: list[_Route] = []
        self._main = _Route("main", lambda r: True)
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._seq = itertools.count(1)

    # -- lifecycle -----------------------------------------------------
    def start(self) -> "ResponsesServer":
        if self._httpd is None:
            self._stopping.clear()
            httpd = _HTTPServer((self._host, self._port), _Handler)
            httpd.owner = self
            self._httpd, self._port = httpd, httpd.server_address[1]
            self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                            name=f"responses-server-{self._port}", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        with self._cond:
            self._cond.notify_all()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    close = stop

    def __enter__(self) -> "ResponsesServer":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def base_url(self) -> str:
        """The provider's ``base_url`` for config.toml."""
        return f"http://{self._host}:{self._port}/v1"

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
            "stream_max_retries = 0\n"
            + extra
        )

    def write_codex_config(self, codex_home: Path | str, *, extra: str = "") -> Path:
        path = Path(codex_home) / "config.toml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.config_toml(extra=extra))
        return path

    # -- scripting -----------------------------------------------------
    def script(self, *steps: Step, match: Predicate | None = None, route: str | None = None) -> "ResponsesServer":
        """Queue ``steps``, one per request: on ``main``, or on a custom route given by ``match``."""
        with self._lock:
            if match is None and route in (None, "main"):
                target = self._main
            else:
                name = route or f"route{len(self._routes) + 1}"
                target = next((r for r in self._routes if r.name == name), None)
                if target is None:
                    if match is None:
                        raise KeyError(f"no route {name!r}; give match=")
                    target = _Route(name, match)
                    self._routes.append(target)
                elif match is not None:
                    target.match = match
            target.steps.extend(steps)
        return self

    def pending(self, route: str = "main") -> int:
        with self._lock:
            target = self._main if route == "main" else next((r for r in self._routes if r.name == route), None)
            return len(target.steps) if target else 0

    def _choose(self, req: RecordedRequest) -> tuple[str, Step]:
        with self._lock:
            chosen = self._main
            for r in self._routes:
                try:
                    if r.match(req):
                        chosen = r
                        break
                except Exception:  # noqa: BLE001 - a broken predicate is no match
                    continue
            step = chosen.steps.pop(0) if chosen.steps else message(self.exhausted_text)
        if step.kind == "custom" and step.func is not None:
            step = step.func(req)
        return chosen.name, step

    # -- the request log ---------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def responses_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.is_responses]

    def _record(self, req: RecordedRequest) -> None:
        with self._cond:
            self._requests.append(req)
            self._cond.notify_all()

    def wait_for(self, predicate: Predicate, timeout: float = 30.0, *, start: int = 0) -> RecordedRequest:
        """Wait until a recorded request (from index ``start``) satisfies ``predicate``; return it."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for r in self._requests[start:]:
                    try:
                        if predicate(r):
                            return r
                    except Exception:  # noqa: BLE001
                        pass
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = "\n".join(f"  #{r.seq} {r.method} {r.path} route={r.route} answer={r.answer}"
                                     for r in self._requests)
                    raise TimeoutError(f"no matching request within {timeout}s; seen:\n{seen}")
                self._cond.wait(min(left, 0.2))

    def wait_for_count(self, n: int, timeout: float = 30.0, *, route: str | None = None) -> list[RecordedRequest]:
        """Wait until ``n`` responses requests (answered by ``route``, if given) have arrived."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = [r for r in self._requests if r.is_responses and (route is None or r.route == route)]
                if len(got) >= n:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"only {len(got)} of {n} responses requests within {timeout}s")
                self._cond.wait(min(left, 0.2))


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    @property
    def owner(self) -> ResponsesServer:
        return self.server.owner

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return b""

    def _recorded(self, raw: bytes) -> RecordedRequest:
        body: Any = None
        if raw:
            encoding = (self.headers.get("Content-Encoding") or "").lower()
            data = raw
            if encoding == "zstd":
                body = None  # not expected from a local provider; kept unparsed
            else:
                try:
                    body = json.loads(data)
                except ValueError:
                    body = None
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in _SECRET_HEADERS}
        return RecordedRequest(next(self.owner._seq), time.time(), self.command, self.path, headers, body)

    def _send_json(self, status: int, obj: Any) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _sleep(self, seconds: float) -> bool:
        if seconds > 0:
            return not self.owner._stopping.wait(seconds)
        return not self.owner._stopping.is_set()

    def do_GET(self) -> None:
        req = self._recorded(b"")
        self.owner._record(req)
        if req.route_path.endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": self.owner.model, "object": "model"}],
                                  "models": []})
            return
        self._send_json(200, {})

    def do_POST(self) -> None:
        req = self._recorded(self._read_body())
        if not req.is_responses:
            self.owner._record(req)
            self._send_json(200, {})
            return
        route, step = self.owner._choose(req)
        req.route, req.answer = route, step.describe()
        self.owner._record(req)
        if not self._sleep(step.delay):
            self.close_connection = True
            return
        if step.kind == "hang":
            self.owner._stopping.wait()
            self.close_connection = True
            return
        if step.kind == "error":
            self._send_json(step.status, {"error": {"message": step.error_message, "type": "scripted",
                                                    "code": None, "param": None}})
            return
        self._stream(step, req)

    def _stream(self, step: Step, req: RecordedRequest) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        response_id = _new_id("resp")
        model = (req.body or {}).get("model") or self.owner.model

        def ev(name: str, data: dict) -> bool:
            try:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
                self.wfile.flush()
            except OSError:
                return False
            return True

        base = {"id": response_id, "object": "response", "created_at": int(time.time()), "model": model}
        if not ev("response.created", {"type": "response.created", "response": dict(base, status="in_progress")}):
            return
        for index, item in enumerate(step.items):
            if not ev("response.output_item.done", {"type": "response.output_item.done", "output_index": index,
                                                    "item": item}):
                return
        size = len(json.dumps(req.body or {})) // 4 + 1
        usage = {"input_tokens": size, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": size + 5}
        ev("response.completed", {"type": "response.completed",
                                  "response": dict(base, status="completed", output=step.items, usage=usage)})
