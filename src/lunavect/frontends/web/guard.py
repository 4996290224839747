"""The web panel's walls, as plain functions and values: which Host names are ours, whether a change comes from
our own page, how often a wrong token may be tried, and the headers every answer carries.

Kept apart from the routes so each rule is unit-tested without a server, and so the routes cannot forget one.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

# No inline script or style anywhere: everything the page runs comes from its own files. The one form, the locked
# page's token field, goes to this server only (it asks for `/?token=...`, as the printed link does).
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    # A token in the address bar must never leave in a Referer.
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}

LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def host_name(header: str | None) -> str | None:
    """The name in a Host header, without its port, lowercased; None when the header is missing or malformed."""
    if not header or len(header) > 255:
        return None
    try:
        parts = urlsplit("//" + header)
        name = parts.hostname
        _ = parts.port  # raises on a malformed port
    except ValueError:
        return None
    return name.lower() if name else None


def host_allowed(header: str | None, extra_names: Iterable[str] = ()) -> bool:
    """Whether a request's Host names this server, which defeats DNS rebinding.

    A rebinding page reaches us under its own domain name, so a name must be one we were told to answer to
    (localhost, or `--allow-host` for a Tailscale or LAN name). An address literal is always ours: a page served
    from another origin cannot make the browser send our address as its Host.
    """
    name = host_name(header)
    if name is None:
        return False
    if name in LOCAL_NAMES or name in {n.lower() for n in extra_names}:
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def same_origin(origin: str | None, host: str | None, scheme: str) -> bool:
    """Whether a change comes from a page of this very server (scheme, name and port), never another site.

    Browsers send Origin with every POST; a request without one is refused rather than trusted.
    """
    if not origin or not host or origin == "null":
        return False
    try:
        parts = urlsplit(origin)
        wanted = urlsplit(f"{scheme}://{host}")
        return (
            parts.scheme == scheme
            and parts.hostname is not None
            and parts.hostname == wanted.hostname
            and (parts.port or _default_port(scheme)) == (wanted.port or _default_port(scheme))
            and not parts.path.strip("/")
        )
    except ValueError:
        return False


def _default_port(scheme: str) -> int:
    return 443 if scheme == "https" else 80


class FailureLimiter:
    """Wrong tokens, counted per client address and remembered per address and token.

    A right token is always let in: any web page can make a browser send wrong tokens to this address (eleven
    `<img src="http://127.0.0.1:8765/?token=x">` used to lock the person out, renewable every minute), and an
    SSH tunnel shows every user as 127.0.0.1. So the count limits only guessing: past `limit` wrong tokens in
    `window` seconds, a wrong token from that address is told to wait (429) rather than that it is wrong, and a
    token already found wrong there is refused without asking the store again (a wrong token never becomes a
    right one: new tokens are random). The clock is a parameter so the rule is tested without waiting."""

    # Wrong tokens remembered per address, and addresses remembered: a flood of either cannot grow memory.
    KEPT_PER_ADDRESS = 64
    KEPT_ADDRESSES = 10_000

    def __init__(self, limit: int = 10, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._failures: dict[str, list[float]] = {}
        self._wrong: dict[str, dict[str, float]] = {}

    def _recent(self, address: str) -> list[float]:
        now = self.clock()
        times = [t for t in self._failures.get(address, ()) if now - t < self.window]
        if times:
            self._failures[address] = times
        else:
            self._failures.pop(address, None)
            self._wrong.pop(address, None)
        return times

    def blocked(self, address: str) -> float:
        """Seconds until a wrong token from this address is told it is wrong again (0: now)."""
        times = self._recent(address)
        if len(times) < self.limit:
            return 0.0
        return max(0.0, self.window - (self.clock() - times[-self.limit]))

    def known_wrong(self, address: str, digest: str) -> bool:
        """Whether this token (its digest) was found wrong from this address within the window."""
        seen = self._wrong.get(address, {}).get(digest)
        return seen is not None and self.clock() - seen < self.window

    def failed(self, address: str, digest: str = "") -> None:
        times = self._recent(address)
        now = self.clock()
        times.append(now)
        self._failures[address] = times[-self.limit :]
        if digest:
            wrong = self._wrong.setdefault(address, {})
            wrong.pop(digest, None)
            wrong[digest] = now
            if len(wrong) > self.KEPT_PER_ADDRESS:
                del wrong[next(iter(wrong))]
        if len(self._failures) > self.KEPT_ADDRESSES:
            oldest = min(self._failures, key=lambda a: self._failures[a][-1])
            del self._failures[oldest]
            self._wrong.pop(oldest, None)
