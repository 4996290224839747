"""Which notifications to send, decided from committed state transitions and an injected clock, with no I/O.

Each transition a collector commits is offered with the time it was committed; what survives the filters waits
a short coalescing window, so that several sessions finishing together make one notification naming them all,
and `due(now)` hands out what is ready to send. Everything that would need I/O comes in as a function: what was
sent before (the store), whether this machine notifies for a row (another host's sessions are notified by
that host), whether the person is looking at a session right now.

The rules it keeps: one notification per state change (the transition, and a mark made of its kind and the
evidence time, which a re-read or a replay does not change); never for a row the rules do not list (a bare
launch) or the collector keeps out (internal agents, sub-agents, tool-launched runtimes never become rows);
hidden sessions only when asked; a per-session quiet period that only a more urgent kind passes; kinds on
and off.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from lunavect.core.clients import name_of
from lunavect.core.model import Session, State
from lunavect.core.times import epoch, iso, local_text
from lunavect.notify.kinds import BY_NAME, Kind, kind_of

# Several sessions changing within this window make one notification.
COALESCE_S = 1.5
# A session that notified stays quiet this long, unless something more urgent comes.
QUIET_S = 30.0
# A state change whose evidence is older than this is history read late, not news.
FRESH_S = 120.0
# At most this many sessions are named in one notification's text; the rest are counted.
NAMED_AT_MOST = 5

# The kind of a usage warning (not a session's transition: `notify.usage` makes them).
USAGE_KIND = "usage"


@dataclass(frozen=True)
class Policy:
    """The person's choices, as the decider needs them (`settings.NotifySettings.policy()`)."""

    enabled: bool = True
    kinds: frozenset[str] = frozenset(k.name for k in BY_NAME.values() if k.default_on)
    hidden: bool = False
    coalesce_s: float = COALESCE_S
    quiet_s: float = QUIET_S
    fresh_s: float = FRESH_S


@dataclass(frozen=True)
class Transition:
    """One committed change of a stored row: its state before (None when the row is new) and the row now."""

    old: State | None
    session: Session
    # The rules list the row (a bare launch is not listed), and the person's arrangement hides it or not.
    listed: bool = True
    hidden: bool = False
    # The reply that ended answered a background task's end, not the person (`Facts.task_reply`).
    task_reply: bool = False


@dataclass(frozen=True)
class Item:
    """One session's part in a notification: only what the store already holds, never private text."""

    key: str
    kind: str
    mark: str
    title: str
    project: str | None
    provider: str
    client: str | None
    needs: str
    since: float | None
    urgency: int

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.key,
            "kind": self.kind,
            "title": self.title,
            "project": self.project,
            "provider": self.provider,
            "client": self.client,
            "needs": self.needs,
            "since": _iso(self.since),
        }


@dataclass(frozen=True)
class Notification:
    title: str
    body: str
    items: tuple[Item, ...]
    # An account's rate-limit window past the person's threshold (`notify.usage`): numbers, no session.
    limit: dict[str, object] | None = None

    @property
    def open_id(self) -> str | None:
        """The session its default action ("Open") returns to: the most urgent one, the first of equals (None:
        a usage warning, which is about an account, has nothing to open)."""
        return max(self.items, key=lambda i: i.urgency).key if self.items else None

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(i.kind for i in self.items)) + ((USAGE_KIND,) if self.limit is not None else ())

    def as_dict(self) -> dict[str, object]:
        """The JSON a `notify.command` program reads on its stdin."""
        out: dict[str, object] = {
            "title": self.title,
            "body": self.body,
            "open": self.open_id,
            "kinds": list(self.kinds),
            "sessions": [i.as_dict() for i in self.items],
        }
        if self.limit is not None:
            out["limit"] = self.limit
        return out


def _iso(ts: float | None) -> str | None:
    return iso(ts, timespec="seconds")


def _clock_time(ts: float | None) -> str:
    return local_text(ts, "%H:%M")


def client_name(provider: str, client: str | None) -> str:
    name = name_of(provider)
    return f"{name} ({client})" if client else name


