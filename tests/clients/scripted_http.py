"""What the scripted model servers (:mod:`anthropic_server`, :mod:`responses_server`) have in common.

Both are a threaded HTTP server on 127.0.0.1 that records every request, answers model requests from
queues of scripted steps (*routes*, see either module's docstring) and streams server-sent events; they
differ only in the wire format of the API they stand in for.  This module holds the parts that do not
depend on that format: the server's lifecycle, the request log and its waits, the route machinery, and the
handler's body reading, JSON and SSE writing and step timing.  Standard library only.

A server module subclasses :class:`ScriptedServer` (naming its handler and its built-in routes) and
:class:`ScriptedHandler` (its verbs and the API's answers), and its recorded requests subclass
:class:`RecordedRequest`.
"""

from __future__ import annotations

import http.server
import itertools
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "IdSource",
    "RecordedRequest",
    "Route",
    "ScriptedHTTPServer",
    "ScriptedServer",
    "ScriptedHandler",
    "parse_json",
]


class IdSource:
    """Makes ids like the real API's (``<prefix>_<random hex><counter>``), unique within one server module.

    The random part has ``hex_chars`` characters, as long as the real API's ids are, so that a client that
    checks their shape accepts them; the counter keeps ids unique even if the random part repeated.
    """

    def __init__(self, hex_chars: int):
        self._hex_chars = hex_chars
        self._count = itertools.count(1)

    def __call__(self, prefix: str) -> str:
        return f"{prefix}_{uuid.uuid4().hex[: self._hex_chars]}{next(self._count):04d}"


def parse_json(raw: bytes) -> Any:
    """The JSON of a request body, or None if it is empty or not JSON (a bad body is recorded, not fatal)."""
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None


# --------------------------------------------------------------------------
# Recorded requests and routes
# --------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One request as a server saw it (secret headers removed); subclasses add the API's own views."""

    seq: int
    time: float
    method: str
    path: str  # with the query string
    headers: dict[str, str]
    body: Any  # parsed JSON, or None
    raw_body: bytes = b""
    route: str | None = None  # the route that answered it, or None (not a model request)
    answer: str | None = None  # Step.describe() of the answer


Predicate = Callable[[Any], bool]


class Route:
    """A queue of scripted steps and the predicate that decides which requests it answers."""

    def __init__(self, name: str, match: Predicate):
        self.name = name
        self.match = match
        self.steps: list[Any] = []
        self.served = 0  # scripted steps it has answered with so far

    def take(self) -> Any | None:
        """The next scripted step, or None once the queue is exhausted."""
        if not self.steps:
            return None
        self.served += 1
        return self.steps.pop(0)


# --------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------


class ScriptedHTTPServer(http.server.ThreadingHTTPServer):
    # Daemon handler threads: a request left hanging (a "hang" step) never keeps the test process alive.
    daemon_threads = True
    allow_reuse_address = True
    # Clients open many connections at once (model, title, quota requests); keep them from being refused.
    request_queue_size = 64
    owner: ScriptedServer


