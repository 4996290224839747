"""One session row another machine sent, made into a row this machine may keep and show.

A row is that machine's word about its own session; what it may say is bounded here, once, where it enters
(docs, "Many machines"), because every front end then reads it and one page serves it whole:

- its identity (host, provider, session id) is its key's (`keys.parse` checked those), never its value's;
- what names this machine's processes and terminals (`pid`, `tty`, `pstart`) is that machine's, not this one's:
  dropped, so a remote row never marks a local tmux pane or matches a local process;
- its `resume` is never the text it sent (a "copy the resume command" would copy whatever another machine
  wrote, `curl ... | sh` included): it is rebuilt from the checked host and id as the one command that
  resumes a session there, `ssh HOST -t lunavect resume ID`;
- `heard` and `usage` are this machine's to say (the heartbeat says when its host was heard; usage is read
  from a client's own files, which only the host has);
- every text is cut to a length, the lists and counts to a size, and a time later than the put's own (beyond
  `CLOCK_SKEW_S`, for a host whose clock runs ahead) to the put's time: a row that claims the future would
  stay on top of every list;
- its wait starts no earlier than this machine first heard the row (`since` and `last_active`, what "who has
  waited longest" is judged by): a row saying `permission` since 1970 would otherwise come before every
  session of this machine in `lunavect next`, the tray and tmux. A row that says no `last_active` gets the
  later of its `updated` and that first hearing.

A row longer than `MAX_ROW_BYTES` is not decoded at all; a row whose fields had to be cut is kept, cut, and
counted by the caller.
"""

from __future__ import annotations

import msgspec

from lunavect.core.model import Session
from lunavect.core.resume_command import ssh_command
from lunavect.core.times import epoch, iso

# A row as lunavect writes it is about 1 KB (a long folder makes it a few); a row above this is refused
# undecoded.
MAX_ROW_BYTES = 64 * 1024
# How many session rows one machine may have here at once (more are refused, counted).
MAX_ROWS_PER_HOST = 2000
# The longest text each field may keep (a title as a client shows it is at most 80 characters; a path 4096).
TEXT_CHARS = {
    "title": 200,
    "project": 200,
    "cwd": 4096,
    "activity": 200,
    "waiting_for": 200,
    "error": 64,
    "client": 64,
    "entrypoint": 64,
}
MAX_BASIS = 16
BASIS_CHARS = 64
MAX_BACKGROUND_KINDS = 16
BACKGROUND_KIND_CHARS = 64
MAX_BACKGROUND_COUNT = 10_000
ELLIPSIS = "…"
# How far ahead of the server's clock a host's own clock may run before its times count as the future.
CLOCK_SKEW_S = 300.0

_decoder = msgspec.json.Decoder(Session)


def decode(data: bytes) -> Session | None:
    """The row a value holds, or None when it is too long or no row (a reader never sees it)."""
    if len(data) > MAX_ROW_BYTES:
        return None
    try:
        return _decoder.decode(data)
    except msgspec.DecodeError:
        return None


def _cut(text: str | None, limit: int) -> tuple[str | None, bool]:
    if text is None or len(text) <= limit:
        return text, False
    return text[: limit - 1] + ELLIPSIS, True


def _time(text: str | None, put_at: float) -> tuple[str | None, bool]:
    """A time no later than the put that carried it, give or take a clock's drift (None when it is no time)."""
    seconds = epoch(text)
    if seconds is None:
        return None, text is not None
    if seconds > put_at + CLOCK_SKEW_S:
        return iso(put_at), True
    return text, False


def _not_before(text: str | None, first_heard: float) -> str | None:
    seconds = epoch(text)
    return iso(first_heard) if seconds is None or seconds < first_heard else text


def admit(session: Session, host: str, key_session: str, put_at: float, first_heard: float | None = None) -> bool:
    """Make `session` (decoded from `host`'s key for `key_session`, put at `put_at`, first heard here at
    `first_heard`, by default `put_at`) a row this machine keeps; True when something had to be cut to fit."""
    cut = False
    session.host = host
    session.id = key_session
    session.provider, _, session.session_id = key_session.partition(":")
    session.resume = ssh_command(host, "resume", key_session) if session.resume is not None else None
    session.pid = session.tty = session.pstart = None
    session.heard = session.usage = None
    for name, limit in TEXT_CHARS.items():
        value, was_cut = _cut(getattr(session, name), limit)
        setattr(session, name, value)
        cut = cut or was_cut
    for name in ("since", "updated", "last_active"):
        value, was_cut = _time(getattr(session, name), put_at)
        setattr(session, name, value)
        cut = cut or was_cut
    heard = put_at if first_heard is None else min(first_heard, put_at)
    if session.since is not None:
        session.since = _not_before(session.since, heard)
    session.last_active = _not_before(session.last_active or session.updated, heard)
    basis = [text[:BASIS_CHARS] for text in session.basis[:MAX_BASIS]]
    background = {
        kind[:BACKGROUND_KIND_CHARS]: max(0, min(count, MAX_BACKGROUND_COUNT))
        for kind, count in list(session.background.items())[:MAX_BACKGROUND_KINDS]
    }
    cut = cut or basis != session.basis or background != session.background
    session.basis, session.background = basis, background
    return cut
