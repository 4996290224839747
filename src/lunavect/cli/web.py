"""`lunavect web`: the live list in a browser, and `lunavect web tokens` to list, make and revoke its tokens.

The serving and the walls live in `lunavect.frontends.web`; this module only reads the options, prints the
link once (with a QR code for a phone), and turns every failure into one line.
"""

from __future__ import annotations

import sys

import click
import msgspec

from lunavect.cli.common import Failure, fresh_store, open_store
from lunavect.core.extras import needs_extra
from lunavect.core.times import local_text

WEB_MISSING = needs_extra("the web panel", "web")


def _web_modules():
    try:
        import segno  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        from lunavect.frontends.web import server, tokens
    except ImportError as exc:
        raise Failure(f"{WEB_MISSING} ({exc})") from None
    return server, tokens


# Said instead of a QR code while the panel serves this machine's loopback only: a phone would open its own.
LOOPBACK_ONLY = (
    "  no QR code: the page is served on this machine's loopback only, which a phone cannot reach (an SSH "
    'tunnel, Tailscale or --listen with this machine\'s address: docs/web.md, "From another machine")'
)


def _print_link(role: str, url: str, phone: str | None, qr: bool) -> None:
    """The link; with `qr`, the QR code of `phone` (the link as a phone reaches it), or why there is none."""
    server, _ = _web_modules()
    what = "control (pin, hide, reorder, open)" if role == "control" else "view only"
    click.echo(f"  {what}: {url}")
    if not qr:
        return
    if phone is None:
        click.echo(LOOPBACK_ONLY)
        return
    if phone != url:
        click.echo(f"  for a phone: {phone}")
    click.echo(server.qr_text(phone), nl=False)


@click.group("web", invoke_without_command=True)
@click.option(
    "--listen",
    "listen_text",
    metavar="ADDR:PORT",
    default=None,
    help="Where to listen (default 127.0.0.1:8765). Another address only when you give one.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    metavar="NAME",
    multiple=True,
    help="A host name the panel answers to besides localhost and addresses (e.g. a Tailscale name).",
)
@click.option("--tls-cert", metavar="FILE", default=None, help="Serve HTTPS with this certificate (PEM).")
@click.option("--tls-key", metavar="FILE", default=None, help="The certificate's private key (PEM).")
@click.option("--no-qr", is_flag=True, help="Do not draw the QR code of a new link.")
@click.option(
    "--allow-peek",
    is_flag=True,
    help="Let control tokens read sessions' messages, reply and answer permissions (private text leaves "
    "this machine to the browser).",
)
@click.option(
    "--public-url",
    metavar="URL",
    default=None,
    help="The address a phone opens the panel at (e.g. https://desk.example.ts.net:8765): pushes carry the link "
    "to the session's row there, never a token.",
)
@click.pass_context
def web_command(
    ctx: click.Context,
    listen_text: str | None,
    allow_hosts: tuple[str, ...],
    tls_cert: str | None,
    tls_key: str | None,
    no_qr: bool,
    allow_peek: bool,
    public_url: str | None,
) -> None:
    """Serve the live list to browsers (a phone included): view-only and control links, each with a token.

    \b
    Examples:
      lunavect web
      lunavect web --listen 0.0.0.0:8765 --tls-cert cert.pem --tls-key key.pem
      lunavect web tokens new --view
    """
    if ctx.invoked_subcommand is not None:
        return
    server, _ = _web_modules()
    from lunavect import store

    try:
        listen = server.parse_listen(listen_text or server.DEFAULT_LISTEN)
    except server.ListenError as exc:
        raise click.BadParameter(str(exc), param_hint="'--listen'") from None
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("give both --tls-cert and --tls-key")
    from lunavect.notify import push

    if public_url is not None:
        try:
            public_url = push.check_public_url(public_url)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--public-url'") from None
    try:
        server.check_tls(tls_cert, tls_key)
        sock = server.bind(listen)
    except server.ListenError as exc:
        raise Failure(str(exc)) from None
    url = server.base_url(sock, listen, bool(tls_cert))
    phone = server.phone_url(sock, listen, bool(tls_cert))
    conn = fresh_store()

    store.set_setting(conn, server.URL_SETTING, url)
    store.set_setting(conn, server.PHONE_URL_SETTING, phone)  # None: loopback only, no QR code
    store.set_setting(conn, push.PUBLIC_URL_SETTING, public_url)  # pushes link here while this panel serves
    new = server.first_tokens(conn)
    conn.close()
    click.echo(f"lunavect web: serving the panel on {url}")
    from lunavect.frontends.web.connections import h11_problem

    if (problem := h11_problem()) is not None:
        click.echo(f"  warning: {problem}")
    if not listen.loopback:
        click.echo(f"  listening on {listen.host}, not only this machine: every request needs a token")
        if not tls_cert:
            click.echo(
                "  without TLS the network can read the traffic: prefer --tls-cert/--tls-key, an SSH tunnel "
                "or Tailscale"
            )
    if public_url is not None:
        click.echo(f"  pushes link to the sessions' rows at {public_url} (the page asks for a token)")
    if allow_peek:
        click.echo("  --allow-peek: control tokens can read sessions' messages, reply and answer permissions")
    if new:
        click.echo("  new links (shown once; the store keeps only their hashes):")
        for secret, token in new:
            reached = None if phone is None else server.link(phone, secret)
            _print_link(token.role, server.link(url, secret), reached, qr=token.role == "control" and not no_qr)
    else:
        click.echo("  open it with a link you were given; `lunavect web tokens new` makes another")
    sys.stdout.flush()
    try:
        allowed = (*allow_hosts, *server.own_names(listen))
        server.serve(
            sock, store.connect, allowed_hosts=allowed, tls_cert=tls_cert, tls_key=tls_key, allow_peek=allow_peek
        )
    except KeyboardInterrupt:
        pass


