"""The page's own files (HTML, CSS, JavaScript, manifest, icons), read once from the package's data.

They are package data read through importlib.resources, so the web panel works from a wheel, a zip or an
editable checkout alike. Each carries a strong ETag so a phone revalidates instead of downloading again.
"""

from __future__ import annotations

import hashlib
import html
from dataclasses import dataclass
from importlib import resources

from lunavect.core import clients

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
}


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str
    etag: str


# Where index.html takes one filter button per client.
CLIENTS_MARK = b"<!--clients-->"


def client_buttons() -> str:
    """The provider filter's button of each client lunavect knows: its id, its name (for the page's sentences)
    and its label, escaped for HTML. Each starts hidden: the page shows those of the clients its rows hold
    (app.js, `clientChoices`)."""
    return "".join(
        f'<button type="button" hidden data-provider="{html.escape(c.id)}" data-name="{html.escape(c.name)}" '
        f'aria-pressed="false">{html.escape(c.label)}</button>'
        for c in clients.every()
    )


def load() -> dict[str, Asset]:
    """Every file of the `static` folder by name."""
    found: dict[str, Asset] = {}
    folder = resources.files("lunavect.frontends.web").joinpath("static")
    for entry in folder.iterdir():
        name = entry.name
        suffix = name[name.rfind(".") :] if "." in name else ""
        if not entry.is_file() or suffix not in TYPES:
            continue
        body = entry.read_bytes()
        if name == "index.html":
            body = body.replace(CLIENTS_MARK, client_buttons().encode())
        found[name] = Asset(body, TYPES[suffix], '"' + hashlib.sha256(body).hexdigest()[:20] + '"')
    return found
