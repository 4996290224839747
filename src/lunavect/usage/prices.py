"""An estimated cost at list prices, from the price data `genai-prices` ships (pydantic's, MIT, updated each
month): read offline from the installed package, never fetched, so the estimate names the package's version
and the date of its data.

A model is priced only under its own name: the data's own rule for it (`claude-sonnet-4-5-20250929` is
`claude-sonnet-4-5`, a dated release of it; `gpt-5-codex` is listed beside `gpt-5`), never another model's
prefix (`gpt-5.5` is not `gpt-5`, `claude-opus-4-9` not `claude-opus-4`): a model the data does not know has no
estimate, and says so by name. Rates are each model's base rates, today's (a request past a model's long-context
threshold costs more; the history sums requests and knows no single one's size). One-hour cache writes have
their own rate. The person can turn estimates off (`lunavect usage --prices off`): kept in the store.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sqlite3
import warnings
from collections.abc import Iterable
from decimal import Decimal
from importlib import util

import msgspec

from lunavect import store
from lunavect.core.tokens import Tokens

SETTING = "usage_prices"
# The data's answers for the models seen (their rates, or none), its date and version, kept in the store: loading
# the data costs a few tenths of a second, which each `lunavect usage` would pay again.
CACHE_SETTING = "usage_price_cache"
_PACKAGE = "genai-prices"
# What may follow a listed name in a model's id and still be that model: a release date, `-latest`.
_RELEASE_RE = re.compile(r"^(?:[-@]?\d{8}|-\d{4}-\d{2}-\d{2}|-latest)$")
_PROBE = 1000  # tokens: far below any long-context threshold, so each rate is the base rate


class Price(msgspec.Struct, frozen=True):
    """US dollars per million tokens of each kind."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    cache_write_1h: float


def _names(clause: object) -> list[str]:
    """The names a model's match rule lists (its `equals` and `starts_with` values, at any depth)."""
    found: list[str] = []
    for attr in ("equals", "starts_with"):
        value = getattr(clause, attr, None)
        if isinstance(value, str):
            found.append(value)
    for attr in ("or_", "and_"):
        for inner in getattr(clause, attr, None) or []:
            found.extend(_names(inner))
    return found


def _own_name(model: str, info: object) -> bool:
    """Whether `model` is the model the data matched it to, by that model's own name or a release of it."""
    lowered = model.lower()
    for name in [getattr(info, "id", ""), *_names(getattr(info, "match", None))]:
        known = name.lower()
        if known and (lowered == known or (lowered.startswith(known) and _RELEASE_RE.match(lowered[len(known) :]))):
            return True
    return False


class _Kept(msgspec.Struct):
    key: str  # `_data_key()` when it was kept
    about: dict[str, str]
    models: dict[str, Price | None]


# This process's answers, and the data key they hold for.
_rates: dict[str, Price | None] = {}
_about: dict[str, str] = {}
_key: list[str] = [""]


def _data_key() -> str:
    """Which data and which day the answers hold for: the installed data file (its size and time, no import) and
    today's date (the data holds price changes by date)."""
    spec = util.find_spec("genai_prices")
    try:
        st = os.stat(os.path.join(os.path.dirname(spec.origin), "data.py")) if spec and spec.origin else None
    except OSError:
        st = None
    data = f"{st.st_size}:{st.st_mtime_ns}" if st is not None else "?"
    return f"{data}:{dt.datetime.now(dt.UTC).date().isoformat()}"


def _hold(key: str) -> None:
    if _key[0] != key:
        _rates.clear()
        _about.clear()
        _key[0] = key


