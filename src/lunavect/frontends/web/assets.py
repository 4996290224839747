"""The page's own files (HTML, CSS, JavaScript, manifest, icons), read once from the package's data.

They are package data read through importlib.resources, so the web panel works from a wheel, a zip or an
editable checkout alike. Each carries a strong ETag so a phone revalidates instead of downloading again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

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
        found[name] = Asset(body, TYPES[suffix], '"' + hashlib.sha256(body).hexdigest()[:20] + '"')
    return found
