"""The scripted model server on its own (no client; fast)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from anthropic_server import (
    AnthropicServer,
    RefusingPort,
    custom,
    delayed,
    error,
    hang,
    has_tool,
    text,
    tool_use,
    tool_uses,
)

TOOLS = [{"name": "Bash", "input_schema": {"type": "object"}}]


def post(url: str, body: dict, path: str = "/v1/messages?beta=true", timeout: float = 10):
    req = urllib.request.Request(
        url + path,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json", "x-api-key": "secret"},
    )
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        return resp.status, resp.headers, resp.read().decode()


def sse(raw: str) -> list[tuple[str, dict]]:
    events = []
    for chunk in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in chunk.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def body(stream=True, tools=TOOLS, text_="hi", **kw):
    b = {
        "model": "claude-test",
        "max_tokens": 100,
        "stream": stream,
        "messages": [{"role": "user", "content": text_}],
        **kw,
    }
    if tools is not None:
        b["tools"] = tools
    return b


@pytest.fixture
def server():
    with AnthropicServer() as s:
        yield s


def test_stream_text_and_tool_use(server):
    call = tool_use("Bash", {"command": "echo hi"}, text="Running it")
    server.script(call, text("done"))

    status, headers, raw = post(server.url, body())
    events = sse(raw)
    assert status == 200 and headers["content-type"].startswith("text/event-stream")
    names = [e for e, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert events[-2][1]["delta"]["stop_reason"] == "tool_use"
    partial = "".join(
        d["delta"]["partial_json"]
        for e, d in events
        if e == "content_block_delta" and d["delta"]["type"] == "input_json_delta"
    )
    assert json.loads(partial) == {"command": "echo hi"}
    starts = [d["content_block"] for e, d in events if e == "content_block_start"]
    assert starts[0]["type"] == "text" and starts[1] == {
        "type": "tool_use",
        "id": call.blocks[1]["id"],
        "name": "Bash",
        "input": {},
    }

    _, _, raw = post(server.url, body())
    events = sse(raw)
    assert "".join(d["delta"].get("text", "") for e, d in events if e == "content_block_delta") == "done"
    assert events[-2][1]["delta"]["stop_reason"] == "end_turn"

    # exhausted: a plain "ok"
    _, _, raw = post(server.url, body())
    assert "".join(d["delta"].get("text", "") for e, d in sse(raw) if e == "content_block_delta") == "ok"
    reqs = server.main_requests
    assert [r.answer for r in reqs] == [
        "message[text,tool_use:Bash] tool_use",
        "message[text] end_turn",
        "message[text] end_turn",
    ]
    assert "x-api-key" not in reqs[0].headers


def test_a_step_s_headers_come_with_its_stream_and_its_json(server):
    """Rate-limit headers (`anthropic-ratelimit-unified-*`) reach the client on a streamed answer too."""
    for stream in (True, False):
        step = text("hi")
        step.headers = {"anthropic-ratelimit-unified-5h-utilization": "0.42"}
        server.script(step)
        _status, headers, _raw = post(server.url, body(stream=stream))
        assert headers["anthropic-ratelimit-unified-5h-utilization"] == "0.42", stream


def test_side_requests_do_not_consume_the_script(server):
    server.script(text("main reply"))
    _, _, raw = post(server.url, body(stream=False, tools=None))
    assert json.loads(raw)["content"][0]["text"] == server.side_text
    _, _, raw = post(server.url, body(stream=False))
    msg = json.loads(raw)
    assert msg["content"] == [{"type": "text", "text": "main reply"}] and msg["stop_reason"] == "end_turn"
    assert [r.route for r in server.message_requests()] == ["side", "main"]


def test_parallel_tool_uses(server):
    server.script(tool_uses([("Bash", {"command": "a"}), ("Read", {"file_path": "/x"}, "toolu_fixed")]))
    _, _, raw = post(server.url, body(stream=False))
    blocks = json.loads(raw)["content"]
    assert [b["name"] for b in blocks] == ["Bash", "Read"] and blocks[1]["id"] == "toolu_fixed"


@pytest.mark.parametrize(
    "status,etype",
    [(401, "authentication_error"), (429, "rate_limit_error"), (500, "api_error"), (529, "overloaded_error")],
)
def test_errors(server, status, etype):
    server.script(error(status))
    with pytest.raises(urllib.error.HTTPError) as exc:
        post(server.url, body())
    assert exc.value.code == status
    payload = json.loads(exc.value.read())
    assert payload["type"] == "error" and payload["error"]["type"] == etype


def test_delay_and_hang(server):
    server.script(delayed(0.5, text("late")), hang())
    t0 = time.monotonic()
    post(server.url, body(stream=False))
    assert time.monotonic() - t0 >= 0.5

    outcome = {}

    def hung():
        try:
            post(server.url, body(stream=False), timeout=30)
            outcome["r"] = "answered"
        except Exception as e:  # the connection drops when the server stops
            outcome["r"] = type(e).__name__

    th = threading.Thread(target=hung)
    th.start()
    server.wait_for(lambda r: r.answer == "hang", timeout=5)
    time.sleep(0.3)
    assert th.is_alive()
    server.stop()
    th.join(10)
    assert not th.is_alive() and outcome["r"] != "answered"


def test_custom_routes_and_steps(server):
    server.script(text("from the reader"), match=has_tool("Read"), route="reader")
    server.script(custom(lambda req: text(f"you said {req.last_user_text()}")))
    _, _, raw = post(server.url, body(stream=False, tools=[{"name": "Read"}]))
    assert json.loads(raw)["content"][0]["text"] == "from the reader"
    _, _, raw = post(server.url, body(stream=False, text_="abc"))
    assert json.loads(raw)["content"][0]["text"] == "you said abc"
    # an exhausted custom route still claims its requests
    _, _, raw = post(server.url, body(stream=False, tools=[{"name": "Read"}]))
    assert json.loads(raw)["content"][0]["text"] == "ok"
    assert [r.route for r in server.message_requests()] == ["reader", "main", "reader"]


def test_subagent_route(server):
    server.script(text("main"))
    server.script(text("sub"), route="subagent")
    _, _, raw = post(server.url, body(stream=False, system=[{"type": "text", "text": "cc_is_subagent=true; x"}]))
    assert json.loads(raw)["content"][0]["text"] == "sub"
    _, _, raw = post(server.url, body(stream=False))
    assert json.loads(raw)["content"][0]["text"] == "main"


def test_other_paths(server):
    status, _, raw = post(server.url, body(), path="/v1/messages/count_tokens")
    assert status == 200 and json.loads(raw)["input_tokens"] > 0
    with urllib.request.urlopen(urllib.request.Request(server.url + "/", method="HEAD"), timeout=5) as r:
        assert r.status == 200
    with urllib.request.urlopen(server.url + "/anything", timeout=5) as r:
        assert r.status == 200
    assert [r.method for r in server.requests] == ["POST", "HEAD", "GET"]


def test_refused_connections(server):
    with RefusingPort() as port, pytest.raises(urllib.error.URLError) as exc:
        post(port.url, body())
    assert isinstance(exc.value.reason, ConnectionRefusedError)

    url = server.url
    server.refuse_connections()
    with pytest.raises(urllib.error.URLError) as exc:
        post(url, body())
    assert isinstance(exc.value.reason, ConnectionRefusedError)
