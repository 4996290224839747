"""JSON for the hook shim, through the C accelerator `_json` rather than the `json` module.

`import json` pulls in `re` and costs several milliseconds per hook event (bench/hook_shim.py); the
accelerator decodes and encodes the same, and the `json` module is imported only to explain bad input.
"""

from __future__ import annotations

JSON_WHITESPACE = " \t\n\r"


class _DecodeContext:
    """What `_json.make_scanner` reads from a JSONDecoder: plain types, strict=False like json.loads."""

    strict = False
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}[name]


try:
    from _json import encode_basestring_ascii as _quote
    from _json import make_scanner as _make_scanner

    _scan = _make_scanner(_DecodeContext)  # type: ignore[arg-type]  # the stub wants a JSONDecoder; its attributes suffice
except ImportError:  # an interpreter without the accelerator: the json module does the same, slower
    import json as _json_module

    _quote = _json_module.encoder.encode_basestring_ascii
    _scan = _json_module.JSONDecoder(strict=False).scan_once  # type: ignore[attr-defined]  # missing from typeshed


def json_loads(text: str) -> object:
    """One JSON document, as json.loads(strict=False) decodes it; ValueError when it is not exactly that.

    The C scanner reports errors through `json.decoder`, which it only finds if something imported it;
    bad input is rare, so only then is the json module imported to decide and explain.
    """
    stripped = text.strip(JSON_WHITESPACE)
    try:
        value, end = _scan(stripped, 0)
        if end == len(stripped):
            return value
    except (StopIteration, SystemError, ValueError):
        pass
    import json

    return json.loads(stripped, strict=False)


def json_dumps(value: object) -> str:
    """Compact ASCII JSON of the spool record's plain types."""
    if isinstance(value, str):
        return _quote(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if value == value and value not in (float("inf"), float("-inf")) else "null"
    if isinstance(value, dict):
        return "{" + ",".join(_quote(str(k)) + ":" + json_dumps(v) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json_dumps(v) for v in value) + "]"
    return _quote(str(value))
