"""`/api/transitions` on a real uvicorn server (issue 46, item 2): the stream of state changes as Server-Sent
Events for any token that may view, each event's id the change's number, resumed by `Last-Event-ID` or
`?since=`; no token, no stream; a bad `since` is one clear line."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("uvicorn", reason="the web extra is not installed")

from unit_support import a_session  # noqa: E402
from web_app_support import served  # noqa: E402

from lunavect import store  # noqa: E402
from lunavect.core.model import State  # noqa: E402
from lunavect.events import log  # noqa: E402
from lunavect.frontends.web import tokens  # noqa: E402
from lunavect.frontends.web.app import Settings, create_app  # noqa: E402


def record(conn, sid: str, state: State, host: str = "devbox") -> None:
    with store.transaction(conn):
        log.record(conn, [a_session(sid, host=host, state=state)], 1_800_000_000.0)


@pytest.fixture
def panel(iso_env) -> Iterator[tuple[int, str, object]]:
    """A served panel, a view-only token's secret, and the store's connection."""
    conn = iso_env.connect()
    view = tokens.create(conn, "view")[0]
    record(conn, "a1", State.WORKING)
    record(conn, "b1", State.WORKING, host="laptop")
    with served(create_app(Settings(connect=store.connect, hostname="devbox"))) as port:
        yield port, view, conn


def open_stream(port: int, secret: str | None, path: str, **headers: str) -> http.client.HTTPResponse:
    client = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    if secret is not None:
        headers["Authorization"] = f"Bearer {secret}"
    client.request("GET", path, headers=headers)
    return client.getresponse()


def next_event(response: http.client.HTTPResponse) -> tuple[int, dict[str, object]]:
    """The next `transition` event: its id and its data."""
    fields: dict[str, str] = {}
    while True:
        line = response.readline().decode().rstrip("\n")
        if line:
            name, _, value = line.partition(": ")
            fields[name] = value
        elif fields.get("event") == "transition":
            return int(fields["id"]), json.loads(fields["data"])
        else:
            fields = {}


def test_a_view_token_streams_every_change_and_resumes_after_its_last_id(panel):
    port, view, conn = panel
    response = open_stream(port, view, "/api/transitions?since=0")
    assert response.status == 200 and response.getheader("Content-Type", "").startswith("text/event-stream")
    first_id, first = next_event(response)
    _, second = next_event(response)
    assert (first["id"], first["to"], first["host"]) == ("claude:a1", "working", "devbox")
    assert (second["id"], second["host"]) == ("claude:b1", "laptop")
    assert first_id == first["seq"]
    record(conn, "a1", State.PERMISSION)  # a change committed while the stream is open arrives on it
    _, third = next_event(response)
    assert (third["id"], third["from"], third["to"]) == ("claude:a1", "working", "permission")
    response.close()
    # An EventSource reconnecting sends the last id it got: the stream resumes right after it.
    resumed = open_stream(port, view, "/api/transitions", **{"Last-Event-ID": str(first_id)})
    assert next_event(resumed)[1]["id"] == "claude:b1"
    resumed.close()
    one_host = open_stream(port, view, "/api/transitions?since=0&host=laptop")
    assert next_event(one_host)[1]["host"] == "laptop"
    one_host.close()


def test_without_a_token_or_with_a_bad_since_there_is_no_stream(panel):
    port, view, _conn = panel
    refused = open_stream(port, None, "/api/transitions")
    assert refused.status == 401
    refused.close()
    bad = open_stream(port, view, "/api/transitions?since=soon")
    assert bad.status == 400 and "takes a change's number" in json.loads(bad.read())["error"]
