"""The web panel's token store and walls, without a server: stored hashed, listed, revoked, checked in constant
time; Host and Origin rules; the wrong-token limiter with a clock the test holds."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from lunavect.frontends.web import guard, tokens


def test_a_token_is_stored_only_as_its_hash(iso_env):
    conn = iso_env.connect()
    secret, token = tokens.create(conn, "control", "phone")
    assert len(secret) >= 40
    stored = "\n".join(value for (value,) in conn.execute("SELECT value FROM settings"))
    assert secret not in stored
    assert tokens.digest(secret) in stored
    assert token.id == tokens.digest(secret)[: tokens.ID_LENGTH]
    conn.execute("PRAGMA wal_checkpoint(FULL)")
    for written in iso_env.data.rglob("*"):
        if written.is_file():
            assert secret.encode() not in written.read_bytes(), written


def test_tokens_are_listed_with_role_and_label_and_verified(iso_env):
    conn = iso_env.connect()
    control_secret, control = tokens.create(conn, "control", "laptop", now=100.0)
    view_secret, view = tokens.create(conn, "view", "phone", now=200.0)
    listed = tokens.list_tokens(conn)
    assert [(t.id, t.role, t.label, t.created) for t in listed] == [
        (control.id, "control", "laptop", 100.0),
        (view.id, "view", "phone", 200.0),
    ]
    assert tokens.verify(listed, control_secret) == control and control.can_change
    assert tokens.verify(listed, view_secret) == view and not view.can_change
    assert tokens.verify(listed, view_secret + "x") is None
    assert tokens.verify(listed, "") is None
    assert tokens.verify(listed, None) is None
    assert tokens.verify(listed, "x" * 10_000) is None


def test_a_revoked_token_no_longer_verifies(iso_env):
    conn = iso_env.connect()
    secret, token = tokens.create(conn, "view")
    other_secret, _ = tokens.create(conn, "control")
    assert tokens.revoke(conn, token.id[:6]) == token
    listed = tokens.list_tokens(conn)
    assert tokens.verify(listed, secret) is None
    assert tokens.verify(listed, other_secret) is not None
    with pytest.raises(tokens.TokenError, match="no token"):
        tokens.revoke(conn, token.id)
    with pytest.raises(tokens.TokenError, match="no token id"):
        tokens.revoke(conn, " ")


def test_an_ambiguous_id_or_unknown_role_is_refused(iso_env):
    conn = iso_env.connect()
    with pytest.raises(tokens.TokenError, match="unknown role"):
        tokens.create(conn, "admin")
    made = [tokens.create(conn, "view")[1] for _ in range(40)]
    first = {t.id[0] for t in made}
    shared = next(c for c in first if sum(t.id.startswith(c) for t in made) > 1)
    with pytest.raises(tokens.TokenError, match="names"):
        tokens.revoke(conn, shared)
    assert len(tokens.list_tokens(conn)) == 40


def test_a_damaged_token_row_is_left_out_not_fatal(iso_env):
    conn = iso_env.connect()
    _, good = tokens.create(conn, "view")
    conn.execute("INSERT INTO settings (key, value) VALUES ('web.token.bad', '{not json')")
    conn.execute("INSERT INTO settings (key, value) VALUES ('web.tokenish', 'x')")
    assert [t.id for t in tokens.list_tokens(conn)] == [good.id]


@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8765", True),
        ("localhost:8765", True),
        ("[::1]:8765", True),
        ("192.168.1.20:8765", True),
        ("LOCALHOST", True),
        ("evil.example:8765", False),
        ("localhost.evil.example", False),
        ("", False),
        (None, False),
        ("127.0.0.1:notaport", False),
        ("box.tailnet.ts.net", False),
    ],
)
def test_host_names_are_ours_or_refused(host, allowed):
    assert guard.host_allowed(host) is allowed


def test_an_allowed_host_name_is_accepted():
    assert guard.host_allowed("box.tailnet.ts.net:8765", ["box.tailnet.ts.net"])
    assert guard.host_allowed("BOX.tailnet.ts.net", ["box.tailnet.ts.net"])


@pytest.mark.parametrize(
    ("origin", "host", "scheme", "same"),
    [
        ("http://127.0.0.1:8765", "127.0.0.1:8765", "http", True),
        ("https://box.ts.net", "box.ts.net:443", "https", True),
        ("http://127.0.0.1:8766", "127.0.0.1:8765", "http", False),
        ("http://evil.example", "127.0.0.1:8765", "http", False),
        ("https://127.0.0.1:8765", "127.0.0.1:8765", "http", False),
        ("null", "127.0.0.1:8765", "http", False),
        (None, "127.0.0.1:8765", "http", False),
        ("http://127.0.0.1:8765", None, "http", False),
    ],
)
def test_changes_must_come_from_the_same_origin(origin, host, scheme, same):
    assert guard.same_origin(origin, host, scheme) is same


def test_wrong_tokens_block_an_address_for_the_window_only():
    now = [1000.0]
    limiter = guard.FailureLimiter(limit=3, window=60.0, clock=lambda: now[0])
    for _ in range(2):
        limiter.failed("10.0.0.9")
    assert limiter.blocked("10.0.0.9") == 0
    limiter.failed("10.0.0.9")
    assert limiter.blocked("10.0.0.9") == pytest.approx(60.0)
    assert limiter.blocked("10.0.0.10") == 0  # other addresses are not punished
    now[0] += 59.0
    assert limiter.blocked("10.0.0.9") == pytest.approx(1.0)
    now[0] += 1.5
    assert limiter.blocked("10.0.0.9") == 0


def test_a_token_found_wrong_is_remembered_per_address_for_the_window():
    now = [1000.0]
    limiter = guard.FailureLimiter(limit=3, window=60.0, clock=lambda: now[0])
    limiter.failed("10.0.0.9", "d1")
    assert limiter.known_wrong("10.0.0.9", "d1")
    assert not limiter.known_wrong("10.0.0.9", "d2") and not limiter.known_wrong("10.0.0.10", "d1")
    for n in range(limiter.KEPT_PER_ADDRESS + 5):  # a flood of guesses keeps a bounded memory
        limiter.failed("10.0.0.9", f"g{n}")
    assert not limiter.known_wrong("10.0.0.9", "d1") and limiter.known_wrong("10.0.0.9", "g68")
    now[0] += 61.0
    assert not limiter.known_wrong("10.0.0.9", "g68") and limiter.blocked("10.0.0.9") == 0
