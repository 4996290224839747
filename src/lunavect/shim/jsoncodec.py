"""JSON for the hook shim, through the C accelerator `_json` rather than the `json` module.

`import json` pulls in `re` and costs several milliseconds per hook event (bench/hook_shim.py); the
accelerator decodes and encodes the same, and the `json` module is imported only to explain bad input.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs the shim milliseconds; mypy reads this name as true

if TYPE_CHECKING:  # the shim imports nothing it does not run (bench/hook_shim.py)
    from collections.abc import Callable

    Quote = Callable[[str], str]
    Scan = Callable[[str, int], tuple[object, int]]

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


# A probe the accelerator must decode exactly as json.loads does before the shim trusts it.
_PROBE = '{"a": [1, 2.5, "\\u00e9", true, null], "b": {}}'
_PROBE_VALUE = {"a": [1, 2.5, "\u00e9", True, None], "b": {}}


def _accelerated() -> tuple[Quote, Scan] | None:
    """`_json`'s quoter and scanner, when this interpreter's accelerator is there and behaves as the shim expects.

    `_json` is CPython's private module: another interpreter lacks it, and a new CPython may change what
    `make_scanner` takes. Anything but the probe decoded exactly, and the json module does the work instead
    (slower, never wrong); `doctor` says which (`ACCELERATED`)."""
    try:
        from _json import encode_basestring_ascii as quote
        from _json import make_scanner

        scan = make_scanner(_DecodeContext)  # type: ignore[arg-type]  # the stub wants a JSONDecoder; its attributes suffice
        if scan(_PROBE, 0) != (_PROBE_VALUE, len(_PROBE)) or quote("\u00e9") != '"\\u00e9"':
            return None
    except Exception:  # noqa: BLE001 - whatever a changed private API raises, the json module stands in
        return None
    return quote, scan


_found = _accelerated()
ACCELERATED = _found is not None
if _found is not None:
    _quote, _scan = _found
else:  # the json module does the same, slower
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