class ScriptedServer:
    """A scripted API on ``host`` (port 0: any free one): lifecycle, request log, routes.

    Subclasses set :attr:`handler_class` and :attr:`thread_name`, build their built-in routes in
    :attr:`builtin_routes` (tried after the custom ones, by :meth:`_builtin_route`) and say what an exhausted
    route answers (:meth:`_exhausted_step`).
    """

    handler_class: type[ScriptedHandler]
    thread_name = "scripted-server"

    def __init__(self, host: str, port: int, *, exhausted_text: str):
        self._host = host
        self._port = port
        self.exhausted_text = exhausted_text
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._requests: list[Any] = []
        self._routes: list[Route] = []  # custom routes, tried in order
        self.builtin_routes: dict[str, Route] = {}
        self._httpd: ScriptedHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._seq = itertools.count(1)

    # -- lifecycle -----------------------------------------------------
    def start(self):
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = ScriptedHTTPServer((self._host, self._port), self.handler_class)
        httpd.owner = self
        self._httpd = httpd
        self._port = httpd.server_address[1]
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{self.thread_name}-{self._port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: hanging requests are released (their connections drop)."""
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

    def close(self) -> None:
        self.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._port

    @property
    def stopping(self) -> bool:
        return self._stopping.is_set()

    # -- routes --------------------------------------------------------
    def _custom_route(self, name: str) -> Route | None:
        return next((r for r in self._routes if r.name == name), None)

    def _find_route(self, name: str) -> Route | None:
        """A built-in route, or else a custom one, by name."""
        return self.builtin_routes.get(name) or self._custom_route(name)

    def _set_route(self, name: str, match: Predicate) -> Route:
        """The custom route ``name`` with its predicate set to ``match`` (added after the others if new)."""
        with self._lock:
            route = self._custom_route(name)
            if route is None:
                route = Route(name, match)
                self._routes.append(route)
            else:
                route.match = match
            return route

    def pending(self, route: str = "main") -> int:
        """How many scripted steps of a route are still unused."""
        with self._lock:
            r = self._find_route(route)
            return len(r.steps) if r else 0

    def _builtin_route(self, req: Any) -> Route | None:
        """The built-in route that answers ``req`` when no custom route does; None: a side request."""
        raise NotImplementedError

    def _exhausted_step(self) -> Any:
        """The answer of a route whose queue is exhausted (so that the client never hangs)."""
        raise NotImplementedError

    def _side_step(self) -> Any:
        """The answer to a request no route claims (only servers whose built-in routes can decline one)."""
        raise NotImplementedError

    def _choose(self, req: Any) -> tuple[str, Any]:
        """The answering route's name and its step for ``req``: custom routes first (a predicate that raises
        is no match), then the built-in ones; a ``custom`` step is decided here, outside the lock."""
        with self._lock:
            chosen = None
            for r in self._routes:
                try:
                    ok = r.match(req)
                except Exception:  # noqa: BLE001 - a broken predicate is no match
                    ok = False
                if ok:
                    chosen = r
                    break
            if chosen is None:
                chosen = self._builtin_route(req)
            if chosen is None:
                return "side", self._side_step()
            step = chosen.take()
            if step is None:
                step = self._exhausted_step()
        if step.kind == "custom" and step.func is not None:
            step = step.func(req)
        return chosen.name, step

    # -- the request log ---------------------------------------------
    @property
    def requests(self) -> list[Any]:
        """Every request so far (a copy)."""
        with self._lock:
            return list(self._requests)

    def _record(self, req: Any) -> None:
        with self._cond:
            self._requests.append(req)
            self._cond.notify_all()

    def wait_for(self, predicate: Predicate, timeout: float = 30.0, *, start: int = 0) -> Any:
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
                    seen = "\n".join(
                        f"  #{r.seq} {r.method} {r.path} route={r.route} answer={r.answer}" for r in self._requests
                    )
                    raise TimeoutError(f"no matching request within {timeout}s; seen:\n{seen}")
                self._cond.wait(min(left, 0.2))

    def _wait_count(self, n: int, timeout: float, select: Predicate, what: str) -> list[Any]:
        """Wait until ``n`` recorded requests satisfy ``select``; return them all (``what`` names them in the
        timeout's message)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                got = [r for r in self._requests if select(r)]
                if len(got) >= n:
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"only {len(got)} of {n} {what} requests within {timeout}s")
                self._cond.wait(min(left, 0.2))


# --------------------------------------------------------------------------
# HTTP handling
# --------------------------------------------------------------------------


class ScriptedHandler(http.server.BaseHTTPRequestHandler):
    """Reading requests and writing JSON and server-sent events; subclasses add the verbs."""

    protocol_version = "HTTP/1.1"
    server: ScriptedHTTPServer
    #: Headers never kept in the request log.
    secret_headers: frozenset[str] = frozenset()

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    @property
    def owner(self) -> Any:
        return self.server.owner

    def _read_body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            return self.rfile.read(length)
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size_line = self.rfile.readline().strip()
                size = int(size_line.split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            return b"".join(chunks)
        return b""

    def _kept_headers(self) -> dict[str, str]:
        """The request's headers, lower-cased, without the secret ones."""
        return {k.lower(): v for k, v in self.headers.items() if k.lower() not in self.secret_headers}

    def _send_json(self, status: int, obj: Any, headers: Iterable[tuple[str, str]] = ()) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()

    def _sleep(self, seconds: float) -> bool:
        """Sleep unless the server stops; False if it stopped."""
        if seconds > 0:
            return not self.owner._stopping.wait(seconds)
        return not self.owner.stopping

    def _routed(self, req: Any) -> Any:
        """Choose the step that answers ``req``, note its route and answer on it, record it; the step."""
        route, step = self.owner._choose(req)
        req.route, req.answer = route, step.describe()
        self.owner._record(req)
        return step

    def _wait_out(self, step: Any) -> bool:
        """Let the step's delay pass, or hang until the server stops for a ``hang`` step. False: no answer
        follows (the server stopped, or the step hangs), and the connection is to be dropped."""
        if not self._sleep(step.delay):
            self.close_connection = True
            return False
        if step.kind == "hang":
            self.owner._stopping.wait()
            self.close_connection = True
            return False
        return True

    def _start_stream(self, content_type: str, headers: Iterable[tuple[str, str]] = ()) -> None:
        """Headers of a server-sent event stream; the connection closes after it (the stream has no length)."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _event(self, name: str, data: dict) -> bool:
        """Write one server-sent event; False if the client has gone."""
        try:
            self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()
        except OSError:
            return False
        return True
