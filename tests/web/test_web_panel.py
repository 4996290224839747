"""The web panel in a real browser against a real `lunavect web` and a real collector: the list, live updates,
search and filters, pin, hide and undo, the hidden view, reordering by keyboard and by dragging, and the walls
(view-only tokens, wrong tokens, forged Host, cross-origin changes), all checked on the server's side too."""

from __future__ import annotations

import http.server
import json
import shutil
import subprocess
import threading
from collections.abc import Iterator

import pytest
from web_support import (
    Served,
    hook,
    isolated_env,
    list_json,
    lunavect,
    open_page,
    start_web,
    stop_collector,
)

from lunavect.core.state_words import PIN_MARK
from lunavect.listing.arrangement import MOVED_UNTIL
from lunavect.notify import push

BUILD = "claude:aaaaaaaa-1111-4111-8111-111111111111"
DOCS = "claude:bbbbbbbb-2222-4222-8222-222222222222"
SITE = "claude:cccccccc-3333-4333-8333-333333333333"
PARSER = "claude:dddddddd-4444-4444-8444-444444444444"


CODEX_SID = "019c8a4c-ed82-79a1-aa28-7738fc5ab61a"
CODEX = f"codex:{CODEX_SID}"
GEMINI_SID = "5f0c6a7e-1d2b-4c3d-9e8f-0a1b2c3d4e5f"


def client_buttons(page) -> list[str]:
    """The client filter's buttons the page shows, in their order (All included)."""
    return page.evaluate(
        "[...document.querySelectorAll('.segmented:not([hidden]) [data-provider]:not([hidden])')]"
        ".map((b) => b.textContent)"
    )


def sid(key: str) -> str:
    return key.split(":", 1)[1]


@pytest.fixture
def served(tmp_path) -> Iterator[Served]:
    env = isolated_env(tmp_path)
    hook(env, sid(BUILD), "UserPromptSubmit", prompt="Fix the build", project="builder")
    hook(
        env,
        sid(BUILD),
        "PreToolUse",
        tool_name="Bash",
        tool_use_id="t1",
        tool_input={"command": "make"},
        project="builder",
    )
    hook(env, sid(DOCS), "UserPromptSubmit", prompt="Write the docs", project="docs")
    hook(env, sid(DOCS), "Stop", last_assistant_message="Done.", background_tasks=[], project="docs")
    hook(env, sid(SITE), "UserPromptSubmit", prompt="Deploy the site", project="site")
    hook(env, sid(SITE), "PermissionRequest", tool_name="Bash", tool_input={"command": "touch x"}, project="site")
    hook(env, sid(PARSER), "UserPromptSubmit", prompt="Refactor the parser", project="parser")
    hook(env, sid(PARSER), "StopFailure", error="rate_limit", last_assistant_message="API Error", project="parser")
    server = start_web(env)
    try:
        yield server
    finally:
        server.stop()
        stop_collector(env)


def shown(page) -> list[str]:
    return page.eval_on_selector_all("#sessions > li.row", "rows => rows.map(r => r.dataset.id)")


def row(page, key: str):
    return page.locator(f'li.row[data-id="{key}"]')


def wait_rows(page, expected: list[str]) -> None:
    page.wait_for_function(
        "ids => JSON.stringify([...document.querySelectorAll('#sessions > li.row')].map(r => r.dataset.id))"
        " === JSON.stringify(ids)",
        arg=expected,
        timeout=10_000,
    )


def stored(env, key: str) -> dict:
    return next(s for s in list_json(env, "--all") if s["id"] == key)


def test_the_list_renders_with_states_counters_and_no_token_in_the_address_bar(served, browser):
    page = open_page(browser, served.control)
    assert "token" not in page.url
    assert page.evaluate("document.cookie") == ""  # the cookie is HttpOnly
    assert sorted(shown(page)) == sorted([BUILD, DOCS, SITE, PARSER])
    assert row(page, BUILD).locator(".state").inner_text() == "Working: Bash"
    assert row(page, SITE).locator(".state").inner_text() == "Permission needed: Bash"
    assert row(page, PARSER).locator(".state").inner_text() == "Limit reached"
    assert row(page, DOCS).locator(".state").inner_text() == "Response ready"
    assert page.locator("#working").inner_text() == "⚙ 1 working"
    assert page.locator("#awaiting").inner_text() == "◆ 1 awaiting input"
    assert page.locator("#errors").is_hidden()  # the failed turn's client ended: it needs nobody
    # The response timer ticks in the page.
    first = row(page, BUILD).locator(".timer").inner_text()
    page.wait_for_function(
        f"t => document.querySelector('li.row[data-id=\"{BUILD}\"] .timer').textContent !== t", arg=first
    )


