"""What the person chose for the panel, kept in the store between openings: the search and filters, and the
usage column. Read once when the panel opens, written at each change, through the store's one settings
accessor.
"""

from __future__ import annotations

import sqlite3

from lunavect import store
from lunavect.frontends.tui import filters
from lunavect.frontends.tui.filters import Filter

# Where the search and filters are kept between openings of the panel.
FILTER_SETTING = "panel.filter"
# "1" while the person wants the usage column (tokens and context fill), kept beside the filters.
USAGE_COLUMN_SETTING = "panel.usage_column"
# The Textual theme the person chose in the command palette (Ctrl+P, "Change theme").
THEME_SETTING = "panel.theme"


def stored_filter(conn: sqlite3.Connection) -> Filter:
    return filters.loads(store.get_setting(conn, FILTER_SETTING))


def stored_usage_column(conn: sqlite3.Connection) -> bool:
    return store.get_setting(conn, USAGE_COLUMN_SETTING) == "1"


def keep_filter(conn: sqlite3.Connection, value: Filter) -> None:
    store.set_setting(conn, FILTER_SETTING, filters.dumps(value))


def keep_usage_column(conn: sqlite3.Connection, shown: bool) -> None:
    store.set_setting(conn, USAGE_COLUMN_SETTING, "1" if shown else None)


def stored_theme(conn: sqlite3.Connection) -> str | None:
    return store.get_setting(conn, THEME_SETTING)


def keep_theme(conn: sqlite3.Connection, name: str) -> None:
    store.set_setting(conn, THEME_SETTING, name)
