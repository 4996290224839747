"""Property (hypothesis): no request at all (any method, path, headers, body bytes, JSON of any depth) makes the
web panel's walls or routes raise; each is answered with a status and, when refused, a one-line JSON error."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("httpx2", reason="the test extra is not installed")

import httpx2  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402
from web_app_support import BASE, seed  # noqa: E402

from lunavect import store  # noqa: E402
from lunavect.frontends.web import guard, tokens  # noqa: E402
from lunavect.frontends.web.app import COOKIE, Settings, create_app  # noqa: E402

PYTHON_RECURSION_LIMIT = 1000
IDS = st.sampled_from(
    ["claude:aaaa1111"] * 3 + ["claude:bbbb2222", "aaaa1111", "claude:nope", "", "..", "%00", "a" * 300, "claude:é#?"]
)
ACTIONS = st.sampled_from(
    ["pin", "unpin", "hide", "unhide", "move", "move", "move", "messages", "reply", "answer", "fly", ""]
)
RANDOM_PATHS = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="#?"), max_size=40
).map(lambda t: "/" + t)
METHODS = st.sampled_from(["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"])
# Mostly the panel's own routes with their own methods, so that requests reach past the walls into the routes.
ROUTES = st.one_of(
    st.sampled_from([("GET", "/"), ("GET", "/api/me"), ("GET", "/api/state"), ("POST", "/api/undo")]),
    st.builds(lambda i, a: ("POST", f"/api/sessions/{i}/{a}"), IDS, ACTIONS),
    st.builds(lambda i, a: ("POST", f"/api/sessions/{i}/{a}"), IDS, ACTIONS),
    st.tuples(METHODS, st.sampled_from(["/", "/api/me", "/static/app.js", "/static/../x", "/api/nothing"])),
    st.tuples(METHODS, RANDOM_PATHS),
)


def deep(depth: int, kind: str) -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    return b'{"before": ' + b'{"a":' * depth + b"1" + b"}" * depth + b"}"


DEEP = st.builds(deep, st.sampled_from([1, 50, 999, 1000, 1500, 2000, 3000]), st.sampled_from(["list", "object"]))
BODIES = st.one_of(
    st.binary(max_size=200),
    DEEP,
    DEEP,
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
        max_leaves=20,
    ).map(lambda v: json.dumps({"before": v, "after": v}).encode()),
)


def mostly(good: list[str], other: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One of `good` (repeats weigh more) three times in four, else anything `other` gives."""
    return st.one_of(st.sampled_from(good), st.sampled_from(good[::-1]), st.sampled_from(good[1:] + good[:1]), other)


HEADER_VALUES = st.text(alphabet=st.characters(codec="latin-1", exclude_categories=("Cc",)), max_size=60)


@pytest.fixture
def client_and_secrets(iso_env):
    """One app for all the examples of a test: what an earlier request changed is the next one's start."""
    conn = iso_env.connect()
    control, _ = tokens.create(conn, "control")
    view, _ = tokens.create(conn, "view")
    seed(conn, "aaaa1111", "working")
    seed(conn, "bbbb2222", "ready")

    async def no_changes():
        await asyncio.Event().wait()
        yield None

    limiter = guard.FailureLimiter()
    app = create_app(Settings(connect=store.connect, hostname="devbox", changes=no_changes, limiter=limiter))
    with TestClient(app, base_url=BASE, raise_server_exceptions=True) as client:
        yield client, limiter, {"control": control, "view": view, "wrong": "x" * 43, "none": ""}


def send(client: TestClient, method: str, path: str, body: bytes, headers: dict[str, str], params: dict) -> None:
    """One request; it must be answered with a status that is not 500, and a refusal with a JSON error."""
    if path.endswith("/open") or path.startswith("/api/events"):  # a terminal opened, a stream that never ends
        return
    raw = {name.encode(): value.encode("latin-1") for name, value in headers.items()}  # any byte a header may hold
    # Hypothesis raises the interpreter's recursion limit while a test runs; a server runs with Python's own.
    raised, limit = sys.getrecursionlimit(), PYTHON_RECURSION_LIMIT
    sys.setrecursionlimit(limit)
    try:
        answer = client.request(method, path, content=body, headers=raw, params=params)
    except (ValueError, httpx2.InvalidURL, httpx2.LocalProtocolError):  # the test's own client would not send it
        return
    finally:
        sys.setrecursionlimit(raised)
    assert answer.status_code != 500, answer.text
    if answer.status_code >= 400 and method != "HEAD" and answer.headers.get("content-type") == "application/json":
        assert json.loads(answer.content)["error"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    route=ROUTES,
    body=BODIES,
    who=st.sampled_from(["control", "control", "control", "view", "wrong", "none"]),
    how=st.sampled_from(["cookie", "cookie", "bearer", "query"]),
    origin=mostly([BASE] * 6 + ["null"], HEADER_VALUES),
    kind=st.sampled_from(["application/json", "application/json", "application/json; charset=utf-8", "text/plain", ""]),
    host=mostly(["127.0.0.1:8765"] * 6 + ["localhost"], HEADER_VALUES),
    extra=st.dictionaries(
        st.sampled_from(["If-None-Match", "Content-Length", "Accept-Encoding", "X-Any"]), HEADER_VALUES, max_size=2
    ),
)
def test_no_request_makes_the_walls_raise(client_and_secrets, route, body, who, how, origin, kind, host, extra):
    client, limiter, secrets = client_and_secrets
    limiter.__init__()  # type: ignore[misc]  # each example starts with no wrong token counted
    secret = secrets[who]
    client.cookies.clear()
    headers = {"Origin": origin, "Content-Type": kind, "Host": host, **extra}
    params = {}
    if secret and how == "cookie":
        client.cookies.set(COOKIE, secret)
    elif secret and how == "bearer":
        headers["Authorization"] = f"Bearer {secret}"
    elif secret:
        params["token"] = secret
    send(client, *route, body, headers, params)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_body_makes_a_change_raise(client_and_secrets, data):
    """Past the walls (the control token, our own page's Origin and Host): any body at all, to any change."""
    client, _, secrets = client_and_secrets
    client.cookies.clear()
    client.cookies.set(COOKIE, secrets["control"])
    if data.draw(st.integers(0, 9), label="row change?") < 8:
        path = f"/api/sessions/{data.draw(IDS, label='id')}/{data.draw(ACTIONS, label='action')}"
    else:
        path = data.draw(st.one_of(st.just("/api/undo"), RANDOM_PATHS.map(lambda p: "/api" + p)), label="path")
    body = data.draw(DEEP if data.draw(st.booleans(), label="deep?") else BODIES, label="body")
    kind = data.draw(st.sampled_from(["application/json", "application/json; charset=utf-8"]), label="type")
    send(client, "POST", path, body, {"Origin": BASE, "Content-Type": kind, "Host": "127.0.0.1:8765"}, {})
