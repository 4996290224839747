"""The pieces a scripted model server's script is made of, whatever the API's wire format: the steps (how
one model request is answered), the routes (queues of steps and the requests they answer), the recorded
requests, and ids and JSON bodies as the real APIs have them.  :mod:`scripted_http` serves them; each server
module (:mod:`anthropic_server`, :mod:`responses_server`, :mod:`chat_server`, :mod:`gemini_server`) adds its
API's answers and views.  Standard library only.
"""

from __future__ import annotations

import itertools
import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Self

__all__ = ["IdSource", "Predicate", "RecordedRequest", "Route", "ScriptedStep", "parse_json"]


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
# Steps, recorded requests and routes
# --------------------------------------------------------------------------


@dataclass
class ScriptedStep:
    """How to answer one model request; a server module's ``Step`` adds the fields of its API's answers.

    ``kind`` is the module's answer kind, ``"error"``, ``"hang"`` or ``"custom"``; ``delay`` seconds pass
    before the answer starts; ``usage`` holds usage figures to report over the defaults.
    """

    kind: str
    status: int = 200
    error_message: str | None = None
    delay: float = 0.0
    func: Callable[[Any], Any] | None = None
    usage: dict | None = None

    def after(self, seconds: float) -> Self:
        """This step, answered only after ``seconds``."""
        self.delay = float(seconds)
        return self

    def describe(self) -> str:
        """The answer in a few words, for the request log (modules describe their own answer kinds first)."""
        return f"error {self.status}" if self.kind == "error" else self.kind

    @classmethod
    def error(cls, status: int, message_text: str | None = None, *, delay: float = 0.0) -> Self:
        """An HTTP error; the module's handler writes its API's error body around ``message_text``."""
        return cls("error", status=status, error_message=message_text or f"scripted error {status}", delay=delay)

    @classmethod
    def hang(cls, *, delay: float = 0.0) -> Self:
        """Never answer: the request blocks until the server stops (then the connection drops)."""
        return cls("hang", delay=delay)

    @classmethod
    def custom(cls, func: Callable[[Any], Any]) -> Self:
        """Decide the answer when the request arrives: ``func(request) -> Step``."""
        return cls("custom", func=func)


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

    @property
    def route_path(self) -> str:
        """The path without its query string or a trailing slash."""
        return self.path.split("?", 1)[0].rstrip("/")

    #: How the path of the API's model requests ends (each module names its API's).
    model_path: ClassVar[str] = ""

    @property
    def scripted(self) -> bool:
        """A request the script answers: a model request, POSTed to the API's :attr:`model_path`."""
        return self.method == "POST" and self.route_path.endswith(self.model_path)

    def _body_dicts(self, key: str) -> list[dict]:
        """The objects of the body's list ``key`` (messages, contents, input items...); [] if there is none."""
        items = self.body.get(key) if isinstance(self.body, dict) else None
        return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []

    @property
    def tools(self) -> list[dict]:
        """The tool declarations the client sent (every one of these APIs has them in the body's ``tools``)."""
        return self._body_dicts("tools")

    @staticmethod
    def _results_text(results: list[dict], id_key: str, wanted: str | None, text: Callable[[dict], str | None]) -> str:
        """The texts of the tool results the client sent back (``text`` of each; None: it has none), of the call
        whose ``id_key`` is ``wanted`` or of all, one a line: each API lays its results out its own way."""
        texts = (text(result) for result in results if not wanted or result.get(id_key) == wanted)
        return "\n".join(t for t in texts if t is not None)

    def user_texts(self) -> list[str]:
        """The texts of the request's user content, in order (each API's own layout)."""
        raise NotImplementedError

    def last_user_text(self) -> str:
        texts = self.user_texts()
        return texts[-1] if texts else ""


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
