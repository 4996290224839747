"""An estimated cost from the dated price table shipped with lunavect (`prices.json`, package data).

The table names its date and source; a model is priced by the longest table key its id starts with
(`claude-sonnet-4-5-20250929` by `claude-sonnet-4-5`), and a model the table does not know has no estimate
rather than a guessed one. Updating prices is editing that one file. The person can turn estimates off
(`lunavect usage --prices off`): the setting is kept in the store.
"""

from __future__ import annotations

import sqlite3
from functools import cache
from importlib import resources

import msgspec

from lunavect import store
from lunavect.core.tokens import Tokens

SETTING = "usage_prices"


class Price(msgspec.Struct, frozen=True):
    input: float
    output: float
    cache_read: float
    cache_write: float


class Table(msgspec.Struct, frozen=True):
    date: str
    source: str
    note: str
    models: dict[str, Price]


@cache
def table() -> Table:
    data = resources.files("lunavect.usage").joinpath("prices.json").read_bytes()
    return msgspec.json.decode(data, type=Table)


def price_of(model: str | None) -> Price | None:
    if not model:
        return None
    models = table().models
    keys = [key for key in models if model.startswith(key)]
    return models[max(keys, key=len)] if keys else None


def cost(model: str | None, tokens: Tokens) -> float | None:
    """The estimated US dollars `tokens` of `model` cost at list price; None for a model not in the table."""
    price = price_of(model)
    if price is None:
        return None
    return (
        tokens.input * price.input
        + tokens.output * price.output
        + tokens.cache_read * price.cache_read
        + tokens.cache_write * price.cache_write
    ) / 1_000_000


def enabled(conn: sqlite3.Connection) -> bool:
    return store.get_setting(conn, SETTING) != "off"


def set_enabled(conn: sqlite3.Connection, on: bool) -> None:
    store.set_setting(conn, SETTING, "on" if on else "off")


def about() -> dict[str, str]:
    """What `--json` says of the table: it is an estimate, of which date, from where."""
    t = table()
    return {"date": t.date, "source": t.source, "note": t.note}


__all__ = ["Price", "cost", "enabled", "set_enabled", "about"]