def prepare(conn: sqlite3.Connection, models: Iterable[str | None]) -> None:
    """Have the rates of `models` at hand: from the store's answers kept for the same data and day, and any
    model they lack from the data itself (then kept, so the next `lunavect usage` need not load the data)."""
    key = _data_key()
    _hold(key)
    raw = store.get_setting(conn, CACHE_SETTING)
    try:
        kept = msgspec.json.decode(raw, type=_Kept) if raw else None
    except (msgspec.DecodeError, msgspec.ValidationError):
        kept = None
    if kept is not None and (kept.key != key or set(kept.about) != {"date", "source"}):
        kept = None  # another data or day's answers, or not ours: asked again
    if kept is not None:
        _rates.update({m: p for m, p in kept.models.items() if m not in _rates})
        _about.update(kept.about)
    missing = {m for m in models if m} - _rates.keys()
    if kept is not None and not missing:
        return
    for model in missing:
        price_of(model)
    store.set_setting(conn, CACHE_SETTING, msgspec.json.encode(_Kept(key, _data_about(), dict(_rates))).decode())


def price_of(model: str | None) -> Price | None:
    """The model's rates today, or None when the data does not know it under its own name."""
    if not model:
        return None
    if model not in _rates:
        _rates[model] = _priced(model)
    return _rates[model]


def _priced(model: str) -> Price | None:
    from genai_prices import Usage, calc_price  # the data is large: loaded only when a cost is asked for

    now = dt.datetime.now(dt.UTC)

    def rate(**counts: int) -> tuple[Decimal, object]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = calc_price(Usage(**counts), model_ref=model, genai_request_timestamp=now)
        return found.total_price * 1_000_000 / _PROBE, found.model

    try:
        uncached, info = rate(input_tokens=_PROBE)
        if not _own_name(model, info):
            return None
        output, _ = rate(output_tokens=_PROBE)
        read, _ = rate(input_tokens=_PROBE, cache_read_tokens=_PROBE)
        written, _ = rate(input_tokens=_PROBE, cache_write_tokens=_PROBE)
        hour, _ = rate(input_tokens=_PROBE, cache_write_tokens=_PROBE, cache_write_1h_tokens=_PROBE)
    except (LookupError, ValueError, ArithmeticError):
        return None
    return Price(float(uncached), float(output), float(read), float(written), float(hour))


def cost(model: str | None, tokens: Tokens) -> float | None:
    """The estimated US dollars `tokens` of `model` cost at list price; None for a model without a price."""
    price = price_of(model)
    if price is None:
        return None
    hour = min(tokens.cache_write_1h, tokens.cache_write)
    return (
        tokens.input * price.input
        + tokens.output * price.output
        + tokens.cache_read * price.cache_read
        + (tokens.cache_write - hour) * price.cache_write
        + hour * price.cache_write_1h
    ) / 1_000_000


def enabled(conn: sqlite3.Connection) -> bool:
    return store.get_setting(conn, SETTING) != "off"


def set_enabled(conn: sqlite3.Connection, on: bool) -> None:
    store.set_setting(conn, SETTING, "on" if on else "off")


def snapshot_date() -> str:
    """The date of the price data: the newest price change it records up to today (its data holds each model's
    changes by date, some announced for later)."""
    from genai_prices import data_snapshot

    today = dt.datetime.now(dt.UTC).date()
    newest = dt.date(2000, 1, 1)
    for provider in data_snapshot.get_snapshot().providers:
        for model in provider.models:
            prices = model.prices if isinstance(model.prices, list) else []
            for conditional in prices:
                start = getattr(conditional.constraint, "start_date", None)
                if isinstance(start, dt.date) and newest < start <= today:
                    newest = start
    return newest.isoformat()


def _data_about() -> dict[str, str]:
    """The data's date and version, found once for its key."""
    if not _about:
        from importlib import metadata  # its import costs a fifth of `usage`'s start: only when the data is named

        _about.update(
            date=snapshot_date(),
            source=f"{_PACKAGE} {metadata.version(_PACKAGE)} (list prices, US dollars, read offline)",
        )
    return dict(_about)


def about() -> dict[str, str]:
    """What `--json` and the table's note say of the prices: an estimate, from which data, of which date."""
    return {
        **_data_about(),
        "note": "An estimate only: subscription plans are not billed per token, and prices change. "
        "A model the price data does not know under its own name has no estimate.",
    }


__all__ = ["Price", "cost", "enabled", "set_enabled", "about", "price_of", "prepare"]
