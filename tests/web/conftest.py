"""The web panel's browser tests; their fixtures live in web_support.py (a uniquely named module)."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
if str(_HERE) not in sys.path:
    sys.path.insert(0, str(_HERE))

from web_support import chromium_browser  # noqa: E402,F401 - registers the `browser` fixture with pytest
