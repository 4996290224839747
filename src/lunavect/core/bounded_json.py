"""JSON from outside, decoded within a bound on its nesting: never a RecursionError.

Both decoders lunavect uses (msgspec, the json module) recurse once per level of nesting, even to skip a field
nobody asked for, and past the interpreter's recursion limit they raise RecursionError: not the DecodeError or
ValueError every reader catches, and at a depth that depends on how deep the caller's own stack is (about
1,000 levels, less the frames above: the panel's are more than a command's). One line a client wrote that deep
(a structured tool result, shaped by an MCP server) ended `show` in a traceback and set a whole transcript
aside. So every decode of outside JSON goes through here, by the kind of its decoder:

- `decode`, a decoder of a declared type (the transcript records, spool records, catalog files, usage): the
  type bounds what is kept (a field declared as any value is only tested for its type, never walked), and
  what it does not declare is skipped. Only a line nested deeper than the interpreter lets it skip fails (on
  3.11 some 1,000 levels; later versions count C recursion apart and go deeper); that is refused as TooDeep.
  No scan first: this runs for every line of every transcript (claude/fold.py), and a scan there halved the
  fold's throughput.
- `loads` and `decode_any`, decoders of any JSON value, which the readers then walk (the conversation parsers,
  the Codex readers): the value is checked against MAX_DEPTH once, before it is decoded, so what passes can be
  decoded and walked at any stack depth lunavect runs at.

TooDeep is a msgspec.DecodeError and so a ValueError: what each reader already skips and counts.
"""

from __future__ import annotations

import json
import re
from array import array
from itertools import accumulate
from typing import Any

import msgspec

# Far beyond what a client writes (the real transcripts and rollouts nest 9 levels at most), far below the
# interpreter's limit with any caller's stack above it (the panel's is the deepest, some 200 frames).
MAX_DEPTH = 128

# A JSON string, escapes included: its brackets are text, not structure.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
# What is left once strings are gone: each opening bracket as +1, each closing one as -1, nothing else.
_STEPS = bytes.maketrans(b"[]{}", b"\x01\xff\x01\xff")
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b"[]{}")))
_any = msgspec.json.Decoder()
# An escaped UTF-16 surrogate (`\\ud800`): json decodes one without its other half to a lone surrogate.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE_ESCAPE_TEXT = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class TooDeep(msgspec.DecodeError):
    """The value nests deeper than MAX_DEPTH: refused whole, as a line that is not JSON is."""


def within(data: bytes | str, limit: int = MAX_DEPTH) -> bool:
    """Whether `data` nests no deeper than `limit` (a text that is no JSON at all may pass: its decoder
    refuses it). Costs two byte counts for nearly every line; only a line with more brackets than `limit`
    is looked at closer."""
    if isinstance(data, str):
        if data.count("[") + data.count("{") <= limit:
            return True
        raw = data.encode("utf-8", "surrogatepass")
    elif data.count(b"[") + data.count(b"{") <= limit:
        return True
    else:
        raw = data
    steps = array("b", _STRING.sub(b"", raw).translate(_STEPS, _NOT_BRACKETS))
    return max(accumulate(steps), default=0) <= limit  # the running sum is the depth, in C


def check(data: bytes | str) -> None:
    """Raise TooDeep when `data` nests deeper than MAX_DEPTH."""
    if not within(data):
        raise TooDeep(f"JSON nested deeper than {MAX_DEPTH} levels")


def decode(decoder: msgspec.json.Decoder[Any], data: bytes | str | msgspec.Raw) -> Any:  # noqa: ANN401 - the decoder's type
    """`decoder.decode(data)` for a decoder of a declared type. Raises msgspec.DecodeError (ValidationError for
    a value of another shape, TooDeep for one nested deeper than the stack allows), never RecursionError."""
    try:
        return decoder.decode(data)
    except RecursionError:
        raise TooDeep("JSON nested deeper than the stack allows") from None
    except msgspec.ValidationError:
        raise
    except msgspec.DecodeError:
        if isinstance(data, msgspec.Raw) or not _may_hold_surrogates(data):
            raise
        return _mended_line(decoder, data)


def _mended_line(decoder: msgspec.json.Decoder[Any], data: bytes | str) -> Any:  # noqa: ANN401 - the decoder's type
    """A line msgspec refused only for a lone surrogate escape (half of a UTF-16 pair, which JavaScript's
    JSON.stringify writes for a string cut inside an emoji): read by the json module, mended (`loads`) and
    decoded again (its raw fields as the mended JSON), so that one cut emoji costs a character, not the record
    (a hook's event, a transcript's prompt). Whatever else is wrong with the line stays a DecodeError."""
    try:
        mended = msgspec.json.encode(loads(data))
    except (ValueError, TypeError) as exc:
        raise msgspec.DecodeError(str(exc)) from None
    return decoder.decode(mended)


def decode_any(data: bytes | str) -> Any:  # noqa: ANN401 - any JSON value
    """Any JSON value, decoded by msgspec once its depth is checked. Raises msgspec.DecodeError (TooDeep for a
    value nested too deep), never RecursionError. msgspec refuses a lone surrogate escape, which the json
    module reads (and `loads_marked` mends): such a line is read that way rather than lost."""
    check(data)
    try:
        return decode(_any, data)
    except msgspec.DecodeError:
        if not _may_hold_surrogates(data):
            raise
    try:
        return loads(data)
    except ValueError as exc:
        raise msgspec.DecodeError(str(exc)) from None


def loads(data: bytes | str) -> Any:  # noqa: ANN401 - any JSON value
    """`json.loads(data)` once the depth is checked, each lone surrogate replaced (`loads_marked`). Raises
    ValueError (TooDeep for a value nested too deep), never RecursionError."""
    return loads_marked(data)[0]


def loads_marked(data: bytes | str) -> tuple[Any, bool]:  # noqa: ANN401 - any JSON value
    """`loads`, and whether a lone surrogate had to be replaced by U+FFFD.

    JSON may escape half of a UTF-16 pair alone (`"\\ud800"`); the json module decodes it to a string that no
    UTF-8 output can hold, so a title holding one failed where it was stored, printed or sent, far from here.
    Such strings are mended here, once (a walk the depth bound keeps safe), and said, so that a reader drops a
    value that must be exact (an id, a path) as it drops one with a byte replaced (core/lenient_json.py)."""
    check(data)
    try:
        value = json.loads(data)
    except RecursionError:
        raise TooDeep("JSON nested deeper than the stack allows") from None
    if not _may_hold_surrogates(data):
        return value, False
    mended = _mended(value)
    return mended, mended != value


def _may_hold_surrogates(data: bytes | str) -> bool:
    """Whether decoding `data` may give a lone surrogate: bytes only through an escape, text also as itself."""
    if isinstance(data, str):
        return _SURROGATE_ESCAPE_TEXT.search(data) is not None or _LONE_SURROGATE.search(data) is not None
    return _SURROGATE_ESCAPE.search(data) is not None


def _mended(value: Any) -> Any:  # noqa: ANN401 - any JSON value
    """`value` with every lone surrogate in its strings (keys included) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_mended(item) for item in value]
    if isinstance(value, dict):
        return {_mended(key): _mended(item) for key, item in value.items()}
    return value
