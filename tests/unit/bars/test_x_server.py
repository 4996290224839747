"""The tests' private X server (tests/support/x_server.py) keeps its state when its last client leaves.

An X server resets by default when its last client disconnects, and a client connecting during the reset is
dropped. The tray test polls the server with short connections while trayer starts: on a loaded CI run one poll
closed, the server reset, and trayer, connecting just then, said "cannot open display"."""

from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("Xvfb") is None, reason="Xvfb is needed (Debian: xvfb)")
Xlib_display = pytest.importorskip("Xlib.display", reason="the tray extra is not installed")


@pytest.mark.process
def test_the_server_keeps_what_a_client_left_after_the_last_client_leaves(display):
    first = Xlib_display.Display(display)
    mark = first.intern_atom("LUNAVECT_TEST_MARK")
    first.screen().root.change_property(mark, first.intern_atom("STRING"), 8, b"kept")
    first.sync()
    first.close()  # the last client leaves: a server that resets now drops its root window's properties
    second = Xlib_display.Display(display)
    try:
        kept = second.screen().root.get_full_property(second.intern_atom("LUNAVECT_TEST_MARK"), 0)
        assert kept is not None and kept.value == b"kept"
    finally:
        second.close()
