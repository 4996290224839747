"""What the scripted model servers (:mod:`anthropic_server`, :mod:`responses_server`, :mod:`chat_server`,
:mod:`gemini_server`) have in common.

Each is a threaded HTTP server on 127.0.0.1 that records every request, answers model requests from
queues of scripted steps (*routes*, see any server module's docstring) and streams server-sent events; they
differ only in the wire format of the API they stand in for.  This module holds the parts that do not
depend on that format: the server's lifecycle, the request log and its waits, the route machinery and
scripting, and the handler's body reading, request recording, JSON and SSE writing and step timing (the
steps, routes and recorded requests themselves are in :mod:`scripted_parts`).  Standard library only.

A server module subclasses :class:`ScriptedServer` (naming its handler and its built-in routes) and
:class:`ScriptedHandler` (its verbs and the API's answers); its recorded requests subclass
:class:`RecordedRequest` and its steps :class:`ScriptedStep`.
"""

from __future__ import annotations

import http.server
import itertools
import json
import threading
import time
from collections.abc import Iterable
from typing import Any, Self

from scripted_parts import Predicate, RecordedRequest, Route, parse_json

__all__ = ["ScriptedHTTPServer", "ScriptedServer", "ScriptedHandler"]


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
        # The built-in routes, tried after the custom ones (by _builtin_route); every server has `main`.
        self._main = Route("main", lambda r: True)
        self.builtin_routes: dict[str, Route] = {"main": self._main}
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
    def url(self) -> str:
        """The server's root URL (each client's setting adds the API's own path, if any)."""
        return f"http://{self._host}:{self._port}"

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

    def script(self, *steps: Any, match: Predicate | None = None, route: str | None = None) -> Self:
        """Queue ``steps``, one per model request, on a route.

        Without ``match``/``route`` they go to ``main``; ``route`` alone names a built-in or an existing
        custom route.  With ``match`` a custom route is created (named ``route`` or automatically) or, if
        ``route`` names an existing one, re-targeted; the built-in routes keep their predicates.
        """
        with self._lock:
            if match is not None:
                name = route or f"route{len(self._routes) + 1}"
                if name in self.builtin_routes:
                    raise ValueError("the built-in routes keep their predicates; pick another name")
                target: Route | None = self._set_route(name, match)
            else:
                target = self._find_route(route or "main")
                if target is None:
                    raise KeyError(f"no route {route!r}; give match=")
            target.steps.extend(steps)
        return self

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

    def wait_for_count(self, n: int, timeout: float = 30.0, *, route: str | None = None) -> list[Any]:
        """Wait until ``n`` scripted requests (answered by ``route``, if given) have arrived; return them."""
        return self._wait_count(
            n, timeout, lambda r: r.scripted and route in (None, r.route), f"{route or 'scripted'} route's"
        )

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
    #: The module's recorded request (with its API's views).
    request_class: type[RecordedRequest] = RecordedRequest

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

    def _parse_body(self, raw: bytes) -> Any:
        return parse_json(raw)

    def _recorded(self, raw: bytes) -> Any:
        """The request as the log keeps it (not recorded yet: a routed one is recorded with its answer)."""
        return self.request_class(
            next(self.owner._seq),
            time.time(),
            self.command,
            self.path,
            self._kept_headers(),
            self._parse_body(raw),
            raw,
        )

    def _models_listing(self) -> dict:
        """The API's answer to ``GET .../models`` (the model the tests use)."""
        raise NotImplementedError

    def do_GET(self) -> None:
        req = self._recorded(b"")
        self.owner._record(req)
        self._send_json(200, self._models_listing() if req.route_path.endswith("/models") else {})

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

    def do_POST(self) -> None:
        """A scripted request is answered by its step; any other POST is recorded and answered ``{}``."""
        req = self._recorded(self._read_body())
        if not req.scripted:
            self.owner._record(req)
            self._send_json(200, {})
            return
        step = self._answered(req)
        if step is not None:
            self._stream(step, req)

    def _stream(self, step: Any, req: Any) -> None:
        """Stream the step's answer in the API's events."""
        raise NotImplementedError

    def _send_error(self, step: Any) -> None:
        """Answer an ``error`` step with the API's error body."""
        raise NotImplementedError

    def _answered(self, req: Any) -> Any | None:
        """Route ``req`` and let its step's delay pass; the step to stream, or None when nothing follows (an
        error step, already answered; a hanging step; the server stopped)."""
        step = self._routed(req)
        if not self._wait_out(step):
            return None
        if step.kind == "error":
            self._send_error(step)
            return None
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

    def _write(self, data: bytes) -> bool:
        """Write to the stream now; False if the client has gone."""
        try:
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            return False
        return True

    def _event(self, name: str, data: dict) -> bool:
        """Write one named server-sent event; False if the client has gone."""
        return self._write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