@web_command.group("tokens")
def tokens_group() -> None:
    """List, make and revoke the web panel's tokens."""


@tokens_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def tokens_list(as_json: bool) -> None:
    """Every token by its id and role (their secrets are not kept)."""
    _, tokens = _web_modules()
    found = tokens.list_tokens(open_store())
    if as_json:
        click.echo(
            msgspec.json.encode(
                [{"id": t.id, "role": t.role, "created": t.created, "label": t.label} for t in found]
            ).decode()
        )
        return
    if not found:
        click.echo("no tokens: `lunavect web` or `lunavect web tokens new` makes one")
    for token in found:
        made = local_text(token.created, "%Y-%m-%d %H:%M", missing="?")
        click.echo(f"{token.id}  {token.role:<7}  {made}  {token.label}".rstrip())


@tokens_group.command("new")
@click.option("--view", "role", flag_value="view", help="A view-only token.")
@click.option("--control", "role", flag_value="control", default=True, help="A token that can also change the list.")
@click.option("--label", default="", help="A note to recognise it by in the list.")
@click.option("--url", default=None, help="The panel's address (default: where `lunavect web` last served).")
@click.option("--no-qr", is_flag=True, help="Do not draw the QR code.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (with the secret: it is shown only now).")
def tokens_new(role: str, label: str, url: str | None, no_qr: bool, as_json: bool) -> None:
    """Make a token and print its link once (the store keeps only its hash)."""
    from lunavect import store

    server, tokens = _web_modules()
    conn = open_store()
    base = url or store.get_setting(conn, server.URL_SETTING) or f"http://{server.DEFAULT_LISTEN}/"
    # The address a phone follows: the one given, unless it is this machine's loopback, or where `lunavect web`
    # last served beyond it.
    phone = (url if server.beyond_loopback(url) else None) if url else store.get_setting(conn, server.PHONE_URL_SETTING)
    secret, token = tokens.create(conn, role, label)
    full = server.link(base, secret)
    if as_json:
        click.echo(msgspec.json.encode({"id": token.id, "role": token.role, "token": secret, "url": full}).decode())
        return
    click.echo(f"token {token.id} ({token.role}); its link, shown once:")
    _print_link(token.role, full, None if phone is None else server.link(phone, secret), qr=not no_qr)


@tokens_group.command("revoke")
@click.argument("token_id", metavar="ID")
def tokens_revoke(token_id: str) -> None:
    """Revoke a token by its id (as `lunavect web tokens list` prints it): its pages lose access at once."""
    _, tokens = _web_modules()
    try:
        token = tokens.revoke(open_store(), token_id)
    except tokens.TokenError as exc:
        raise Failure(str(exc)) from None
    click.echo(f"revoked {token.id} ({token.role})")


COMMANDS = (web_command,)