def item_of(kind: Kind, session: Session) -> Item:
    since = epoch(session.updated)
    return Item(
        key=session.id,
        kind=kind.name,
        mark=f"{kind.name}@{session.updated or ''}",
        title=session.title or session.project or session.session_id[:8],
        project=session.project,
        provider=session.provider,
        client=session.client,
        needs=kind.needs(session),
        since=since,
        urgency=kind.urgency,
    )


def compose(items: Iterable[Item]) -> Notification:
    """The text: title, project, client, what it needs and since when; several sessions are named together."""
    items = tuple(sorted(items, key=lambda i: (-i.urgency, i.since or 0.0, i.key)))
    if len(items) == 1:
        (one,) = items
        place = " · ".join(x for x in (one.project, client_name(one.provider, one.client)) if x)
        since = _clock_time(one.since)
        body = f"{place}\n{one.needs}" + (f" since {since}" if since else "")
        return Notification(title=one.title, body=body, items=items)
    kinds = {i.kind for i in items}
    title = f"{len(items)} sessions need you"
    if len(kinds) == 1:
        title = f"{len(items)} sessions: {items[0].needs}"
    lines = [
        f"{i.title}" + (f" ({i.project})" if i.project and i.project != i.title else "") + f": {i.needs}"
        for i in items[:NAMED_AT_MOST]
    ]
    if len(items) > NAMED_AT_MOST:
        lines.append(f"and {len(items) - NAMED_AT_MOST} more")
    return Notification(title=title, body="\n".join(lines), items=items)


def _always(_session: Session) -> bool:
    return True


def _never_sent(_key: str, _mark: str) -> bool:
    return False


@dataclass
class Decider:
    """Transitions in (`offer`), notifications out (`due`). One per collector; the clock is the caller's."""

    policy: Policy = field(default_factory=Policy)
    # True when a notification with this (session, mark) was sent before, by this process or an earlier one.
    already_sent: Callable[[str, str], bool] = _never_sent
    # Whether this machine notifies for the row (a synced row of another host is that host's to notify).
    ours: Callable[[Session], bool] = _always
    _pending: dict[str, Item] = field(default_factory=dict)
    _first_pending_at: float | None = None
    _last: dict[str, tuple[float, int]] = field(default_factory=dict)

    def offer(self, transition: Transition, now: float) -> str:
        """Consider one committed transition; returns what became of it ("pending" or why not), for tests and logs."""
        session = transition.session
        kind = kind_of(transition.old, session)
        if kind is None:
            if session.id in self._pending and transition.old != session.state != State.UNKNOWN:
                del self._pending[session.id]  # it moved on (the person answered) before the window closed
            return "no kind"
        if not self.policy.enabled:
            return "off"
        if kind.name not in self.policy.kinds:
            return "kind off"
        if not transition.listed:
            return "not listed"
        if transition.task_reply and kind.silent_for_task_replies:
            return "a reply to a task event"
        if transition.hidden and not self.policy.hidden:
            return "hidden"
        if not self.ours(session):
            return "not ours"
        item = item_of(kind, session)
        if kind.needs_fresh_evidence and (item.since is None or now - item.since > self.policy.fresh_s):
            return "old evidence"
        if self.already_sent(item.key, item.mark):
            return "sent before"
        last = self._last.get(item.key)
        if last is not None and now - last[0] < self.policy.quiet_s and item.urgency <= last[1]:
            return "quiet"
        self._pending[item.key] = item
        if self._first_pending_at is None:
            self._first_pending_at = now
        return "pending"

    def next_due(self) -> float | None:
        """When `due` will next have something (None: nothing waits)."""
        if self._first_pending_at is None:
            return None
        return self._first_pending_at + self.policy.coalesce_s

    def due(
        self,
        now: float,
        looking_at: Callable[[str], bool] = lambda _key: False,
        title_now: Callable[[str], str | None] = lambda _key: None,
    ) -> list[Notification]:
        """What is ready to send at `now`: one notification for everything that waited out the window, without
        the sessions the person is looking at right now. `title_now` gives a session's current title: one read
        from a transcript after the state changed is better than the folder's name."""
        at = self.next_due()
        if at is None or now < at:
            return []
        items = [replace(i, title=title_now(i.key) or i.title) for i in self._pending.values() if not looking_at(i.key)]
        self._pending.clear()
        self._first_pending_at = None
        for item in items:
            self._last[item.key] = (now, item.urgency)
        return [compose(items)] if items else []
