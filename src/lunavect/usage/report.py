"""`lunavect usage`: the history summed by day, project, model, session or client, with rate limits and an estimate.

Counts only: the history holds tokens by file, quarter hour and model (ledger.py); a session's project and title come
from its row in the snapshot. Days are the reader's local days.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import time
from collections.abc import Callable, Mapping

import msgspec

from lunavect import store
from lunavect.core import clients
from lunavect.core.bounds import EARLIEST
from lunavect.core.terminal_text import clean
from lunavect.core.times import local, local_text
from lunavect.core.tokens import Tokens
from lunavect.usage import ledger, limits, pace, prices
from lunavect.usage.text import count

# A project's name or a session's title as the table's first column shows it (the JSON keeps it whole).
KEY_CHARS = 80
GROUPINGS = ("day", "project", "model", "session", "client")
# The collector's progress through the history at its first start (`lunavect.collector.tick.READING_KEY`, a layer
# above this one: named again here, and a test holds the two together).
READING_KEY = "reading"
_SINCE_RE = re.compile(r"^(\d{1,5})([hdw])$")
_UNIT_S = {"h": 3600, "d": 86400, "w": 7 * 86400}


class UsageRow(msgspec.Struct, omit_defaults=False):
    key: str
    tokens: Tokens
    # Estimated US dollars at list price (usage/prices.py); None when a model is not priced or estimates are off.
    cost: float | None
    # Part of the tokens is of a model the price table does not know: `cost` covers only the rest.
    cost_partial: bool = False


class Report(msgspec.Struct, omit_defaults=False):
    since: str
    by: str
    rows: list[UsageRow]
    total: UsageRow
    limits: list[limits.AccountLimits]
    # The price data's date and source when estimates are on; None when the person turned them off.
    prices: dict[str, str] | None
    # The models used whose price the data does not know, by name (no estimate for their tokens).
    unpriced: list[str] = []
    # While the collector still reads the history it found at its first start ("120 of 3,400" files): the totals
    # are not whole yet (a large transcript is listed from a glance first, its tokens counted at its whole read).
    reading: str | None = None


def parse_since(text: str, now: float) -> float | None:
    """`7d`, `12h`, `2w` back from now (local midnight for days and weeks); None when not such a duration."""
    match = _SINCE_RE.match(text.strip())
    if match is None:
        return None
    count, unit = int(match[1]), match[2]
    if unit == "h":
        return now - count * 3600
    days = count * (7 if unit == "w" else 1)
    today = local(now)
    if today is None:
        return None
    midnight = today.replace(hour=0, minute=0, second=0, microsecond=0)
    # Before the epoch nothing was recorded: 99999w reaches no further back than that.
    return max(EARLIEST, (midnight - dt.timedelta(days=days - 1)).timestamp())


# Each session's (project, title), by session key: what the report groups and names its rows by.
Names = Callable[[sqlite3.Connection], Mapping[str, tuple[str | None, str | None]]]


def build(
    conn: sqlite3.Connection, since: float, by: str, now: float | None = None, costs: bool = True, *, names: Names
) -> Report:
    """The report of the tokens used since `since`, by day, project, model, session or client. `names` reads the
    sessions' projects and titles (`listing.names.names`: the snapshot is the listing's to read)."""
    now = time.time() if now is None else now
    # Before the history: a whole read the collector commits in between makes the note too careful, never missing.
    reading = store.collector_values(conn).get(READING_KEY) or None
    history = ledger.history(conn, since, by)
    if costs:
        prices.prepare(conn, {row.model for row in history})
    named = names(conn) if by in ("project", "session") else {}
    sums: dict[str, dict[str, Tokens]] = {}  # key -> model -> tokens
    for row in history:
        if by == "day":
            key = local_text(row.quarter, "%Y-%m-%d", missing="(unknown day)")
        elif by == "project":
            key = named.get(row.id, (None, None))[0] or "(no project)"
        elif by == "model":
            key = row.model or "(unknown model)"
        elif by == "client":
            key = clients.name_of(row.id) if row.id else "(unknown client)"
        else:
            project, title = named.get(row.id, (None, None))
            key = f"{row.id} {title or ''}".strip() if title else row.id
        models = sums.setdefault(key, {})
        models[row.model] = models.get(row.model, Tokens()).plus(row.tokens)
    rows = [_row(key, models, costs) for key, models in sums.items()]
    if by == "day":
        rows.sort(key=lambda r: r.key)
    else:
        rows.sort(key=lambda r: (-_total(r.tokens), r.key))
    everything: dict[str, Tokens] = {}
    for models in sums.values():
        for model, tokens in models.items():
            everything[model] = everything.get(model, Tokens()).plus(tokens)
    return Report(
        since=_since_text(since),
        by=by,
        rows=rows,
        total=_row("total", everything, costs),
        limits=limits.read(conn, now),
        prices=prices.about() if costs else None,
        unpriced=sorted(
            m or "(unknown model)" for m, t in everything.items() if costs and not t.empty and prices.cost(m, t) is None
        ),
        reading=reading,
    )


def _since_text(since: float) -> str:
    when = local(since)
    return "(the beginning)" if when is None else when.astimezone().isoformat(timespec="seconds")


def _total(tokens: Tokens) -> int:
    return tokens.input + tokens.output + tokens.cache_read + tokens.cache_write


def _row(key: str, models: dict[str, Tokens], costs: bool) -> UsageRow:
    tokens = Tokens()
    cost: float | None = None
    partial = False
    for model, part in models.items():
        tokens = tokens.plus(part)
        if not costs:
            continue
        estimate = prices.cost(model, part)
        if estimate is None:
            partial = partial or not part.empty
        else:
            cost = (cost or 0.0) + estimate
    return UsageRow(key, tokens, cost, partial and cost is not None)


def _reset(at: float | None, now: float) -> str:
    when = local(at)
    if at is None or when is None:
        return ""
    fmt = "%H:%M" if at - now < 86400 else "%a %H:%M"
    return f" · resets {when.strftime(fmt)}"


def limit_lines(accounts: list[limits.AccountLimits], now: float) -> list[str]:
    """One line per client and account: `codex 5 h 42 % · resets 14:00 · runs out in 1 h 20 m | 7 d 8 % · resets
    Mon 09:00 · lasts to reset` (at the pace of the last hour); stale figures say so instead. An account whose
    report holds no window (Codex answered without rate-limit figures) has no line: it has nothing to say."""
    lines = []
    for account in accounts:
        if not account.windows:
            continue
        parts = [f"{limits.window_label(w)} {window_words(account, w, now)}" for w in account.windows]
        lines.append(f"{account_label(account)}: " + " | ".join(parts))
    return lines


def account_label(account: limits.AccountLimits) -> str:
    """`codex`, or `codex/<account>` for an account of its own."""
    name = clean(account.account, limit=64)
    return account.client if account.account in ("default", account.client) else f"{account.client}/{name}"


def window_words(account: limits.AccountLimits, w: limits.Window, now: float) -> str:
    """`42 % · resets 14:00 · runs out in 1 h 20 m`, or `42 % (as of ..., may be old)`."""
    figure = f"{w.used_percent:.0f} %"
    if w.stale:
        return figure + f" (as of {local_text(account.at, '%Y-%m-%d %H:%M', missing='?')}, may be old)"
    return figure + _reset(w.resets_at, now) + f" · {pace.words(w.pace, w.runs_out_at, now)}"


def render(report: Report, now: float | None = None) -> str:
    now = time.time() if now is None else now
    header = [report.by, "input", "output", "cache read", "cache write", "total"]
    if report.prices is not None:
        header.append("est. cost")
    table = [header]
    for row in [*report.rows, report.total]:
        cells = [
            clean(row.key, limit=KEY_CHARS),
            *(
                count(v)
                for v in (
                    row.tokens.input,
                    row.tokens.output,
                    row.tokens.cache_read,
                    row.tokens.cache_write,
                    _total(row.tokens),
                )
            ),
        ]
        if report.prices is not None:
            cells.append("—" if row.cost is None else f"${row.cost:,.2f}" + ("+" if row.cost_partial else ""))
        table.append(cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(header))]
    lines = [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(r, widths, strict=True)))
        for r in table
    ]
    out = [f"Since {report.since}:", *lines]
    if report.prices is not None:
        out.append(
            f"Costs are estimates at list prices of {report.prices['date']} ({report.prices['source']}); "
            "'+' leaves out models without a price. `lunavect usage --prices off` hides them."
        )
        if report.unpriced:
            out.append("No price for: " + ", ".join(clean(m, limit=KEY_CHARS) for m in report.unpriced) + ".")
    if report.reading:
        out.append(
            f"Still reading the history ({clean(report.reading, limit=40)} files): these totals are not whole yet."
        )
    lim = limit_lines(report.limits, now)
    if lim:
        out.append("")
        out.extend(f"Limits {line}" for line in lim)
    return "\n".join(out)