def test_a_pushed_link_opens_with_its_sessions_row_focused(served, browser):
    """A push's link (notify/push.py, `#session=ID` after the public address) opens the page on that row, even
    with the token asked for in between (the token leaves the address bar, the row's name stays)."""
    link = push.link_for(served.base.rstrip("/"), SITE)
    assert link is not None
    fragment = link.partition("/#")[2]
    assert fragment.startswith("session=")
    page = open_page(browser, f"{served.control}#{fragment}")
    page.wait_for_function("() => document.querySelector('li.row.focused') !== null", timeout=10_000)
    assert page.eval_on_selector_all("li.row.focused", "rows => rows.map(r => r.dataset.id)") == [SITE]
    assert page.evaluate("document.activeElement.dataset.id") == SITE
    assert "token" not in page.url and page.url.endswith(f"#{fragment}")


def test_a_pushed_link_without_the_token_asks_for_it_and_then_opens_the_row(served, browser):
    """A push's link carries no token: a browser without the cookie gets the locked page, whose field takes the
    token and opens the same row; a wrong one stays locked."""
    token = served.control.partition("token=")[2]
    fragment = push.link_for(served.base.rstrip("/"), SITE).partition("/#")[2]  # type: ignore[union-attr]
    context = browser.new_context(viewport={"width": 400, "height": 800})
    page = context.new_page()
    page.goto(f"{served.base.rstrip('/')}/#{fragment}")
    page.fill("#token", "not-the-token")
    page.click(".token-form button")
    page.wait_for_selector("body.locked #token", timeout=10_000)
    page.fill("#token", token)
    page.click(".token-form button")
    page.wait_for_selector("body[data-loaded='1']", timeout=20_000)
    page.wait_for_function("() => document.querySelector('li.row.focused') !== null", timeout=10_000)
    assert page.eval_on_selector_all("li.row.focused", "rows => rows.map(r => r.dataset.id)") == [SITE]
    assert "token" not in page.url and page.url.endswith(f"#{fragment}")


def test_every_row_says_open_or_ended_and_since_when_and_ended_rows_recede(served, browser):
    """The page says what `list --json` says: the working and the waiting session run in a client (their fresh
    evidence needs one), the ready and the failed ones have no process to say so (the hooks here come from no
    agent), and those are drawn quieter."""
    page = open_page(browser, served.control)
    rows = {s["id"]: s for s in list_json(served.env)}
    assert {key: rows[key]["open"] for key in (BUILD, SITE, DOCS, PARSER)} == {
        BUILD: True,
        SITE: True,
        DOCS: False,
        PARSER: False,
    }
    assert all(rows[key]["last_active"] for key in rows)
    assert row(page, BUILD).locator(".presence").inner_text() == "open · just now"
    assert row(page, DOCS).locator(".presence").inner_text() == "ended · just now"
    assert row(page, DOCS).get_attribute("class").split().count("ended") == 1
    assert "ended" not in row(page, SITE).get_attribute("class").split()
    weight = "el => getComputedStyle(el).fontWeight"
    assert row(page, BUILD).locator(".title").evaluate(weight) == "600"
    assert row(page, DOCS).locator(".title").evaluate(weight) == "500"
    # The order and the counters are the person's as before.
    assert page.locator("#working").inner_text() == "⚙ 1 working"
    assert page.locator("#awaiting").inner_text() == "◆ 1 awaiting input"


def test_every_rate_limit_window_says_how_long_it_lasts_at_the_pace_of_the_last_hour(served, browser):
    """Claude Code's windows as the status-line wrapper keeps them, with their recent figures: 20 % an hour ago,
    50 % now, the reset in 3 h: at 30 an hour the 5 h window runs out in 1 h 40 m; the 7 d one did not grow."""
    import time
    from pathlib import Path

    now = time.time()
    folder = Path(served.env["LUNAVECT_HOME"]) / "limits"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "claude.json").write_text(
        json.dumps(
            {
                "at": now,
                "primary": {"used_percent": 50, "window_minutes": 300, "resets_at": now + 3 * 3600},
                "secondary": {"used_percent": 8, "window_minutes": 10080, "resets_at": now + 5 * 86400},
                "history": [[now - 3600, 20, 8], [now, 50, 8]],
            }
        )
    )
    page = open_page(browser, served.control)
    hook(served.env, sid(DOCS), "UserPromptSubmit", prompt="Again", project="docs")  # a change: the page reads again
    page.wait_for_selector("#limits li", timeout=20_000)
    line = page.locator("#limits li").inner_text()
    assert line.startswith("claude: 5 h 50 % · resets ") and "· runs out in 1 h 40 m | 7 d 8 %" in line, line
    assert line.endswith("· lasts to reset"), line


