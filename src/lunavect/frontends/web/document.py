"""What the web page receives: the list as one JSON document, built once per change and sent to every browser.

Each row carries the same words the terminal panel shows (`lunavect.frontends.rows`), so the page only
lays them out and ticks the timers. Only what the store holds is served, and of it only what a row shows:
titles, projects, states, counts, times and the resume command; never a process id or a terminal device. The
rate-limit windows come along, in numbers only.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
import time

import msgspec

from lunavect.core import clients, dismissal
from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session, State
from lunavect.core.state_words import count_words, tone
from lunavect.frontends import rows
from lunavect.listing.attention import summarize_sessions
from lunavect.listing.sessions import epoch, read_sessions
from lunavect.usage import chart, limits, report
from lunavect.usage.text import count, usage_line


class PageRow(msgspec.Struct):
    id: str
    provider: str
    session_id: str
    title: str
    project: str | None
    host: str
    client: str | None
    state: str
    label: str
    # What the row is coloured by (`core.state_words.TONES`): the page's stylesheet knows five tones, no state.
    tone: str
    # Epoch milliseconds: the timer's start (`rows.timer_start`: the current response's, or the wait's) and the
    # last activity.
    since: float | None
    updated: float | None
    background: int
    background_detail: str
    pinned: bool
    hidden: bool
    awaiting: bool
    active: bool
    resume: str | None
    # Tokens, context fill and model in one line (lunavect.usage.text); empty when unknown.
    usage: str = ""
    # The client still runs (`Session.open`), and when the session last did anything (epoch ms): the row's detail
    # says "open · 3 min ago" or "ended · 5 d ago", and an ended row is drawn quieter.
    open: bool = False
    last_active: float | None = None
    # What the row's client can never report (`core.telling`), for the row's detail; empty when it reports all.
    cannot_report: str = ""
    # What the row menu may offer: Dismiss for a ready reply or an error (`core.dismissal`), and whether the
    # person already dismissed it (then "Needs me again").
    dismissable: bool = False
    dismissed: bool = False


class ChartPart(msgspec.Struct, array_like=True):
    name: str  # the client's name, as the legend shows it
    colour: str  # `usage.chart.colour`: one of lunavect's own, never from the files
    tokens: int


class ChartDay(msgspec.Struct):
    day: str  # `Mon 11-09`
    total: str  # `1.2M`, or "" for a day without tokens
    tokens: int
    parts: list[ChartPart]


class WindowFill(msgspec.Struct):
    label: str  # `codex 5 h`
    used: float  # percent, 0 to 100
    words: str  # `42 % · resets 14:00 · lasts to reset` (`usage.report.window_words`)
    stale: bool
    colour: str  # its client's (`usage.chart.colour`)
    points: list[tuple[float, float]]  # its recent figures, `[epoch s, percent]` oldest first


def window_fills(accounts: list[limits.AccountLimits], now: float) -> list[WindowFill]:
    return [
        WindowFill(
            label=f"{report.account_label(account)} {limits.window_label(w)}",
            used=w.used_percent,
            words=report.window_words(account, w, now),
            stale=w.stale,
            colour=chart.colour(account.client),
            points=w.points,
        )
        for account in accounts
        for w in account.windows
    ]


class Document(msgspec.Struct):
    working: int
    awaiting_input: int
    sessions: list[PageRow]
    # The failed turns that need their person (`listing.attention.needs_you`), and each counter in every
    # surface's words (`core.state_words.count_words`: `⚙ 2 working`), keyed by its name.
    errors: int = 0
    counters: dict[str, str] = {}
    # Each client's and account's rate-limit windows in one line, with how long each lasts at the pace of the last
    # hour (`usage.report.limit_lines`: `codex: 5 h 42 % · resets 14:00 · runs out in 1 h 20 m | 7 d 8 % ...`).
    limits: list[str] = []
    # Tokens per day of the last two weeks, by client (`usage.chart`), for the page's bars; empty without tokens.
    usage_days: list[ChartDay] = []
    # Each window's fill now and its recent figures, for the page's bars and lines.
    window_fills: list[WindowFill] = []


def chart_days(days: list[chart.Day]) -> list[ChartDay]:
    if not any(day.total for day in days):
        return []
    return [
        ChartDay(
            day=_short_day(day.day),
            total=count(day.total) if day.total else "",
            tokens=day.total,
            parts=[ChartPart(clients.name_of(c), chart.colour(c), n) for c, n in day.by_client.items()],
        )
        for day in days
    ]


def _short_day(day: str) -> str:
    try:
        return dt.date.fromisoformat(day).strftime("%a %m-%d")
    except ValueError:
        return day


_encoder = msgspec.json.Encoder()


def _state(session: Session) -> State:
    try:
        return State(session.state)
    except ValueError:
        return State.UNKNOWN


def _ms(iso: str | None) -> float | None:
    value = epoch(iso)
    return None if value is None else round(value * 1000)


def page_row(session: Session) -> PageRow:
    state = _state(session)
    return PageRow(
        id=session.id,
        provider=session.provider,
        session_id=session.session_id,
        title=session.title or f"Session {session.session_id[:8]}",
        project=session.project,
        host=session.host,
        client=session.client,
        state=state.value,
        label=rows.state_label(session),
        tone=tone(state),
        since=None if (start := rows.timer_start(session)) is None else round(start * 1000),
        updated=_ms(session.updated),
        background=rows.background_count(session),
        background_detail=rows.background_detail(session) if rows.background_count(session) else "",
        pinned=session.pinned,
        hidden=session.hidden,
        awaiting=state in AWAITING_STATES,
        active=state in AWAITING_STATES or state in WORKING_STATES,
        resume=session.resume,
        usage=usage_line(session.usage),
        open=session.open,
        last_active=_ms(session.last_active),
        cannot_report=rows.cannot_report(session),
        dismissable=dismissal.mark_of(session) is not None,
        dismissed=session.dismissed,
    )


def build(
    sessions: list[Session],
    limit_lines: list[str] | None = None,
    days: list[ChartDay] | None = None,
    fills: list[WindowFill] | None = None,
) -> Document:
    counts = summarize_sessions(sessions)
    return Document(
        working=counts.working,
        awaiting_input=counts.awaiting_input,
        sessions=[page_row(s) for s in sessions],
        limits=limit_lines or [],
        usage_days=days or [],
        window_fills=fills or [],
        errors=counts.errors,
        counters={name: count_words(name, getattr(counts, name)) for name in ("working", "awaiting_input", "errors")},
    )


def read(conn: sqlite3.Connection, now: float | None = None) -> tuple[bytes, bytes]:
    """The whole list (hidden sessions included, marked) as the JSON the page takes, and the same without
    the reading time: two reads with equal lists have equal second values, so an unchanged list is not sent
    again."""
    now = time.time() if now is None else now
    accounts = limits.read(conn, now)
    windows = report.limit_lines(accounts, now)
    days = chart_days(chart.days_by_client(conn, now))
    sessions = read_sessions(conn, include_hidden=True, now=now)
    body = _encoder.encode(build(sessions, windows, days, window_fills(accounts, now)))
    # The reader's clock (epoch ms) goes first: the page aligns its timers with it.
    return b'{"at":%d,' % round(now * 1000) + body[1:], body
