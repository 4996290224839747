"""`lunavect web` and `lunavect web tokens` as commands: one clear line for a bad option, tokens made (the secret
printed once, with its link and QR code), listed without their secrets, and revoked."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette", reason="the web extra is not installed")

from lunavect.cli.root import cli  # noqa: E402


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [
        # Bad usage exits 2 (docs, "Exit codes"); an address or a certificate that cannot be used, 1.
        (["--listen", "nonsense"], "not an ADDR:PORT", 2),
        (["--listen", "127.0.0.1:99999"], "not an ADDR:PORT", 2),
        (["--listen", "203.0.113.1:0"], "cannot listen on 203.0.113.1:0", 1),
        (["--tls-cert", "cert.pem"], "give both --tls-cert and --tls-key", 2),
        (["--tls-cert", "missing.pem", "--tls-key", "missing.key"], "cannot use the TLS certificate", 1),
    ],
)
def test_a_bad_option_is_one_line_not_a_traceback(iso_env, args, message, code):
    result = run("web", *args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1


def test_tokens_are_made_listed_and_revoked(iso_env):
    made = run("web", "tokens", "new", "--view", "--label", "phone", "--url", "http://192.0.2.10:9000/")
    assert made.exit_code == 0
    assert "view" in made.output and "http://192.0.2.10:9000/?token=" in made.output
    assert "█" in made.output or "▀" in made.output  # the QR code for a phone's camera
    as_json = json.loads(run("web", "tokens", "new", "--json", "--no-qr").output)
    assert as_json["role"] == "control" and as_json["url"].endswith(as_json["token"])

    listed = json.loads(run("web", "tokens", "list", "--json").output)
    assert [(t["role"], t["label"]) for t in listed] == [("view", "phone"), ("control", "")]
    text = run("web", "tokens", "list").output
    assert as_json["token"] not in text and as_json["id"] in text

    revoked = run("web", "tokens", "revoke", as_json["id"])
    assert revoked.exit_code == 0 and "revoked" in revoked.output
    assert [t["role"] for t in json.loads(run("web", "tokens", "list", "--json").output)] == ["view"]
    again = run("web", "tokens", "revoke", as_json["id"])
    assert again.exit_code == 1 and "no token" in again.output


def test_the_names_chosen_with_listen_are_answered_to():
    import socket

    from lunavect.frontends.web import guard, server

    wildcard = server.own_names(server.parse_listen("0.0.0.0:8765"))
    assert socket.gethostname().lower() in wildcard
    assert guard.host_allowed(f"{socket.gethostname()}:8765", wildcard)
    assert server.own_names(server.parse_listen("box.tailnet.ts.net:8765")) == ("box.tailnet.ts.net",)
    assert server.own_names(server.parse_listen("127.0.0.1:8765")) == ()
    assert server.own_names(server.parse_listen("[::1]:8765")) == ()


def qr_drawn(output: str) -> bool:
    return "█" in output or "▀" in output


def test_a_link_to_this_machines_loopback_gets_no_qr_code_but_the_reason(iso_env):
    """A phone that scans 127.0.0.1 opens its own loopback: such a link is printed for this machine's browser,
    and instead of its QR code the command says how a phone reaches the page."""
    for url in ("http://127.0.0.1:9000/", "http://localhost:9000/", "http://[::1]:9000/"):
        made = run("web", "tokens", "new", "--url", url)
        assert made.exit_code == 0 and f"{url}?token=" in made.output
        assert not qr_drawn(made.output) and "loopback only" in made.output
    # Without --url: where `lunavect web` last served, and the address a phone reaches it at (none here).
    made = run("web", "tokens", "new")
    assert not qr_drawn(made.output) and "loopback only" in made.output


def test_a_panel_on_every_address_is_given_to_a_phone_by_this_machines_reachable_address():
    """Listening on 0.0.0.0 the QR code names the address other machines reach this one at (a phone seldom
    resolves a host name), never a loopback one; on loopback there is none; on a named address, that address."""
    import ipaddress

    from lunavect.frontends.web import server
    from lunavect.host.name import reachable_address

    for text, expected in (("127.0.0.1:0", None), ("[::1]:0", None)):
        listen = server.parse_listen(text)
        sock = server.bind(listen)
        try:
            assert server.phone_url(sock, listen, tls=False) is expected
        finally:
            sock.close()
    listen = server.parse_listen("0.0.0.0:0")
    sock = server.bind(listen)
    try:
        phone = server.phone_url(sock, listen, tls=False)
        address = reachable_address()
        if address is None:  # a machine without a route out: nothing a phone could reach
            assert phone is None
        else:
            assert not ipaddress.ip_address(address).is_loopback
            assert phone == f"http://{address}:{sock.getsockname()[1]}/"
            assert server.beyond_loopback(phone)
    finally:
        sock.close()
    assert not server.beyond_loopback("http://127.0.0.2:8765/") and server.beyond_loopback("http://box.ts.net:1/")
