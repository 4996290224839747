"""Which sessions the panel shows: search, provider, Active and the awaiting-input counter.

A plain value so it can be stored (search and filters survive reopening the panel) and tested without a
screen.
"""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from lunavect.core.model import AWAITING_STATES, WORKING_STATES, Session

PROVIDERS = ("all", "claude", "codex")
# "Active narrows the list to active states": working in any form, or waiting for the person.
ACTIVE_STATES = WORKING_STATES | AWAITING_STATES


class Filter(msgspec.Struct, frozen=True, omit_defaults=True):
    search: str = ""
    provider: str = "all"
    active: bool = False
    # Set by selecting the awaiting-input counter: only sessions that need a reply or a permission.
    awaiting: bool = False

    def matches(self, session: Session) -> bool:
        if self.provider != "all" and session.provider != self.provider:
            return False
        if self.awaiting and session.state not in AWAITING_STATES:
            return False
        if self.active and session.state not in ACTIVE_STATES:
            return False
        needle = self.search.strip().casefold()
        if needle:
            haystack = f"{session.title or ''}\n{session.project or ''}".casefold()
            return all(word in haystack for word in needle.split())
        return True

    def apply(self, sessions: Iterable[Session]) -> list[Session]:
        return [s for s in sessions if self.matches(s)]

    @property
    def narrows(self) -> bool:
        return bool(self.search.strip()) or self.provider != "all" or self.active or self.awaiting


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
    if value.provider not in PROVIDERS:
        value = msgspec.structs.replace(value, provider="all")
    return value
