"""Text made safe for the desktop's notification server: the one escaper of what a notification shows.

A notification carries titles and folder names that other programs wrote. The freedesktop notification
specification lets the server read the body as markup (`<b>`, `<i>`, `<u>`, `<a href>`, `<img>` and XML's
entities), and the servers do: dunst rendered a folder's `<b>` as bold, its `<a href=...>` as a link and
`&amp;` as `&`. desktop-notifier hands the body over unchanged, so lunavect escapes it here. It escapes
whether or not the server advertises `body-markup`: dunst 1.9 reads the body as markup while leaving that
capability out of GetCapabilities (seen with its default configuration), so the capability cannot be
trusted to say that the body is safe raw; a server without markup at all is rare, and there an escaped
`&amp;` shows as written, which misleads no one, where a link would. The summary (title) is plain text by
the specification, and dunst shows it literally, so it is not escaped (an escaped `&` would show as
`&amp;`); both have their control characters made visible and their length cut.

On macOS and Windows the notification centre shows plain text: there only the cut and the control characters
apply. The `notify.command` program gets the text unescaped, as JSON on its stdin (never a shell).
"""

from __future__ import annotations

import html
import platform

from lunavect.core.terminal_text import ELLIPSIS, clean, clean_lines

# What a notification shows of a title, and of its body; the servers cut far shorter themselves.
TITLE_CHARS = 200
BODY_CHARS = 2000


def reads_markup() -> bool:
    """Whether this platform's notifications go to a freedesktop server, which may read the body as markup
    (desktop-notifier's D-Bus backend is the one it uses on Linux)."""
    return platform.system() == "Linux"


def title_text(text: str) -> str:
    """A notification's title (summary): one line, plain text, cut to TITLE_CHARS."""
    return clean(text, limit=TITLE_CHARS)


def body_text(text: str, markup: bool | None = None) -> str:
    """A notification's body: its lines kept, each without control characters, cut to BODY_CHARS, and with
    `&`, `<` and `>` as entities for a server that reads markup (`markup`: that default, `reads_markup`)."""
    if len(text) > BODY_CHARS:
        text = text[: BODY_CHARS - 1] + ELLIPSIS
    kept = clean_lines(text)
    return html.escape(kept, quote=False) if (reads_markup() if markup is None else markup) else kept
