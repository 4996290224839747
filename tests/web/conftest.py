"""The web panel's browser tests; their fixtures live in web_support.py (a uniquely named module)."""

from __future__ import annotations

from web_support import chromium_browser  # noqa: E402,F401 - registers the `browser` fixture with pytest
