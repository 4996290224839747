"""Which sessions the panel shows: search, provider, Active and the awaiting-input counter.

A plain value so it can be stored (search and filters survive reopening the panel) and tested without a
screen.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

import msgspec

from lunavect.core import clients
from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session

# "Active narrows the list to active states": working in any form, or waiting for the person.
ACTIVE_STATES = WORKING_STATES | AWAITING_STATES


def providers() -> tuple[str, ...]:
    """Every value the provider filter can hold: all, then each client."""
    return ("all", *clients.ids())


def provider_choices(listed: Collection[str], chosen: str) -> tuple[str, ...]:
    """The provider filter's choices, in the order its buttons show them and its key cycles them: all, then each
    client with a session in the list (`listed`: the providers of every listed row, hidden ones too) and the
    chosen one even without, so that a chosen filter never vanishes under its person, in the descriptors' order.
    Empty (no client buttons at all) while one client alone has sessions and none is chosen: All would be the
    only choice, and a button for that one client would show the same list."""
    shown = tuple(c for c in clients.ids() if c in listed or c == chosen)
    if len(shown) < 2 and chosen == "all":
        return ()
    return ("all", *shown)


def provider_label(provider: str) -> str:
    """A provider as its filter button names it ("Claude")."""
    client = clients.by_id(provider)
    return client.label if client is not None else provider


def following(choices: tuple[str, ...], provider: str) -> str:
    """The choice after `provider` in `choices` (`provider_choices`), as the filter's key cycles them: all again
    after the last, and all while there is nothing to cycle."""
    order = choices or ("all",)
    return order[(order.index(provider) + 1) % len(order)] if provider in order else "all"


class Filter(msgspec.Struct, frozen=True, omit_defaults=True):
    search: str = ""
    provider: str = "all"
    active: bool = False
    # Set by selecting the awaiting-input counter: only sessions that need a reply or a permission.
    awaiting: bool = False

    def matches(self, session: Session, words: list[str] | None = None, key: str | None = None) -> bool:
        """`words`: the search's words, when the caller split them once for a whole list; `key`: the session's
        search key (`search_key`), when the caller keeps it."""
        if self.provider != "all" and session.provider != self.provider:
            return False
        if self.awaiting and session.state not in AWAITING_STATES:
            return False
        if self.active and session.state not in ACTIVE_STATES:
            return False
        words = self.search.strip().casefold().split() if words is None else words
        if words:
            haystack = search_key(session) if key is None else key
            return all(word in haystack for word in words)
        return True

    def apply(self, sessions: Iterable[Session], keys: SearchKeys | None = None) -> list[Session]:
        """The sessions this filter shows, in their order; `keys` keeps each session's search key between
        calls (typing a search filters the whole list at each key)."""
        if not self.narrows:
            return list(sessions)
        words = self.search.strip().casefold().split()
        if keys is None:
            return [s for s in sessions if self.matches(s, words)]
        return [s for s in sessions if self.matches(s, words, keys.of(s) if words else "")]

    @property
    def narrows(self) -> bool:
        return bool(self.search.strip()) or self.provider != "all" or self.active or self.awaiting


def search_key(session: Session) -> str:
    """What the search looks in: the title and the project, case-folded."""
    return f"{session.title or ''}\n{session.project or ''}".casefold()


class SearchKeys:
    """Each session's search key, kept while the session is the same object (`sessions.RowMemo` keeps an
    unchanged row's session), so a search over thousands of rows folds no text again."""

    def __init__(self) -> None:
        self._keys: dict[str, tuple[Session, str]] = {}

    def of(self, session: Session) -> str:
        kept = self._keys.get(session.id)
        if kept is not None and kept[0] is session:
            return kept[1]
        key = search_key(session)
        self._keys[session.id] = (session, key)
        return key


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Filter)


def dumps(value: Filter) -> str:
    return _encoder.encode(value).decode()


def loads(text: str | None) -> Filter:
    """A stored filter; a damaged or foreign value gives the default rather than an error."""
    if not text:
        return Filter()
    try:
        value = _decoder.decode(text)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return Filter()
    if value.provider not in providers():
        value = msgspec.structs.replace(value, provider="all")
    return value
