"""The hook shim's former entry point, kept for the hook commands that earlier versions installed.

Those commands (`import lunavect.hook as h;h.main()`, or this file run by path) live in the person's
settings.json and hooks.json until `lunavect hooks install` rewrites them; without this module every event
would print a traceback to the agent. `lunavect hooks status` reports such entries as outdated. New code
imports the parts of lunavect/shim/, never this.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    # Run as a file: make the package importable without `site`.
    import os

    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from lunavect.shim.entry import main  # noqa: E402

__all__ = ["main"]

if __name__ == "__main__":
    main()
