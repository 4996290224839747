"""Property (hypothesis): no line a client's file can carry raises in any reader of either client (issue 25).

A line is any JSON of any depth and shape, a real line (../shared/data) with any of its fields, at any level,
holding another type or a value nested up to 100,000 levels, invalid UTF-8, cut short, or holding a huge string.
Every reader gets it among real lines: the Claude transcript reader and its fold (with what the collector
then stores), the Codex cursor, usage and rollout readers, and the conversation parsers behind `show` and
the peeks (with what they print and send). A reader may refuse a line (None, its own `Unreadable`, a skip it
counts); it never raises anything else, and what it keeps can be stored and printed.
"""

from __future__ import annotations

import json
import os
import random
import re
import tempfile
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from unit_support import shared_data_dir

from lunavect.clients import conversation_at
from lunavect.clients.claude import record_shapes
from lunavect.clients.claude.fold import fold_lines
from lunavect.clients.claude.glance import glance
from lunavect.clients.claude.latest import Latest
from lunavect.clients.claude.records import Unreadable, read_plain, read_record
from lunavect.clients.claude.summary import TranscriptSummary
from lunavect.clients.codex import compressed as codex_compressed
from lunavect.clients.codex.cursor import LifecycleCursor
from lunavect.clients.codex.rollout import first_prompt_title, read_header
from lunavect.conversation.assemble import Assembly
from lunavect.conversation.follow import Follower
from lunavect.conversation.render import render
from lunavect.conversation.window import read_window
from lunavect.conversation.window_parts import parts_of

DATA = shared_data_dir()
CLAUDE_LINES = [line for p in sorted((DATA / "claude").rglob("*.jsonl")) for line in p.read_bytes().splitlines()]
CODEX_LINES = [line for p in sorted((DATA / "codex").rglob("*.jsonl")) for line in p.read_bytes().splitlines()]
pytestmark = pytest.mark.skipif(not CLAUDE_LINES or not CODEX_LINES, reason=f"the shared real files are not at {DATA}")
PROPERTY = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SESSION = "5e55e55e-0000-4000-8000-000000000001"

# Every field name the readers declare, so that each one gets every type somewhere.
KNOWN = sorted(
    {
        name
        for struct in vars(record_shapes).values()
        if isinstance(struct, type) and issubclass(struct, msgspec.Struct)
        for name in struct.__struct_fields__
    }
    | {"payload", "type", "timestamp", "call_id", "arguments", "output", "info", "rate_limits", "turn_id", "cwd"}
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e300, -1e300, 0.0, 1.8e12])
    | st.text(max_size=30)
    | st.sampled_from(["\ud800", "[{", '\\"]}', "\x1b]0;x\x07", "tool_use", "end_turn", "task_complete", SESSION])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KNOWN) | st.text(max_size=6), inner),
    max_leaves=16,
)


@st.composite
def deep_json(draw) -> str:
    """JSON text nested `depth` levels (built as text: a value that deep cannot be made by json.dumps)."""
    depth = draw(st.sampled_from([129, 500, 900, 1100, 2000, 100_000]) | st.integers(1, 1500))
    keys = draw(st.lists(st.sampled_from(KNOWN), min_size=1, max_size=3))
    opens, closes = [], []
    for level in range(depth):
        if (level + len(keys)) % 3:
            opens.append("[")
            closes.append("]")
        else:
            opens.append('{"%s":' % keys[level % len(keys)])  # noqa: UP031 - JSON text, braces and all
            closes.append("}")
    return "".join(opens) + json.dumps(draw(scalars)) + "".join(reversed(closes))


def _replace_at(value: object, path: list[int], new: str) -> str:
    """`value` as JSON text with the node that `path` picks (indices into each level's children) replaced by
    the JSON text `new`."""
    marker = "\u2063LUNAVECT\u2063"
    node, parent, key = value, None, None
    for step in path:
        children = (
            list(node.items()) if isinstance(node, dict) else list(enumerate(node)) if isinstance(node, list) else []
        )
        if not children:
            break
        parent, (key, node) = node, children[step % len(children)]
    if parent is None:
        return new
    parent[key] = marker  # type: ignore[index]
    return json.dumps(value, ensure_ascii=False).replace(json.dumps(marker, ensure_ascii=False), new, 1)