def test_a_change_in_the_store_shows_without_reload(served, browser):
    page = open_page(browser, served.control)
    page.evaluate("window.sameDocument = true")
    hook(served.env, sid(BUILD), "Stop", last_assistant_message="Built.", background_tasks=[], project="builder")
    page.wait_for_function(
        f"() => document.querySelector('li.row[data-id=\"{BUILD}\"] .state').textContent === 'Response ready'",
        timeout=10_000,
    )
    assert page.evaluate("window.sameDocument") is True
    assert page.locator("#working").inner_text() == "⚙ 0 working"


def test_search_and_filters(served, browser):
    page = open_page(browser, served.control)
    page.keyboard.press("Control+f")
    page.keyboard.type("docs")
    wait_rows(page, [DOCS])
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.id") == DOCS
    # Esc in the search field clears it, as in the terminal panel.
    page.locator("#search").focus()
    page.keyboard.press("Escape")
    assert page.locator("#search").input_value() == ""
    assert len(shown(page)) == 4
    page.locator("#awaiting").click()
    wait_rows(page, [SITE])
    page.locator("#awaiting").click()
    page.locator("#active").click()
    assert sorted(shown(page)) == sorted([BUILD, SITE])
    page.locator("#active").click()
    # Claude's sessions alone: no client buttons (All would be the only choice), and c has nothing to cycle.
    assert client_buttons(page) == []
    page.locator("body").press("c")
    assert len(shown(page)) == 4
    # A first Codex session brings the buttons: All, Claude and Codex, no client without a session.
    hook(
        served.env,
        CODEX_SID,
        "UserPromptSubmit",
        client="codex",
        prompt="Port the CLI",
        project="port",
        turn_id="t1",
        model="gpt",
    )
    page.wait_for_function("() => !document.querySelector('.segmented').hidden")
    assert client_buttons(page) == ["All", "Claude", "Codex"]
    page.locator("[data-provider=codex]").click()
    wait_rows(page, [CODEX])
    page.locator("body").press("c")  # cycles back to All: Codex was the last client shown
    assert len(shown(page)) == 5
    page.locator("body").press("c")  # then Claude
    assert sorted(shown(page)) == sorted([BUILD, DOCS, SITE, PARSER])
    page.locator("[data-provider=codex]").click()
    page.locator("#search").fill("nothing like it")
    assert "No session is Codex" in page.locator("#empty").inner_text()
    page.locator("#search").fill("")
    page.locator("[data-provider=all]").click()
    # The filter survives a reload (kept by the browser).
    page.locator("#search").fill("site")
    page.reload()
    page.wait_for_selector("body[data-loaded='1']")
    wait_rows(page, [SITE])


def test_pin_hide_undo_and_restore_from_the_hidden_view(served, browser):
    page = open_page(browser, served.control)
    row(page, PARSER).locator(".act-pin").click()
    page.wait_for_function(f"() => document.querySelector('#sessions > li.row').dataset.id === '{PARSER}'")
    assert stored(served.env, PARSER)["pinned"] is True
    # The panel's pinned mark, the same on every surface.
    assert row(page, PARSER).locator(".pin-mark").inner_text() == PIN_MARK

    row(page, DOCS).click()
    page.keyboard.press("Delete")
    page.wait_for_selector(f'li.row[data-id="{DOCS}"]', state="detached")
    assert stored(served.env, DOCS)["hidden"] is True
    assert "Hid" in page.locator("#message").inner_text()
    page.locator("#undo").click()
    page.wait_for_selector(f'li.row[data-id="{DOCS}"]')
    assert stored(served.env, DOCS)["hidden"] is False

    row(page, SITE).click()
    page.keyboard.press("Delete")
    page.wait_for_selector(f'li.row[data-id="{SITE}"]', state="detached")
    page.keyboard.press("Control+z")
    page.wait_for_selector(f'li.row[data-id="{SITE}"]')

    # Hidden by a script: the page learns it live, and restores it from the hidden view.
    assert lunavect(served.env, "hide", BUILD).returncode == 0
    page.wait_for_selector(f'li.row[data-id="{BUILD}"]', state="detached")
    assert page.locator("#hidden-view").inner_text() == "Hidden 1"
    page.locator("body").press("h")
    wait_rows(page, [BUILD])
    row(page, BUILD).locator(".act-restore").click()
    page.wait_for_function("() => document.querySelector('#hidden-view').textContent === 'Hidden'")
    assert stored(served.env, BUILD)["hidden"] is False
    page.locator("body").press("h")
    page.wait_for_selector(f'li.row[data-id="{BUILD}"]')


