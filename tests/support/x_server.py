"""A private X server (Xvfb) for the tests that need a display: the tray's and the notifications'.

Xvfb's own choice of a free display (`-displayfd` alone) starts at :0 every time, so two test workers starting
and stopping servers meet on the same few numbers: on a loaded CI run trayer failed with "cannot open display:
:0" beside the other worker's servers (most likely one still exiting on :0, its lock gone before its socket).
Each server here asks for a number of its own, drawn from a wide range, and says when it is ready on a pipe.

That was not the whole cause: the same failure came back on a number of its own (":29537"). An X server resets
when its last client leaves, and drops a client that connects meanwhile; the tray test polls the server with
short connections while trayer starts, so a poll closing just before trayer connected reset the server under
it. The servers here run with `-noreset` (tests/unit/bars/test_x_server.py).
"""

from __future__ import annotations

import os
import random
import subprocess

# Far above the numbers a desktop or another Xvfb's own choice uses.
_NUMBERS = range(200, 30000)


def start_xvfb(screen: str, *, attempts: int = 20, **popen) -> tuple[subprocess.Popen, str]:
    """An Xvfb with one screen of `screen` ("640x200x24") on a display no other server holds, once it accepts
    clients; returns it and its display name (":4242"). `popen` goes to Popen (output, a new session)."""
    for _ in range(attempts):
        number = random.choice(_NUMBERS)
        read, write = os.pipe()
        proc = subprocess.Popen(
            ["Xvfb", f":{number}", "-displayfd", str(write), "-screen", "0", screen, "-nolisten", "tcp", "-noreset"],
            pass_fds=(write,),
            **popen,
        )
        os.close(write)
        with os.fdopen(read, "rb") as pipe:
            said = pipe.readline().strip()  # written once it accepts clients; nothing when it gave up
        if said == str(number).encode():
            return proc, f":{number}"
        proc.kill()
        proc.wait(10)
    raise RuntimeError(f"Xvfb found no free display in {attempts} attempts")
