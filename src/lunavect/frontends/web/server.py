"""Starting the web panel: the address it listens on, its link with a token, and uvicorn.

It listens on 127.0.0.1 unless the person names another address; the socket is bound before anything is
printed, so the printed link always has the real port (port 0 asks the system for a free one).
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import sqlite3
import ssl
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from lunavect.frontends.web import tokens
from lunavect.host.name import all_names, machine_name, reachable_address

if TYPE_CHECKING:
    import uvicorn

DEFAULT_LISTEN = "127.0.0.1:8765"
# Where `lunavect web` last served, so `lunavect web tokens new` prints a link that works, and the address a
# phone reaches it at (absent while it serves this machine's loopback only), for that link's QR code.
URL_SETTING = "web.url"
PHONE_URL_SETTING = "web.phone_url"


class ListenError(Exception):
    """The address to listen on is malformed or cannot be bound."""


@dataclass(frozen=True)
class Listen:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return self.host == "localhost"


def parse_listen(text: str) -> Listen:
    """`ADDR:PORT`, `[v6]:PORT`, or `:PORT` (loopback)."""
    text = text.strip()
    if text.startswith("["):
        host, sep, port = text[1:].partition("]:")
    else:
        host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ListenError(f"not an ADDR:PORT: {text!r} (e.g. 127.0.0.1:8765, 0.0.0.0:8765 or [::1]:8765)")
    return Listen(host or "127.0.0.1", int(port))


def bind(listen: Listen) -> socket.socket:
    try:
        infos = socket.getaddrinfo(listen.host, listen.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ListenError(f"cannot resolve {listen.host!r}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ListenError(f"cannot listen on {listen.host}:{listen.port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def own_names(listen: Listen) -> tuple[str, ...]:
    """Host names the panel answers to because the person chose them: the name given to `--listen`, or this
    machine's own names when listening on every address (the printed link uses them)."""
    if listen.host in ("0.0.0.0", "::"):
        return all_names()
    try:
        ipaddress.ip_address(listen.host)
    except ValueError:
        return (listen.host.lower(),)
    return ()


def base_url(sock: socket.socket, listen: Listen, tls: bool) -> str:
    port = sock.getsockname()[1]
    host = listen.host
    if host in ("0.0.0.0", "::"):
        host = machine_name()
    elif ":" in host:
        host = f"[{host}]"
    return f"{'https' if tls else 'http'}://{host}:{port}/"


def phone_url(sock: socket.socket, listen: Listen, tls: bool) -> str | None:
    """The panel's address as a phone's camera should follow it, or None while it serves this machine's loopback
    only (a QR code of 127.0.0.1 would open the phone's own). On every address, the machine's reachable address
    (a phone seldom resolves its host name), unless a TLS certificate wants the name; else where it listens."""
    if listen.loopback:
        return None
    if listen.host in ("0.0.0.0", "::") and not tls:
        address = reachable_address(ipv6=listen.host == "::")
        if address is None:
            return None
        host = f"[{address}]" if ":" in address else address
        return f"http://{host}:{sock.getsockname()[1]}/"
    return base_url(sock, listen, tls)


def beyond_loopback(url: str) -> bool:
    """Whether a panel's address names something other than this machine's loopback."""
    host = urlsplit(url).hostname or ""
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host.lower() not in ("", "localhost")


def link(url: str, secret: str) -> str:
    return f"{url}?token={quote(secret)}"


def qr_text(text: str) -> str:
    """A QR code drawn with terminal blocks, for a phone's camera."""
    import io

    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def check_tls(cert: str | None, key: str | None) -> None:
    if (cert is None) != (key is None):
        raise ListenError("give both --tls-cert and --tls-key")
    if cert and key:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        try:
            context.load_cert_chain(cert, key)
        except (OSError, ssl.SSLError) as exc:
            raise ListenError(f"cannot use the TLS certificate and key: {exc}") from None


def first_tokens(conn: sqlite3.Connection) -> list[tuple[str, tokens.Token]]:
    """On a store without any token: one control and one view-only token, to print once."""
    if tokens.list_tokens(conn):
        return []
    return [tokens.create(conn, "control", "first control link"), tokens.create(conn, "view", "first view link")]


def uvicorn_config(app: Any, tls_cert: str | None = None, tls_key: str | None = None) -> uvicorn.Config:
    """How uvicorn serves the panel's application (its own tests serve with the same)."""
    import uvicorn

    from lunavect.frontends.web.connections import ACCEPT_BATCH, Gate, h11_problem

    problem = h11_problem()
    if problem is not None:
        logging.getLogger("lunavect.web").warning(problem)
    return uvicorn.Config(
        app,
        # A deadline for each request and a cap on open connections, which uvicorn's settings do not give: the
        # cap the application's live list knows (its view-only streams leave room for control tokens).
        http=Gate(app.state.panel.settings.max_connections).protocol() if problem is None else "h11",
        backlog=ACCEPT_BATCH,
        log_level="warning",
        access_log=False,
        ssl_certfile=tls_cert,
        ssl_keyfile=tls_key,
        timeout_graceful_shutdown=1,
        proxy_headers=False,
        server_header=False,
        lifespan="on",
        ws="none",
    )


def serve(
    sock: socket.socket,
    connect: Callable[[], sqlite3.Connection],
    *,
    allowed_hosts: tuple[str, ...],
    tls_cert: str | None,
    tls_key: str | None,
    allow_peek: bool = False,
) -> None:
    import uvicorn

    from lunavect.frontends.web.app import Settings, create_app

    settings = Settings(connect=connect, allowed_hosts=allowed_hosts, tls=bool(tls_cert), allow_peek=allow_peek)
    app = create_app(settings)
    config = uvicorn_config(app, tls_cert, tls_key)

    class Server(uvicorn.Server):
        """Ends the event streams as soon as a stop is asked: uvicorn waits for open connections before it
        stops, and a browser's stream never ends on its own."""

        def handle_exit(self, sig: int, frame: object) -> None:
            panel = app.state.panel
            if panel.loop is not None:
                panel.loop.call_soon_threadsafe(panel.feed.close_all)
            super().handle_exit(sig, frame)  # type: ignore[arg-type]

    Server(config).run(sockets=[sock])