def test_reorder_by_keyboard_and_by_dragging(served, browser):
    page = open_page(browser, served.control)
    order = shown(page)
    assert len(order) == 4
    row(page, order[0]).click()
    page.keyboard.press("Alt+ArrowDown")
    wait_rows(page, [order[1], order[0], order[2], order[3]])
    # The page says when the moved row will move again, in the panel's words.
    page.wait_for_function(
        "t => document.querySelector('#message-text').textContent.endsWith(t)", arg=MOVED_UNTIL, timeout=20_000
    )
    assert [s["id"] for s in list_json(served.env)] == [order[1], order[0], order[2], order[3]]

    # Drag the last row by its grip above the first.
    grip = row(page, order[3]).locator(".grip").bounding_box()
    top = row(page, order[1]).bounding_box()
    page.mouse.move(grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    page.mouse.down()
    page.mouse.move(top["x"] + 40, top["y"] + 10, steps=8)
    page.mouse.move(top["x"] + 40, top["y"] + 6, steps=2)
    page.mouse.up()
    wait_rows(page, [order[3], order[1], order[0], order[2]])
    assert [s["id"] for s in list_json(served.env)] == [order[3], order[1], order[0], order[2]]


def test_a_view_only_token_shows_the_list_and_the_server_refuses_its_changes(served, browser):
    page = open_page(browser, served.view)
    assert len(shown(page)) == 4
    assert page.locator(".act-pin, .act-hide").count() == 0
    assert "View only" in page.locator("#message").inner_text()
    # The page's own request, with its cookie and its Origin: the server refuses it, not just the page.
    status = page.evaluate(
        f"""() => fetch('/api/sessions/{BUILD}/pin', {{method: 'POST', headers: {{'Content-Type': 'application/json'}},
             body: '{{}}'}}).then(r => r.status)"""
    )
    assert status == 403
    row(page, BUILD).click()
    page.keyboard.press("Delete")
    page.keyboard.press("p")
    assert stored(served.env, BUILD)["pinned"] is False and stored(served.env, BUILD)["hidden"] is False


def test_a_wrong_token_is_refused(served, browser):
    context = browser.new_context()
    page = context.new_page()
    answer = page.goto(served.base + "?token=wrong-token")
    assert answer.status == 401
    assert "needs" in page.content() or "token" in page.content()
    assert page.evaluate("fetch('/api/state').then(r => r.status)") == 401
    context.close()


def test_a_forged_host_is_refused(served):
    conn = served.connection()
    conn.request(
        "GET",
        "/api/state",
        headers={"Host": "rebound.evil.example:80", "Cookie": f"lunavect_web={served.secret(served.control)}"},
    )
    answer = conn.getresponse()
    assert answer.status == 421
    assert json.loads(answer.read())["error"]


def test_a_cross_origin_post_is_refused(served, browser):
    """A page of another origin (a second server on this machine) tries to pin a row with the person's
    cookie: the server refuses, and nothing changes."""
    page = open_page(browser, served.control)
    attack = (
        "<!doctype html><script>"
        f"fetch('{served.base}api/sessions/{BUILD}/pin', {{method: 'POST', mode: 'no-cors', credentials: 'include',"
        " headers: {'Content-Type': 'text/plain'}, body: '{}'}).finally(() => { document.title = 'sent'; });"
        "</script>"
    ).encode()

    class Evil(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(attack)

        def log_message(self, *args: object) -> None:
            pass

    evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
        page.wait_for_function("document.title === 'sent'")
    finally:
        evil.shutdown()
    conn = served.connection()
    conn.request(
        "POST",
        f"/api/sessions/{BUILD}/pin",
        body=b"{}",
        headers={
            "Origin": "http://evil.example",
            "Content-Type": "application/json",
            "Cookie": f"lunavect_web={served.secret(served.control)}",
        },
    )
    assert conn.getresponse().status == 403
    assert stored(served.env, BUILD)["pinned"] is False


def test_a_revoked_token_loses_its_open_page(served, browser):
    page = open_page(browser, served.view)
    listed = json.loads(lunavect(served.env, "web", "tokens", "list", "--json").stdout)
    view = next(t for t in listed if t["role"] == "view")
    assert lunavect(served.env, "web", "tokens", "revoke", view["id"]).returncode == 0
    page.wait_for_function(
        "() => document.querySelector('#message-text').textContent.includes('revoked')", timeout=10_000
    )
    assert page.evaluate("fetch('/api/state').then(r => r.status)") == 401


def test_a_phone_sized_page_fits_and_is_installable(served, browser, tmp_path):
    # Sessions of three clients: their buttons do not fit a phone's line beside Active and Hidden.
    hook(served.env, CODEX_SID, "UserPromptSubmit", client="codex", prompt="Port the CLI", turn_id="t1", model="gpt")
    hook(served.env, GEMINI_SID, "BeforeAgent", client="gemini", prompt="Sketch the logo", project="logo")
    page = open_page(browser, served.control, width=360, height=740)
    page.wait_for_function(f"() => document.querySelector('li.row[data-id=\"gemini:{GEMINI_SID}\"]')")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    # The client buttons gave way to one compact choice of the same clients, which filters the list.
    assert client_buttons(page) == [] and page.locator("#client-choice").is_visible()
    choices = page.locator("#client-choice option").all_inner_texts()
    assert choices == ["All clients", "Claude", "Codex", "Gemini"]
    box = page.locator("#hidden-view").bounding_box()
    assert box["x"] + box["width"] <= 360
    page.locator("#client-choice").select_option("gemini")
    wait_rows(page, [f"gemini:{GEMINI_SID}"])
    page.locator("#client-choice").select_option("all")
    for key in (BUILD, SITE):
        box = row(page, key).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 360
    manifest = page.evaluate("fetch('/static/manifest.webmanifest').then(r => r.json())")
    assert manifest["display"] == "standalone" and {"192x192", "512x512"} <= {i["sizes"] for i in manifest["icons"]}
    for icon in manifest["icons"]:
        assert page.evaluate(f"fetch('{icon['src']}').then(r => r.status)") == 200
    page.screenshot(path=str(tmp_path / "phone.png"))


def test_tls_serves_https_with_a_secure_cookie(tmp_path, browser):
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: no certificate to serve TLS with")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    env = isolated_env(tmp_path)
    hook(env, sid(DOCS), "UserPromptSubmit", prompt="Write the docs", project="docs")
    served = start_web(env, "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert served.control.startswith("https://127.0.0.1:")
        conn = served.connection()
        conn.request("GET", "/?token=" + served.secret(served.control))
        answer = conn.getresponse()
        assert answer.status == 200 and "Secure" in answer.getheader("set-cookie")
        context = browser.new_context(ignore_https_errors=True)
        page = context.new_page()
        page.goto(served.control)
        page.wait_for_selector(f'li.row[data-id="{DOCS}"]')
        context.close()
    finally:
        served.stop()
        stop_collector(env)


def test_open_in_a_browser_on_the_sessions_machine_says_what_lunavect_open_says(served, browser):
    page = open_page(browser, served.control)
    assert page.evaluate("fetch('/api/me').then(r => r.json())")["can_open"] is True
    expected = json.loads(lunavect(served.env, "open", DOCS, "--json").stdout)
    row(page, DOCS).click()
    page.keyboard.press("Enter")
    message = expected["message"]
    page.wait_for_function(
        "m => document.querySelector('#message-text').textContent.toLowerCase().startsWith(m.toLowerCase())",
        arg=message[:40],
        timeout=20_000,
    )


def test_next_opens_the_session_that_needs_its_person_most_as_open_does(served, browser):
    """The page's Next (and `n`) asks the server, which chooses as `lunavect next` does (the permission prompt
    before the others) and opens it as "open" does: the page says which session and what `lunavect open` says.
    A view-only token has no Next, and the server refuses its request."""
    page = open_page(browser, served.control)
    title = stored(served.env, SITE)["title"]
    printed = lunavect(served.env, "next", "--print").stdout
    assert printed == f"Permission needed: Bash · {title} (Claude) · lunavect open {SITE}\n", printed
    expected = json.loads(lunavect(served.env, "open", SITE, "--json").stdout)["message"]
    page.locator("#next").click()
    page.wait_for_function(
        "m => document.querySelector('#message-text').textContent.toLowerCase().includes(m.toLowerCase())",
        arg=expected[:40],
        timeout=20_000,
    )
    assert page.locator("#message-text").inner_text().startswith(f"“{title}”: ")
    assert page.evaluate("document.activeElement.dataset.id") == SITE
    # `n` asks the server again (its passing "Opening…" can come and go between two of the page's frames).
    with page.expect_response(lambda r: r.url.endswith("/api/next") and r.request.method == "POST") as asked:
        page.keyboard.press("n")
    assert asked.value.status == 200
    page.wait_for_function(
        "t => document.querySelector('#message-text').textContent.startsWith(t)", arg=f"“{title}”: ", timeout=20_000
    )

    viewer = open_page(browser, served.view)
    assert viewer.locator("#next").is_hidden()
    status = viewer.evaluate(
        """() => fetch('/api/next', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'})
             .then(r => r.status)"""
    )
    assert status == 403


def test_next_with_nothing_waiting_says_so(tmp_path, browser):
    env = isolated_env(tmp_path)
    hook(env, sid(BUILD), "UserPromptSubmit", prompt="Fix the build", project="builder")
    server = start_web(env)
    try:
        page = open_page(browser, server.control)
        page.locator("#next").click()
        page.wait_for_function(
            "() => document.querySelector('#message-text').textContent.startsWith('nothing needs you: ')",
            timeout=20_000,
        )
    finally:
        server.stop()
        stop_collector(env)


def test_the_row_menu_and_the_other_keys(served, browser):
    page = open_page(browser, served.control)
    row(page, DOCS).click()
    page.keyboard.press("m")
    menu = page.locator("#menu")
    menu.wait_for(state="visible")
    labels = menu.locator("button").all_inner_texts()
    assert labels[0] == "Open" and "Pin" in labels and "Copy the resume command" in labels
    page.keyboard.press("Escape")
    menu.wait_for(state="hidden")
    row(page, DOCS).click(button="right")
    menu.locator("button", has_text="Copy the resume command").click()
    resume = stored(served.env, DOCS)["resume"]
    page.wait_for_function(
        "r => document.querySelector('#message-text').textContent.endsWith(r)", arg=resume, timeout=10_000
    )
    page.locator("body").press("Escape")
    page.locator("body").press("a")  # the awaiting-input filter, as the counter
    wait_rows(page, [SITE])
    page.locator("body").press("a")
    page.locator("body").press("v")
    assert sorted(shown(page)) == sorted([BUILD, SITE])
    page.locator("body").press("v")
    row(page, SITE).click()
    page.keyboard.press("p")
    page.wait_for_function(f"() => document.querySelector('#sessions > li.row').dataset.id === '{SITE}'")
    page.keyboard.press("Escape")
    assert page.locator("li.row.focused").count() == 0


def test_light_and_dark_follow_the_device(served, browser):
    colours = {}
    for scheme in ("light", "dark"):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        page.goto(served.control)
        page.wait_for_selector("li.row")
        colours[scheme] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        context.close()
    assert colours["light"] != colours["dark"]


def test_the_row_menu_dismisses_an_error_without_hiding_it(served, browser):
    """Nothing acknowledged a ready or error row except hiding it (issue 48, items 4 and 12): the menu's Dismiss
    keeps the row listed and marks it dismissed in the store, where `next` and the bars read it; "Needs me
    again" takes it back. A row with nothing to dismiss (a permission) has no such item."""
    page = open_page(browser, served.control)
    row(page, PARSER).click(button="right")
    menu = page.locator("#menu")
    menu.wait_for(state="visible")
    menu.locator("button", has_text="Dismiss (seen)").click()
    page.wait_for_function(
        "() => document.querySelector('#message-text').textContent.startsWith('Dismissed')", timeout=10_000
    )
    assert stored(served.env, PARSER)["dismissed"] is True and stored(served.env, PARSER)["hidden"] is False
    assert PARSER in shown(page)
    row(page, PARSER).click(button="right")
    menu.wait_for(state="visible")
    assert "Needs me again" in menu.locator("button").all_inner_texts()
    menu.locator("button", has_text="Needs me again").click()
    page.wait_for_function(
        "() => document.querySelector('#message-text').textContent.endsWith('needs you again.')", timeout=10_000
    )
    assert stored(served.env, PARSER)["dismissed"] is False
    row(page, SITE).click(button="right")
    menu.wait_for(state="visible")
    assert not [label for label in menu.locator("button").all_inner_texts() if "Dismiss" in label]