_NAMING = re.compile(rb'"(?:session_meta|user_message|function_call|custom-title|summary|user)"')


def _cut_pairs(value: object, at: int) -> object:
    """`value` with half an emoji's UTF-16 pair put into each string that may name something (longer than a
    record's type, which stays whole), at `at`."""
    if isinstance(value, str):
        return value[: at % len(value)] + "\ud83d" + value[at % len(value) :] if len(value) > 20 else value
    if isinstance(value, list):
        return [_cut_pairs(item, at) for item in value]
    if isinstance(value, dict):
        return {key: _cut_pairs(item, at) for key, item in value.items()}
    return value


def _text(value: object, ascii_only: bool) -> str:
    """JSON text as a client may write it: UTF-8, or ASCII with escapes (`\\ud800` then reads as a lone
    surrogate, which no UTF-8 output can hold)."""
    return json.dumps(value, ensure_ascii=ascii_only)


@st.composite
def lines(draw, pool: list[bytes]) -> bytes:
    """A line a client's file may carry: real, reshaped, damaged or made up."""
    kinds = ["real field", "known fields", "any json", "deep", "bytes", "damaged", "cut emoji", "huge"]
    kind = draw(st.sampled_from(kinds))
    real = pool[draw(st.integers(0, len(pool) - 1))]
    ascii_only = draw(st.booleans())
    if kind == "real field":  # one field of a real line, at any level, of another type or deep
        new = draw(st.one_of(json_values.map(lambda v: _text(v, ascii_only)), deep_json()))
        text = _replace_at(json.loads(real), draw(st.lists(st.integers(0, 50), max_size=6)), new)
        return text.encode("utf-8", "surrogatepass")
    if kind == "known fields":
        record = draw(st.dictionaries(st.sampled_from(KNOWN), json_values, max_size=8))
        record.setdefault("type", draw(st.sampled_from(["user", "assistant", "system", "event_msg", "response_item"])))
        return _text(record, ascii_only).encode("utf-8", "surrogatepass")
    if kind == "any json":
        return _text(draw(json_values), ascii_only).encode("utf-8", "surrogatepass")
    if kind == "deep":
        return draw(deep_json()).encode()
    if kind == "cut emoji":  # every string of a real line cut inside a UTF-16 pair, as a JS string slice cuts
        naming = [line for line in pool if _NAMING.search(line)]  # a line that names, titles or runs something
        real = naming[draw(st.integers(0, len(naming) - 1))]
        return json.dumps(_cut_pairs(json.loads(real), draw(st.integers(0, 40)))).encode()
    if kind == "bytes":
        return draw(st.binary(max_size=400)).replace(b"\n", b" ")
    if kind == "damaged":  # cut short, or with bytes that are no UTF-8
        at = draw(st.integers(0, len(real)))
        if draw(st.booleans()):
            return real[:at]
        return real[:at] + draw(st.binary(min_size=1, max_size=4).map(lambda b: bytes(x | 0x80 for x in b))) + real[at:]
    size = draw(st.sampled_from([100_000, 1_000_000, 9 * 1024 * 1024]))  # beyond every reader's line bound
    filler = draw(st.sampled_from(["x", "[{", '\\"[', "\\u00e9"]))
    return _replace_at(
        json.loads(real), [draw(st.integers(0, 50))], '"' + filler * (size // len(filler)) + '"'
    ).encode()


def printed_and_sent(messages) -> None:
    """What `show` prints (UTF-8 text) and what `show --json` and the web peek send: neither may fail."""
    for message in messages:
        "\n".join(render(message)).encode("utf-8")
    msgspec.json.encode(messages)


def a_file(folder: Path, name: str, pool: list[bytes], line: bytes, where: int) -> Path:
    """Real lines with `line` among them (at `where`: first, in the middle, last)."""
    chosen = pool[: 30 if pool is CLAUDE_LINES else 12]
    at = [0, len(chosen) // 2, len(chosen)][where]
    path = folder / name
    path.write_bytes(b"\n".join([*chosen[:at], line, *chosen[at:]]) + b"\n")
    return path


@PROPERTY
@given(line=lines(CLAUDE_LINES), where=st.integers(0, 2))
def test_no_line_raises_in_a_claude_reader(line, where):
    for read in (read_record, read_plain):
        try:
            read(line)
        except Unreadable:
            pass
    summary, latest = TranscriptSummary(SESSION), Latest(SESSION)
    neighbours = [*CLAUDE_LINES[:5], line, *CLAUDE_LINES[5:10]]
    fold_lines(list(enumerate(neighbours)), summary, latest, 2e9)
    msgspec.json.encode(summary)  # what the collector stores
    msgspec.json.encode([evidence for _, evidence in latest.evidence()])
    with tempfile.TemporaryDirectory() as folder:
        path = a_file(Path(folder), f"{SESSION}.jsonl", CLAUDE_LINES, line, where)
        msgspec.json.encode(glance(str(path), SESSION).summary)
        source = conversation_at(path, "claude")
        window = read_window(source, messages=20)
        printed_and_sent(window.messages)
        if window.older and window.start is not None:
            printed_and_sent(read_window(source, before=window.start, messages=20).messages)


@PROPERTY
@given(line=lines(CODEX_LINES), where=st.integers(0, 2))
def test_no_line_raises_in_a_codex_reader(line, where):
    with tempfile.TemporaryDirectory() as folder:
        path = a_file(Path(folder), f"rollout-2026-02-23T12-40-23-{SESSION}.jsonl", CODEX_LINES, line, where)
        cursor = LifecycleCursor()
        cursor.sample(path)
        msgspec.json.encode(cursor.state)  # what the collector stores
        with path.open("ab") as out:  # and the same line appended to a rollout the cursor follows
            out.write(line + b"\n")
        cursor.sample(path)
        msgspec.json.encode(cursor.state)
        header = read_header(path)
        if header is not None:
            msgspec.json.encode([header.thread_id, header.cwd, header.originator])
        msgspec.json.encode(first_prompt_title(path))  # the title the collector stores
        window = read_window(conversation_at(path, "codex"), messages=20)
        printed_and_sent(window.messages)
        packed = path.with_name(path.name + ".zst")
        from lunavect.files.zstd import compress

        packed.write_bytes(compress(path.read_bytes()))
        life, state = codex_compressed.read_whole(packed)
        msgspec.json.encode([life, state])
        printed_and_sent(read_window(conversation_at(packed, "codex"), messages=20).messages)


@PROPERTY
@given(line=lines(CLAUDE_LINES) | lines(CODEX_LINES), provider=st.sampled_from(["claude", "codex"]))
def test_no_line_raises_in_a_conversation_parser(line, provider):
    source = conversation_at(Path("unused.jsonl"), provider)
    parts = parts_of(source, line, 0)
    assembly = Assembly()
    assembly.add(parts or ())
    printed_and_sent(assembly.messages)


@PROPERTY
@given(line=lines(CLAUDE_LINES), seed=st.integers(0, 2**16))
def test_no_line_appended_raises_while_a_conversation_is_followed(line, seed):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{SESSION}.jsonl"
        path.write_bytes(b"\n".join(CLAUDE_LINES[:10]) + b"\n")
        follower = Follower(conversation_at(path, "claude"))
        follower.poll()
        # Appended in pieces, as a client writes while lunavect reads.
        data = line + b"\n" + CLAUDE_LINES[10] + b"\n"
        cuts = sorted(random.Random(seed).sample(range(1, len(data)), min(3, len(data) - 1)))
        for start, end in zip([0, *cuts], [*cuts, len(data)], strict=True):
            with path.open("ab") as out:
                out.write(data[start:end])
            printed_and_sent(follower.poll().changed)
        assert os.path.getsize(path) == len(data) + len(b"\n".join(CLAUDE_LINES[:10])) + 1
