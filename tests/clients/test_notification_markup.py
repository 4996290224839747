"""What a notification shows on a real desktop (a real D-Bus session bus and dunst under Xvfb) is the text it
was given: markup and entities in a title or a folder name show as written, never as bold, a link or `&`.

dunst draws `message`, its format (`<b>%s</b>\\n%b`) filled with the summary (escaped by dunst) and the body
(as received), as Pango markup, that is XML: what Pango draws is the text of that XML, and the only element
in it must be the format's own `<b>`.
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path

from notify_support import row

from lunavect import store
from lunavect.core.model import State
from lunavect.listing import sessions
from lunavect.notify import settings
from lunavect.notify.decide import Transition
from lunavect.notify.notifier import Notifier

TITLE = "<b>bold</b> &amp; <a href='https://example.invalid/'>link</a> <i>"
FOLDER = "proj<u>x</u>&lt;&"


def drawn(message: str) -> tuple[str, list[str]]:
    """What Pango draws of dunst's `message`: its text, and the elements that would style it."""
    root = ET.fromstring(f"<markup>{message}</markup>")
    return "".join(root.itertext()), [element.tag for element in root.iter()][1:]


def test_markup_in_a_title_and_a_folder_shows_as_written(desktop, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("LUNAVECT_HOME", str(tmp_path / "lv"))
    for name, value in desktop.env.items():
        monkeypatch.setenv(name, value)
    conn = store.connect()
    chosen = settings.load(conn)
    chosen.focus = False
    chosen.coalesce_s = 0.0
    chosen.usage_percent = None
    chosen.sound = "none"
    settings.save(conn, chosen)
    conn.close()

    notifier = Notifier(stored=sessions)
    try:
        now = time.time()
        notifier([Transition(State.WORKING, row(1, at=now, title=TITLE, project=FOLDER))])
        desktop.wait(lambda: len(desktop.shown()) == 1, what="the first notification")
        # Two at once are named together in the body: the titles are body text there.
        notifier(
            [
                Transition(State.WORKING, row(2, at=now, title=TITLE, project=FOLDER)),
                Transition(State.WORKING, row(3, at=now, title="a & b", project="c")),
            ]
        )
        desktop.wait(lambda: len(desktop.shown()) == 2, what="the second notification")
    finally:
        notifier.close()
    one, two = desktop.shown()

    text, elements = drawn(one["message"])
    assert elements == ["b"]
    title, body = text.split("\n", 1)
    assert title == TITLE
    assert body.startswith(f"{FOLDER} · Claude Code (cli)\nresponse ready")

    text, elements = drawn(two["message"])
    assert elements == ["b"]
    assert f"{TITLE} ({FOLDER}): response ready" in text.splitlines()
    assert "a & b (c): response ready" in text.splitlines()
